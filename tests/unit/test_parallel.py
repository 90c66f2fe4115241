"""A whole check on two cores (spvls.checks.parallel): the same diagnostics as one process, whatever
happens to the child, also while the validator runs in a worker thread."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from spvls.binding import spirv_tools as st
from spvls.checks import FAMILIES, _prime, _run_whole, analyze, parallel
from spvls.checks.idkinds import kinds
from spvls.model import uniformity
from spvls.model.module import Module, build
from spvls.spec.grammar import load
from spvls.syntax.document import Document
from tests.scale.inputs import call_chain

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from generate import module as generated  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
RULES = sorted((ROOT / "tests" / "data" / "rules").glob("*.spvasm"))


@pytest.fixture
def forking(monkeypatch):
    """Forks counted: [number made]."""
    monkeypatch.setattr(parallel, "enabled", True)
    monkeypatch.setattr(parallel, "FROM_INSTRUCTIONS", 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(parallel, "_load", lambda: 0.0)  # a machine with a core to spare
    made = [0]
    fork = os.fork

    def counted():
        made[0] += 1
        return fork()

    monkeypatch.setattr(os, "fork", counted)
    return made


def _text(d) -> tuple:
    return (d.line, d.start, d.end, d.code, d.message, d.related, d.fixes, d.source)


def _serial(text: str, env: str | None) -> list[tuple]:
    return [_text(d) for d in analyze(Document(text), env).diagnostics]


@pytest.mark.parametrize("env", [None, "vulkan1.3"])
def test_forked_checks_say_what_one_process_says(forking, env):
    texts = [p.read_text(encoding="utf-8") for p in RULES] + [generated(3000)]
    for text in texts:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(parallel, "enabled", False)
            want = _serial(text, env)
        a = analyze(Document(text), env)
        assert [_text(d) for d in a.diagnostics] == want
    assert forking[0] == len(texts)


def test_the_childs_families_facts_are_primed_here(forking):
    # A keystroke's re-check of ids reads idkinds.kinds first: computed here by the check of no line
    # (a family that is not line-wise, as entry, by a check of the smallest function).
    doc = Document(generated(3000))
    m = build(doc, load(), (1, 6))
    assert not any(slot[0] is kinds.__wrapped__ for slot in m.facts)
    theirs = [f.name for f in FAMILIES if f.name not in parallel.HERE]
    assert "ids" in theirs and "entry" in theirs
    _prime(m, theirs)
    assert any(slot[0] is kinds.__wrapped__ for slot in m.facts)


def test_a_keystroke_after_a_forked_open_says_what_a_fresh_check_says(forking):
    doc = Document(generated(3000))
    a = analyze(doc, None)
    assert forking[0] == 1
    n = next(i for i, t in enumerate(doc.texts) if "OpIAdd" in t)
    col = doc.texts[n].index("OpIAdd") + len("OpIAdd")
    doc.replace((n, col + 1), (n, col + 2), "%nope")  # an undefined id: ids and its did-you-mean
    a = analyze(doc, None, a)
    assert a.rechecked is not None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "enabled", False)
        fresh = analyze(Document(doc.text), None)
    assert [_text(d) for d in a.diagnostics] == [_text(d) for d in fresh.diagnostics]
    assert any(d.code == "id.undefined" for d in a.diagnostics)


def test_small_modules_busy_cores_and_disabled_runs_stay_in_this_process(forking, monkeypatch):
    text = generated(3000)
    monkeypatch.setattr(parallel, "FROM_INSTRUCTIONS", 10**9)
    analyze(Document(text), None)
    monkeypatch.setattr(parallel, "FROM_INSTRUCTIONS", 0)
    monkeypatch.setattr(parallel, "_load", lambda: 1.6)  # both cores about busy
    analyze(Document(text), None)
    monkeypatch.setattr(parallel, "_load", lambda: 0.0)
    monkeypatch.setattr(parallel, "FROM_INSTRUCTIONS", 0)
    monkeypatch.setattr(parallel, "enabled", False)
    analyze(Document(text), None)
    assert forking[0] == 0


def _failing(how: str):
    parent = os.getpid()

    def run(m, names):
        if os.getpid() != parent:
            if how == "raise":
                raise RuntimeError("a family failed in the child")
            if how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if how == "garbage":
                os._exit(0)  # nothing sent: an empty answer
            if how == "hang":
                time.sleep(3600)  # as a child stuck on a lock another thread held at the fork
        return _run_whole(m, names)

    return run


@pytest.mark.parametrize("how", ["raise", "kill", "garbage", "hang"])
def test_whatever_befalls_the_child_the_result_is_the_serial_one(forking, monkeypatch, how):
    monkeypatch.setattr(parallel, "WAIT_AT_LEAST", 1.0)
    text = (ROOT / "tests" / "data" / "rules" / "generic-fail.spvasm").read_text(encoding="utf-8")
    want = analyze(Document(text), None)
    m = want.module
    got = parallel.run_split(m, list(want.by_family), _failing(how))
    assert {n: [_text(d) for d in ds] for n, ds in got.items()} == {
        n: [_text(d) for d in ds] for n, ds in want.by_family.items()
    }
    assert list(got) == list(want.by_family)
    # Both shares had diagnostics: what the failed child would have given came from this process.
    assert any(ds for n, ds in want.by_family.items() if n not in parallel.HERE)
    assert any(ds for n, ds in want.by_family.items() if n in parallel.HERE)


@pytest.mark.skipif(not st.available(), reason="needs SPIRV-Tools' library")
def test_forking_while_the_validator_runs_in_a_thread(forking):
    """The server's validator runs in a worker thread, inside the C library, when a document is
    opened: forks made meanwhile neither hang nor change a result."""
    words = st.assemble(call_chain(3000), "vulkan1.3")
    assert not isinstance(words, st.Failure)
    stop = threading.Event()
    runs = []

    def validate():
        while not stop.is_set():
            runs.append(st.validate(words, "vulkan1.3"))

    worker = threading.Thread(target=validate)
    worker.start()
    try:
        text = generated(3000)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(parallel, "enabled", False)
            want = _serial(text, "vulkan1.3")
        for _ in range(10):
            assert [_text(d) for d in analyze(Document(text), "vulkan1.3").diagnostics] == want
    finally:
        stop.set()
        worker.join()
    assert runs and all(r is not None and "Selection must be structured" in r.message for r in runs)


def test_facts_the_child_computed_first_are_primed_after_publishing(forking, monkeypatch):
    """When the child answers before this process is done, priming waits for settle() (the server
    calls it once the diagnostics are out), so a keystroke still finds the facts computed."""
    monkeypatch.setattr(parallel.select, "select", lambda r, w, x, t: (r, [], []))  # "the child answered"
    doc = Document(generated(3000))
    m = build(doc, load(), (1, 6))
    parallel.run_split(m, ["syntax", "ids", "coopmat"], _run_whole, _prime)
    assert not any(slot[0] is kinds.__wrapped__ for slot in m.facts)
    parallel.settle()
    assert any(slot[0] is kinds.__wrapped__ for slot in m.facts)
    parallel.settle()  # nothing left: a no-op


def test_priming_stops_at_the_childs_answer_and_settle_does_the_rest(forking, monkeypatch):
    """Facts are primed family by family while the child works; those left when it answers wait for
    settle(), so its answer is not kept waiting for them."""
    answers = iter([False])  # the child is still at work once, then has answered
    monkeypatch.setattr(parallel._Forked, "ready", lambda self: next(answers, True))
    primed: list[list[str]] = []

    def prime(m: Module, names: list[str]) -> None:
        primed.append(names)
        _prime(m, names)

    m = build(Document(generated(3000)), load(), (1, 6))
    parallel.run_split(m, ["ids", "syntax", "coopmat"], _run_whole, prime)
    assert primed == [["ids"]]
    assert any(slot[0] is kinds.__wrapped__ for slot in m.facts)
    parallel.settle()
    assert primed == [["ids"], ["syntax"]]


def _children_left() -> list[int]:
    """This process' children that have not been reaped (zombies included)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            found.append(int(status.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_failure_in_this_process_stops_the_child_and_does_not_wait_for_it(forking, tmp_path):
    """This process's families fail while the child works: the failure is raised at once and the
    child stopped and reaped (it would otherwise be waited for until it answers: a child stuck on a
    lock another thread held at the fork, never)."""
    done = tmp_path / "child-done"
    parent = os.getpid()

    def run(m, names):
        if os.getpid() != parent:
            time.sleep(30)
            done.touch()
            return {}
        raise RuntimeError("a family failed here")

    m = build(Document(generated(300)), load(), (1, 6))
    before = set(_children_left())
    with pytest.raises(RuntimeError, match="failed here"):
        parallel.run_split(m, ["syntax", "ids"], run)
    assert not done.exists()  # stopped before it finished
    assert set(_children_left()) == before  # and reaped


