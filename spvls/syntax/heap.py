"""The cycle collector around big builds.

A 100k-line document and its model are over a million small objects; each time the collector
ran over them while they were made it cost more than making them (about 60% of an open). They hold
no reference cycles (tests/unit/test_cycles.py), so reference counting frees them: the collector is
paused while they are built, and what was built is then frozen, so later collections skip it. The
module facts a whole check builds (each function's CFG and uniformity) are built so too
(checks.analyze), and what a process holds for its life (its imports, the grammar, the warm-up's
tables) is frozen once it is built (`keep`).

gc.freeze() freezes every live object, not only the build's: a cycle something else held at that
moment (a request's task, the validator thread's ctypes buffer) would never be collected once it
died, and a server's memory grew with each rebuild. So every FULL_EVERY builds the frozen objects go
back to the collector for one full collection (a fraction of what a build costs).

A build of fewer than BIG lines is left to the collector as it is: pausing and freezing pay off only
for big builds, while a full collection every FULL_EVERY small ones cost more than the builds (a
process holding a big heap and building many small documents spent 60% of its CPU in it: the
property tests, 27.1 -> 10.2 s of CPU).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FULL_EVERY = 16
BIG = 2_000  # lines

_builds = 0
# How deep in builds each thread is: a build inside another of the same thread is part of it, but a
# large open built off the server's loop is its own build while the loop builds a small one.
_nesting = threading.local()


def keep() -> None:
    """What is alive now lives as long as the process (modules, classes, the grammar, the parser's
    tables, each family's first-run tables): frozen, so no collection traverses it again. In a
    fresh server these are most tracked objects, and the first big build's young collection (in
    `building`) traversed them all."""
    gc.freeze()


@contextmanager
def building(lines: int) -> Iterator[None]:
    """Pause the cycle collector while a document or model of `lines` lines is built; freeze what
    exists after. A small build only counts towards the next full collection. A build inside
    another (a model inside a whole check) is part of it: counted, paused and frozen once."""
    global _builds
    depth = getattr(_nesting, "depth", 0)
    if depth > 0:
        yield
        return
    _builds += 1
    if _builds % FULL_EVERY == 0 and gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
    elif lines >= BIG:
        gc.collect(1)  # young cyclic garbage made before: gone, not frozen with the rest
    big = lines >= BIG
    was = gc.isenabled()
    if big:
        gc.disable()
    _nesting.depth = 1
    try:
        yield
    finally:
        _nesting.depth = 0
        if big:
            if was:
                gc.enable()
            gc.freeze()
