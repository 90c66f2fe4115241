"""The validator's worker process (spvls/binding/worker.py), with the real library: a run past its
CPU budget is stopped and said so, a superseded job's process is killed, a dead process is
restarted once and then reported, no child means in process, and its answers are the library's."""
from __future__ import annotations

import asyncio
import csv
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import FULL_DATA

from spvls.binding import spirv_tools as st
from spvls.binding import worker as workers
from spvls.checks import validator
from spvls.checks.diagnostic import INFO
from spvls.cli import main
from spvls.cli.check import check_text
from spvls.state.validation import Validation
from spvls.state.workspace import Workspace
from tests.scale.inputs import slow_cfg, undefined_ids

pytestmark = pytest.mark.skipif(not st.available(), reason="libSPIRV-Tools-shared not available")
DATA = Path(__file__).resolve().parents[1] / "data"
# ~4 s of CPU in SPIRV-Tools with its default options: its error report names the module's ids, and
# finding a free name for each of 6,000 equal constants (`uint_1`, `uint_1_0`, ...) tries every
# suffix taken before it. spvls' own options (through checks.validator) avoid that: SLOW_EVEN_RENAMED.
SLOW = undefined_ids(12_000)
SLOW_EVEN_RENAMED = slow_cfg(600)
VALID = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n"
BAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%f = OpTypeFloat 7\n"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _until(cond, what: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"never: {what}")
        time.sleep(0.005)


def test_a_long_validation_is_stopped_at_its_budget_and_the_next_one_runs() -> None:
    w = workers.Worker()
    try:
        assert w.check(SLOW, budget=0.5) == workers.Stopped("timeout", 0.5)
        assert w.pid is None and w.starts == 1
        # The next job starts a new process; a budget the run fits in lets it answer.
        assert w.check(VALID) == ("val", None)
        assert w.starts == 2 and w.pid is not None
    finally:
        w.close()


