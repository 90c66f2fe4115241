"""The cycle collector around big builds.

A 100k-line document and its model are over a million small objects; each time the collector
ran over them while they were made it cost more than making them (about 60% of an open). They hold
no reference cycles (tests/unit/test_cycles.py), so reference counting frees them: the collector is
paused while they are built, and what was built is then frozen, so later collections skip it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0


@contextmanager
def building() -> Iterator[None]:
    """Pause the cycle collector while a document or model is built; freeze what exists after."""
    global _depth
    if _depth == 0:
        gc.collect(1)  # young cyclic garbage made before: gone, not frozen with the rest
    was = gc.isenabled()
    gc.disable()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if was:
            gc.enable()
        if _depth == 0:
            gc.freeze()
