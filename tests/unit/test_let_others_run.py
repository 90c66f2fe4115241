"""compiled.let_others_run: a worker thread whose work holds the GIL from one C call to the next (as
compiled code does: it never reaches the interpreter's switch) lets the main thread run where it
calls it, the main thread's own calls are nothing, and each stage of a large open's work calls it.
Order of events and counts, never timings."""

from __future__ import annotations

import collections
import functools
import operator
import random
import sys
import threading
import time
from pathlib import Path

from spvls import compiled
from spvls.checks import _families, _run_whole, parallel
from spvls.model import uniformity
from spvls.model.cfg import cfg_of
from spvls.model.module import build
from spvls.spec.grammar import load
from spvls.syntax.document import Document

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

_PARTS = 12


def _ticks_during(work: list) -> int:
    """How often the main thread ran (woke from a short sleep) while a worker thread called each of
    `work` in turn from C: map and deque call them without a Python frame between them."""
    started, done = threading.Event(), threading.Event()
    ticks = 0

    def worker() -> None:
        started.set()
        collections.deque(map(operator.call, work), maxlen=0)
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    while not done.is_set():
        time.sleep(0.001)
        ticks += not done.is_set()
    t.join()
    return ticks


def _hold() -> functools.partial:
    """A C call that holds the GIL a while: sorting a shuffled list of floats."""
    rng = random.Random(7)
    return functools.partial(sorted, [rng.random() for _ in range(100_000)])


def test_a_worker_offering_the_gil_between_parts_lets_the_main_thread_run():
    """The offer itself (let_others_run's call is a Python frame, where the interpreter would switch
    anyway; compiled code's call to it need not be). A short switch interval: a part holds the GIL
    longer than it on any machine, so the main thread has asked for it by each offer."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        _offers_are_taken()
    finally:
        sys.setswitchinterval(interval)


def _offers_are_taken() -> None:
    hold = _hold()
    # The control: no offers, and the main thread runs at most as the worker starts and ends.
    assert _ticks_during([hold] * _PARTS) <= 2
    offering = [part for _ in range(_PARTS) for part in (hold, compiled._yield, hold)]
    assert _ticks_during(offering) >= _PARTS // 2


def test_on_the_main_thread_it_offers_nothing(monkeypatch):
    offered = []
    monkeypatch.setattr(compiled, "_yield", lambda: offered.append(1))
    monkeypatch.setattr(compiled, "_next_offer", 0.0)
    compiled.let_others_run()
    assert offered == []
    t = threading.Thread(target=compiled.let_others_run)
    t.start()
    t.join()
    assert offered == [1]


def test_a_large_open_offers_in_its_parse_model_build_cfgs_analyses_and_families(monkeypatch):
    """Each stage of a large open's work, in a worker thread as the server runs it, offers the GIL
    (an offer at every call here: the slice set to 0)."""
    offers: list[str] = []
    stage = ["none"]
    monkeypatch.setattr(compiled, "_SLICE", 0.0)
    monkeypatch.setattr(compiled, "_yield", lambda: offers.append(stage[0]))
    monkeypatch.setattr(parallel, "enabled", False)  # every family here, none in a forked child
    text = module(3_000)
    names = list(_families())
    functions: list[int] = []

    def open_it() -> None:
        stage[0] = "parse"
        doc = Document(text)
        stage[0] = "model"
        m = build(doc, load(), (1, 6))
        functions.append(len(m.functions))
        stage[0] = "cfg"
        for fn in m.functions:
            cfg_of(m, fn)
        stage[0] = "analysis"
        uniformity.of_module(m)
        stage[0] = "families"  # (the CFGs and analyses they read made above)
        _run_whole(m, names)

    t = threading.Thread(target=open_it)
    t.start()
    t.join()
    counts = collections.Counter(offers)
    assert counts["parse"] >= 2 and counts["model"] >= 2, counts  # 3,000 lines: 1,024 at a time
    assert counts["cfg"] == counts["analysis"] == functions[0], counts
    assert counts["families"] == len(names), counts