def _command(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self").exists(), reason="os.fork and /proc")
def test_a_forked_child_answers_as_the_library_keeps_its_budget_and_a_restart_spawns() -> None:
    """`spvls check`'s child is forked from it (prestart(fork=True)): it is this program, not a new
    interpreter; it answers what the library answers in process, is killed past its budget, and the
    child that replaces it is a spawned one."""
    w = workers.Worker()
    try:
        w.prestart(fork=True)
        assert w.check(BAD) == workers.check(BAD.encode(), "spv1.6", st.ValidatorOptions()) != ("val", None)
        assert w.starts == 1 and _command(w.pid) == _command(os.getpid())
        pid = w.pid
        assert w.check(SLOW, budget=0.5) == workers.Stopped("timeout", 0.5)
        assert _gone(pid) and w.pid is None
        assert w.check(VALID) == ("val", None)
        assert w.starts == 2 and b"spvls.binding.worker" in _command(w.pid)
    finally:
        w.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_childs_status_survives_a_poll_and_a_wait_at_once() -> None:
    """The validation thread polls while another waits: one waitpid at a time, or the second finds
    the child reaped and its status is lost."""
    lost = 0
    for _ in range(60):
        pid = os.fork()
        if pid == 0:
            time.sleep(0.005)
            os._exit(75)
        child = workers._Forked(pid, io.BytesIO(), io.BytesIO())
        go = threading.Event()

        def poll(c: workers._Forked = child, ready: threading.Event = go) -> None:
            ready.wait()
            while c.poll() is None:
                pass

        poller = threading.Thread(target=poll)
        poller.start()
        go.set()
        child.wait()
        poller.join()
        lost += child.returncode != 75
    assert lost == 0


def test_a_child_that_stops_counting_cpu_time_is_killed_at_the_wall_limit(monkeypatch) -> None:
    w = workers.Worker()
    try:
        assert w.check(VALID) == ("val", None)
        os.kill(w.pid, signal.SIGSTOP)  # its own CPU watch cannot fire: only the parent's clock can
        pid = w.pid
        monkeypatch.setattr(workers, "wall_limit", lambda budget: 0.3)
        answers: list = []
        job = threading.Thread(target=lambda: answers.append(w.check(VALID, budget=1.0)))
        job.start()
        job.join(30)
        if job.is_alive():  # no answer: unblock the job, then fail
            os.kill(pid, signal.SIGKILL)
            job.join()
        assert answers == [workers.Stopped("timeout", 1.0)] and _gone(pid)
        assert w.check(BAD)[0] == "val" and w.starts == 2
    finally:
        w.close()


def test_check_says_spirv_val_was_stopped_and_keeps_the_native_diagnostics(tmp_path, capsys) -> None:
    diags = check_text(SLOW_EVEN_RENAMED, "slow.spvasm", None, True, st.ValidatorOptions(timeout=0.5))
    first = diags[0]
    assert (first.line, first.start, first.severity, first.code) == (0, 0, INFO, "spirv-val.timeout")
    assert first.message.startswith("spirv-val was stopped after 0.5 s of CPU time")
    assert "spvls' own checks still ran" in first.message
    assert {d.code for d in diags[1:]} == {"reconvergence.multiple-predecessors"}
    # The same through the command line, with its option.
    path = tmp_path / "slow.spvasm"
    path.write_text(SLOW_EVEN_RENAMED)
    assert main(["check", "--spirv-val-timeout", "0.5", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}:1:1: info: {first.message} [spirv-val.timeout]"


def test_a_cancelled_job_kills_its_process() -> None:
    w = workers.Worker()
    answers: list = []
    t = threading.Thread(target=lambda: answers.append(w.check(SLOW, budget=0, tag="a")))
    t.start()
    try:
        _until(lambda: w.pid is not None and w._tag == "a", "job a running")
        pid = w.pid
        assert not w.cancel("b")  # another job's tag: not this one
        assert w.cancel("a")
        t.join(60)
        assert answers == [workers.Stopped("cancelled")]
        assert pid is not None and _gone(pid)
        assert not w.cancel("a")  # nothing runs now
    finally:
        t.join(60)
        w.close()


def test_a_job_cancelled_while_its_process_starts_does_not_run() -> None:
    w = workers.Worker()
    starting, go = threading.Event(), threading.Event()
    start = w._start

    def held_start():  # the test holds the start until it has cancelled
        starting.set()
        go.wait(60)
        return start()

    w._start = held_start  # type: ignore[method-assign]
    answers: list = []
    t = threading.Thread(target=lambda: answers.append(w.check(SLOW, budget=0, tag="a")))
    t.start()
    try:
        assert starting.wait(60)
        assert w.cancel("a")
        go.set()
        t.join(60)
        assert answers == [workers.Stopped("cancelled")]
        assert w.starts == 1 and w.pid is not None  # the new process is kept for the next job
        assert w.check(VALID) == ("val", None) and w.starts == 1
    finally:
        go.set()
        t.join(60)
        w.close()


async def test_a_superseded_validation_kills_the_worker_process() -> None:
    ws = Workspace()
    doc = ws.open("u", SLOW_EVEN_RENAMED, 1)
    published: list[list[str]] = []
    v = Validation(ws, lambda uri: published.append([d.code for d in v.results[uri]]), delay=0)
    try:
        v.changed("u")
        for _ in range(12_000):
            if v.worker.pid is not None and v.worker._tag == "u":
                break
            await asyncio.sleep(0.005)
        pid = v.worker.pid
        assert pid is not None
        doc.replace((0, 0), (len(doc.texts), 0), VALID)
        doc.version = 2
        v.changed("u")  # version 1's run is stale now: its process is killed
        for _ in range(12_000):
            if published:
                break
            await asyncio.sleep(0.005)
        assert published == [[]]  # version 2 validates; version 1 never published
        assert _gone(pid)
        assert v.worker.starts == 2 and v.worker.pid not in (None, pid)
    finally:
        v.shutdown()


def test_a_killed_process_is_restarted_and_the_job_still_answered() -> None:
    w = workers.Worker()
    want = ("val", st.validate(st.assemble(BAD)))
    assert want[1] is not None
    try:
        assert w.check(BAD) == want and w.starts == 1
        os.kill(w.pid, signal.SIGKILL)  # killed while idle: the next job starts another
        assert w.check(BAD) == want and w.starts == 2
        # Killed during a job: the job runs again on a new process.
        answers: list = []
        t = threading.Thread(target=lambda: answers.append(w.check(SLOW, budget=0.5)))
        t.start()
        _until(lambda: w._tag is not None and w.starts == 2, "the slow job running")
        os.kill(w.pid, signal.SIGKILL)
        t.join(60)
        assert answers == [workers.Stopped("timeout", 0.5)] and w.starts == 3  # it ran again, to its budget
    finally:
        w.close()


def test_a_process_that_dies_twice_is_reported() -> None:
    w = workers.Worker()
    killed: list[int] = []
    answers: list = []
    t = threading.Thread(target=lambda: answers.append(w.check(SLOW, budget=0)))
    t.start()
    try:
        while t.is_alive() and len(killed) < 3:
            pid = w.pid
            if pid is not None and w._tag is not None and pid not in killed:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.005)
        t.join(60)
        assert len(killed) == 2
        assert answers == [
            workers.Stopped("crashed", detail=f"the validator process ended with status {-signal.SIGKILL}")
        ]
    finally:
        t.join(60)
        w.close()
    d = validator.stopped(answers[0])
    assert (d.line, d.severity, d.code) == (0, INFO, "spirv-val.crashed")
    assert "died twice" in d.message and "spvls' own checks still ran" in d.message


def test_without_a_process_it_validates_in_process(monkeypatch) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    w = workers.Worker()
    assert w.check(BAD) == ("val", st.validate(st.assemble(BAD)))
    assert w.check("OpNop %x\n") == ("as", st.assemble("OpNop %x\n"))
    assert w.in_process and "cannot start the validator process" in w.why_in_process
    assert w.pid is None


def test_an_unknown_env_raises_as_in_process() -> None:
    with pytest.raises(ValueError, match="unknown target env"):
        workers.shared().check(VALID, "vulkan7")


def _modules(data_root: Path):
    for path in sorted(DATA.rglob("*.spvasm")):
        if not path.is_relative_to(DATA / "cases"):  # read below, with each case's env
            yield path, "spv1.6"
    for kind in ("cases", "corpus"):
        with open(data_root / kind / "MANIFEST.tsv", encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                yield data_root / kind / row["path"], row["env"] or "spv1.6"


def test_the_process_answers_what_the_library_answers_in_process(data_root: Path) -> None:
    w = workers.Worker()
    compared = differ = rejected = 0
    try:
        for path, env in _modules(data_root):
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            for options in (st.ValidatorOptions(), st.ValidatorOptions(friendly_names=False, relax_block_layout=True)):
                compared += 1
                words = st.assemble(text, env, preserve_numeric_ids=False)
                here = ("as", words) if isinstance(words, st.Failure) else ("val", st.validate(words, env, options))
                # Sent whole, and in slices of lines (as the server sends it).
                lines = text.splitlines(keepends=True)
                parts = ["".join(lines[i : i + 100]) for i in range(0, len(lines), 100)]
                if not (w.check(text, env, options) == here == w.check(parts, env, options)):
                    differ += 1
                rejected += here[1] is not None
    finally:
        w.close()
    assert compared > (1000 if FULL_DATA else 600) and differ == 0 and rejected > 100
    assert w.starts == 1  # one process answered them all


def test_the_budget_is_a_setting() -> None:
    ws = Workspace()
    assert ws.settings.validator_options().timeout == st.DEFAULT_TIMEOUT
    assert ws.settings.update({"validatorTimeout": 0.5}) == []
    assert ws.settings.validator_options().timeout == 0.5
    assert ws.settings.update({"validatorTimeout": "long"}) == [
        "spvls settings: validatorTimeout: expected a number of seconds (0: no limit), not 'long'; kept 0.5"
    ]


class _Parts:
    """The text's lines, iterated afresh each time (as the validation session's Job is)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.iterations = 0

    def __iter__(self):
        self.iterations += 1
        return iter(self.lines)


@pytest.mark.parametrize("again", [True, False])
def test_a_restarted_child_is_fed_the_whole_text_again(again: bool) -> None:
    """Parts that can be iterated again are streamed to each child afresh (never held as bytes);
    a one-shot iterator is kept, so the second child gets the whole text too."""
    w = workers.Worker()
    parts = _Parts(SLOW) if again else iter(SLOW.splitlines(keepends=True))
    answers: list = []
    try:
        assert w.check(VALID) == ("val", None) and w.starts == 1  # a child up before the slow job
        t = threading.Thread(target=lambda: answers.append(w.check(parts, budget=0.5)))
        t.start()
        # Running, and (for parts read afresh) its text on the way: a kill before the first child
        # was fed would leave one feeding to count (seen on a quiet machine: 1 == 2).
        _until(lambda: w._tag is not None and (not again or parts.iterations >= 1), "the slow job running")
        os.kill(w.pid, signal.SIGKILL)
        t.join(60)
        # The second child got the whole module: it ran to its budget (an empty or cut text
        # would have been answered at once).
        assert answers == [workers.Stopped("timeout", 0.5)] and w.starts == 2
        if again:
            assert parts.iterations == 2
    finally:
        w.close()


def test_the_child_lets_the_text_go_once_assembled() -> None:
    held = [VALID.encode()]
    assert workers.check(held, "spv1.6", st.ValidatorOptions()) == workers.check(
        VALID.encode(), "spv1.6", st.ValidatorOptions()
    )
    assert held == []


def test_a_child_whose_parent_has_gone_exits_quietly() -> None:
    """The server exits while its validator child works: the child's answer meets a broken pipe, and
    it leaves without a traceback (the server's stderr is the user's log)."""
    import json
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "spvls.binding.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    head = proc.stdout.read(workers._LEN.size)
    assert "ready" in json.loads(proc.stdout.read(workers._LEN.unpack(head)[0]))
    proc.stdout.close()  # the parent's end, gone before the answer
    workers._send(proc.stdin, {"env": "spv1.6", "options": st.ValidatorOptions().to_dict(), "budget": 0})
    text = b"OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
    proc.stdin.write(workers._LEN.pack(len(text)) + text + workers._LEN.pack(0))
    proc.stdin.flush()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err == b""


def test_a_child_whose_parent_is_gone_before_it_is_ready_exits_without_a_word() -> None:
    # A server that exits while its validator's process starts: the child's "ready" meets a broken
    # pipe, and the server's stderr (which the child shares) gets no traceback.
    code = (
        "import os; from spvls.binding import worker; r, w = os.pipe(); os.close(r);"
        "worker.main(open(os.devnull, 'rb'), os.fdopen(w, 'wb'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert (out.returncode, out.stderr) == (0, "")
