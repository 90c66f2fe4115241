"""compiled.let_others_run: a worker thread whose work holds the GIL from one C call to the next (as
compiled code does: it never reaches the interpreter's switch) lets the main thread run where it
calls it, and the main thread's own calls are nothing. Order of events, never timings."""

from __future__ import annotations

import collections
import functools
import operator
import random
import sys
import threading
import time

from spvls import compiled

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
