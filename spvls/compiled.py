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
# for the GIL asks the holder to let go only when a whole interval of waiting passed with no other
# thread taking it; an offer the holder takes back at once wakes the waiter, which finds the GIL
# held and starts a whole new wait. Offers every interval or more often would keep it waiting.
_SLICE = 2 * sys.getswitchinterval()
_next_offer = 0.0  # when the next offer is due (any worker thread's)
_MAIN = threading.main_thread().ident  # the event loop's: the thread the others make way for


def let_others_run() -> None:
    """A point in a long stretch of work where another thread may take the GIL. The interpreter
    offers it every few milliseconds of bytecode; compiled code runs none, so without these points a
    worker thread's large open would hold the event loop's thread (every request) until it returned.
    Called from compiled code, this function's own frame is such a point while this module stays
    interpreted; sched_yield, which lets go of the GIL (a thread that has asked for it then runs
    first), is what holds if it is compiled too. Cheap enough for every function of a module: a
    clock read, and an offer once per slice. The main thread (the server's event loop) makes no
    offer: its work has the others wait, not the other way round."""
    global _next_offer
    if threading.get_ident() == _MAIN:
        return
    now = monotonic()
    if now >= _next_offer:
        _next_offer = now + _SLICE  # shared by every thread: a race costs one offer more or less
        _yield()


__all__ = ["let_others_run", "mypyc_attr"]
