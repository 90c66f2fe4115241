"""What the optional compiled build (mypyc, see setup.py) must be told about a class, and where its
long loops must let other threads run; nothing to a pure-Python install, which needs no
mypy_extensions."""

from __future__ import annotations

import os
import sys
import threading
from time import monotonic, sleep
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:

        def mypyc_attr(*_names: str, **_attrs: Any) -> Any:
            return lambda cls: cls


_yield = getattr(os, "sched_yield", lambda: sleep(0))  # each lets go of the GIL (sleep(0) costs more)

# Seconds of work between two offers of the GIL: more than the switch interval. A thread waiting
# for the GIL asks for it only when its wait of one interval saw no other take it; an offer taken
# back at once counts as taken, so offers more often than that would keep it from ever asking.
_SLICE = 2 * sys.getswitchinterval()
_next_offer = 0.0
_MAIN = threading.main_thread().ident  # the event loop's: the thread the others make way for


def let_others_run() -> None:
    """A point in a long stretch of work where another thread may take the GIL. The interpreter
    offers it every few milliseconds of bytecode; compiled code runs none, so without these points a
    worker thread's large open would hold the event loop's thread (every request) until it returned.
    Cheap enough for every function of a module: a clock read, and once per slice sched_yield, which
    lets go of the GIL (a thread that has asked for it then runs first). Nothing on the main thread
    (the server's event loop): a keystroke's work is not held up for a worker's."""
    global _next_offer
    if threading.get_ident() == _MAIN:
        return
    now = monotonic()
    if now >= _next_offer:
        _next_offer = now + _SLICE  # shared by every thread: a race costs one offer more or less
        _yield()


__all__ = ["let_others_run", "mypyc_attr"]
