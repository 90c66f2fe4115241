"""The helper process (checks.parallel.start_helper): it checks an opened document's text for some
families while this process parses, builds and checks the rest. Whatever it does (answers, fails,
dies, lags), the analysis is the one a single process makes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from spvls.checks import _share, ahead, analyze, parallel
from spvls.checks.diagnostic import Diagnostic
from spvls.session.warm import warm_checks
from spvls.session.workspace import Workspace
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from generate import module as generated  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
RULES = sorted((ROOT / "tests" / "data" / "rules").glob("*.spvasm"))


def _text(d) -> tuple:
    return (d.line, d.start, d.end, d.code, d.message, d.related, d.fixes, d.source)


def _serial(text: str, env: str | None) -> list[tuple]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "enabled", False)
        return [_text(d) for d in analyze(Document(text), env).diagnostics]


@pytest.fixture
def helper(monkeypatch):
    """A helper for this test (with `share`, checks' own unless given), on a machine with a core to spare."""
    monkeypatch.setattr(parallel, "enabled", True)
    monkeypatch.setattr(parallel, "HELPER_FROM_LINES", 0)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(parallel, "_load", lambda: 0.0)
    parallel.stop_helper()  # one a server made in this process earlier

    def start(share=_share):
        assert parallel.start_helper(share, warm_checks)
        return parallel._helper

    yield start
    parallel.stop_helper()


def _answered(asked, within: float = 60.0):
    """Wait for the helper's answer (as if this process were slower than the helper)."""
    asked._take(time.monotonic() + within)
    return asked.got


@pytest.mark.parametrize("env", [None, "vulkan1.3"])
def test_the_helpers_families_say_what_one_process_says(helper, env):
    helper()
    texts = [p.read_text(encoding="utf-8") for p in RULES] + [generated(3000)]
    for text in texts:
        asked = ahead(text, env)
        assert asked is not None
        assert isinstance(_answered(asked), dict)  # the helper's own answer is what is merged
        a = analyze(Document(text), env, asked=asked)
        assert [_text(d) for d in a.diagnostics] == _serial(text, env)


def test_a_workspace_opens_through_the_helper_and_keeps_editing_in_place(helper):
    helper()
    ws = Workspace()
    text = generated(3000)
    uri = "file:///x.spvasm"
    doc = ws.open(uri, text, 1)
    assert uri in ws._ahead
    _answered(ws._ahead[uri][2])
    first = ws.analysis(uri)
    assert first is not None and uri not in ws._ahead
    assert [_text(d) for d in first.diagnostics] == _serial(text, None)
    n = next(i for i, t in enumerate(doc.texts) if "OpIAdd" in t)
    col = doc.texts[n].index("OpIAdd") + len("OpIAdd")
    doc.replace((n, col + 1), (n, col + 2), "%nope")  # an undefined id: ids, the helper's family
    a = ws.analysis(uri)
    assert a is not None and a.rechecked is not None
    assert [_text(d) for d in a.diagnostics] == _serial(doc.text, None)
    assert any(d.code == "id.undefined" for d in a.diagnostics)


def _failing(how: str):
    def share(text, env, names, built):
        if how == "raise":
            raise RuntimeError("a family failed in the helper")
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "lag":
            built()
            time.sleep(3600)  # cancelled by this process, which runs the families itself
        if how == "slow":
            time.sleep(3600)  # never builds: far behind
        return _share(text, env, names, built)

    return share


@pytest.mark.parametrize("how", ["raise", "kill", "lag", "slow"])
def test_whatever_befalls_the_helper_the_result_is_the_serial_one(helper, how):
    h = helper(_failing(how))
    text = (ROOT / "tests" / "data" / "rules" / "coopmat-fail.spvasm").read_text(encoding="utf-8")
    want = _serial(text, None)
    assert any(code.startswith("coopmat.") for _, _, _, code, *_ in want)  # the helper's share is not empty
    started = time.monotonic()
    a = analyze(Document(text), None, asked=ahead(text, None))
    assert [_text(d) for d in a.diagnostics] == want
    assert time.monotonic() - started < 30  # never waited for the sleeping helper
    if how in ("lag", "slow"):
        assert parallel._helper is h  # cancelled, still serving: the next request is answered
        asked = ahead(text, None)
        assert asked is not None
        a = analyze(Document(text), None, asked=asked)
        assert [_text(d) for d in a.diagnostics] == want
    if how == "kill":
        _gone(h.pid)
        assert ahead(text, None) is None  # its pipe is broken: ended, later opens check here alone
        assert parallel._helper is None


def _gone(pid: int) -> None:
    for _ in range(600):
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return  # reaped already (by stop_helper, which saw its pipe end)
        time.sleep(0.05)
    raise AssertionError("the helper did not leave")


def test_a_dropped_request_is_cancelled_and_its_answer_skipped(helper):
    helper()
    first, second = generated(3000), generated(2000)
    parallel.drop(ahead(first, None))
    asked = ahead(second, None)
    got = _answered(asked)
    assert isinstance(got, dict)
    a = analyze(Document(second), None, asked=asked)
    assert [_text(d) for d in a.diagnostics] == _serial(second, None)


def test_the_helper_leaves_when_this_process_closes_its_pipe(helper):
    h = helper()
    os.close(h.to)
    _gone(h.pid)
    os.close(h.back)
    parallel._helper = None


def test_no_helper_for_small_texts_busy_cores_or_when_disabled(helper, monkeypatch):
    helper()
    text = generated(3000)
    monkeypatch.setattr(parallel, "HELPER_FROM_LINES", 10**9)
    assert ahead(text, None) is None
    monkeypatch.setattr(parallel, "HELPER_FROM_LINES", 0)
    monkeypatch.setattr(parallel, "_load", lambda: 1.2)  # one core about busy: the helper would slow this process
    assert ahead(text, None) is None
    monkeypatch.setattr(parallel, "_load", lambda: 0.0)
    monkeypatch.setattr(parallel, "enabled", False)
    assert ahead(text, None) is None


def test_a_helper_that_does_not_read_is_ended_and_the_open_goes_on_serially(helper):
    h = helper()
    os.kill(h.pid, signal.SIGSTOP)  # stopped: it reads nothing; a blocking write of the text never returned
    text = generated(40_000)  # over a megabyte: more than the pipe takes
    assert len(text) > 1 << 20
    assert _ahead_within(h, text, parallel.SEND_WITHIN + 30) == [None] and parallel._helper is None
    with pytest.raises(ChildProcessError):
        os.waitpid(h.pid, os.WNOHANG)  # ended and reaped


def test_an_answer_left_unread_does_not_block_the_next_request(helper):
    # Distinct objects (pickle writes a repeated one once): ~300 KB, far more than the pipe holds.
    many = {"ids": [Diagnostic(n, 0, 1, "error", "id.undefined", f"'%x{n}' is used but never defined") for n in range(5000)]}
    h = helper(lambda text, env, names, built: (built(), many)[1])
    first = ahead("OpNop\n", None)
    assert first is not None
    time.sleep(0.5)  # the helper writes its big answer, which nobody reads, and waits on the full pipe
    parallel.drop(first)
    got = _ahead_within(h, generated(40_000), 60)
    assert len(got) == 1 and got[0] is not None and parallel._helper is h
    assert _answered(got[0]) == many


def _ahead_within(h, text: str, seconds: float) -> list:
    """[ahead(text)], or a failure when it has not returned in `seconds` (then the helper is killed
    to free the blocked write, so that the test fails rather than hangs)."""
    got: list = []
    sender = threading.Thread(target=lambda: got.append(ahead(text, None)))
    sender.start()
    sender.join(seconds)
    blocked = sender.is_alive()
    if blocked:
        os.kill(h.pid, signal.SIGKILL)
        sender.join()
    assert not blocked, f"ahead() still writing after {seconds} s"
    return got


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_a_process_pinned_to_one_core_starts_no_helper():
    code = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); " + (
        "from spvls.checks import parallel; from spvls.cli.jobs import workers; "
        "print(parallel.usable_cores(), parallel.start_helper(lambda *a: {}), workers(0, 10))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.split() == ["1", "False", "1"]