def test_a_module_dropped_before_it_was_published_is_not_primed(forking, monkeypatch):
    """An open closed while it was built off the loop (server.sync._opened): its module is
    forgotten, not kept (the compiled build holds it strongly) until a later settle() primes it."""
    monkeypatch.setattr(parallel.select, "select", lambda r, w, x, t: (r, [], []))  # "the child answered"
    a, b = (build(Document(generated(3000)), load(), (1, 6)) for _ in range(2))
    for m in (a, b):
        parallel.run_split(m, ["syntax", "ids", "coopmat"], _run_whole, _prime)
    parallel.forget(a)
    parallel.settle()
    assert not any(slot[0] is kinds.__wrapped__ for slot in a.facts)
    assert any(slot[0] is kinds.__wrapped__ for slot in b.facts)


def test_a_split_check_computes_here_the_uniformity_a_keystroke_reads(forking):
    """A keystroke's re-check reads every function's uniformity analysis: a split check leaves it
    computed in this process as a serial one does, so the first keystroke does not wait for the
    whole module's analysis (the families that read it are kept in this process: parallel.HERE)."""
    text = generated(3000)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "enabled", False)
        serial = analyze(Document(text), None).module
    want = {f.id for f in serial.functions if uniformity.cached(serial, f) is not None}
    m = analyze(Document(text), None).module
    assert forking[0] == 1
    assert want and {f.id for f in m.functions if uniformity.cached(m, f) is not None} == want
