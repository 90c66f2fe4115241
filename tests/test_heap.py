"""Documents and models are built with the cycle collector paused and then frozen
(spvls/syntax/heap.py); sound because they hold no reference cycles (tests/unit/test_cycles.py)."""

import gc
import sys
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
