"""Documents and models are built with the cycle collector paused and then frozen
(spvls/syntax/heap.py); sound because they hold no reference cycles (tests/unit/test_cycles.py)."""

import gc
import subprocess
import sys
import threading
import weakref
from pathlib import Path

from spvls.checks import analyze
from spvls.syntax import heap
from spvls.syntax.document import Document

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from generate import module


def test_a_rebuilt_model_frees_the_frozen_one(monkeypatch):
    # The count of builds starts afresh: had an earlier test left it one short of a full collection
    # (heap.FULL_EVERY), the unfreeze there would make the counts below depend on the test order.
    monkeypatch.setattr(heap, "_builds", 0)
    text = module(3000)
    gc.freeze()
    before = gc.get_freeze_count()
    d = Document(text)
    a = analyze(d, "vulkan1.3")
    one = gc.get_freeze_count() - before
    assert one > 5 * len(d.lines)  # the document and its model were frozen
    for _ in range(3):
        d.set_text(text)
        a = analyze(d, "vulkan1.3", a)
    # Each rebuild froze a new document and model; reference counting freed the old ones.
    assert gc.get_freeze_count() - before < one * 1.5


def test_a_cycle_alive_during_a_build_is_collected_once_it_dies():
    # A build freezes the whole heap: a cycle held elsewhere at that moment (a request's task, the
    # validator thread's buffer) must not outlive its last reference for good.
    class Cycle:
        pass

    c = Cycle()
    c.me = c
    gone = weakref.ref(c)
    Document(module(3000))  # a big build freezes c with everything else
    del c
    for _ in range(heap.FULL_EVERY):
        Document("OpCapability Shader\n")
    assert gone() is None


def test_a_small_build_leaves_the_collector_alone():
    """Below heap.BIG lines nothing is paused or frozen: a full collection every FULL_EVERY small
    builds cost more than the builds, in a process holding a big heap."""
    gc.collect()
    gc.unfreeze()
    d = Document(module(100))
    assert len(d.texts) < heap.BIG and gc.isenabled()
    analyze(d, "vulkan1.3")
    assert gc.get_freeze_count() == 0


def test_the_module_facts_of_a_whole_check_are_frozen_with_the_model(monkeypatch):
    # The families build each function's CFG and uniformity analysis: later collections skip them
    # as they skip the model (gc.get_objects lists no frozen object).
    from spvls.model.cfg import Cfg, cfg_of
    from spvls.model.uniformity import Uniformity, cached

    monkeypatch.setattr(heap, "_builds", 0)
    d = Document(module(3000))
    a = analyze(d, "vulkan1.3")
    # One build for the check, the model's inside it: a full collection comes every FULL_EVERY
    # whole checks (and documents), not every half as many.
    assert heap._builds == 2
    fn = a.module.functions[0]
    assert isinstance(cfg_of(a.module, fn), Cfg) and isinstance(cached(a.module, fn), Uniformity)
    assert not [o for o in gc.get_objects() if isinstance(o, (Cfg, Uniformity))]


def test_the_servers_warm_up_leaves_nothing_for_the_first_collection():
    # What a fresh server imports and warms up lives as long as it: frozen, so the young collection
    # before its first big build (and every collection after) does not traverse it.
    tracked = _printed(
        "import gc; from spvls.server import early;"
        "from spvls.state.warm import warm_checks; warm_checks();"
        "print(len(gc.get_objects(0)) + len(gc.get_objects(1)) + len(gc.get_objects(2)))"
    )
    assert tracked < 100


def test_the_warm_up_starts_with_the_imports_kept():
    # Its own collections (the grammar's unpickling makes tens of thousands of containers) skip them.
    tracked = _printed(
        "import gc; from spvls.server import early; import spvls.state.warm as w; seen = []; real = w.analyze;"
        "w.analyze = lambda *a, **k: (seen.append(len(gc.get_objects())), real(*a, **k))[1];"
        "w.warm_checks(); print(seen[0])"
    )
    assert tracked < 2000


def _printed(code: str) -> int:
    """The number a fresh interpreter running `code` prints."""
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def test_a_big_build_is_its_own_while_another_thread_builds_a_small_one(monkeypatch):
    # A large open is built off the server's loop while the loop may build a small document: the
    # large one is still paused and frozen (each thread nests its own builds).
    monkeypatch.setattr(heap, "_builds", 0)
    held, release = threading.Event(), threading.Event()

    def small() -> None:
        with heap.building(10):
            held.set()
            release.wait(30)

    t = threading.Thread(target=small)
    t.start()
    try:
        assert held.wait(30)
        gc.freeze()
        before = gc.get_freeze_count()
        d = Document(module(3000))
        assert gc.get_freeze_count() - before > len(d.lines)  # each line at least: the document froze
    finally:
        release.set()
        t.join()
