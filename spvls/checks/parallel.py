"""A whole-module check on two cores: a forked child runs some families while this process runs the
others, and sends back its diagnostics (plain data, a few bytes for a valid module).

Only where `os.fork` exists, with more than one core and the load average leaving about one idle,
for modules of at least FROM_INSTRUCTIONS instructions (below that, the fork and the copy-on-write page faults it causes cost what the child
saves), and only when `enabled` (the server turns it on; the CLI's jobs already fill the cores).
Whatever goes wrong in the child (an exception, a signal, no answer), this process runs those
families itself: the result is always the serial one.

The child holds the model only as pages shared with this process; it runs Python code and writes
to its pipe, takes no lock another thread may hold (the validator's worker runs inside the C
library, whose allocations glibc's fork handlers keep consistent), and leaves with `os._exit`,
so nothing it inherited (stdout buffers, the event loop) is touched.
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import time
import warnings
import weakref
from collections.abc import Callable

from ..model.module import Module
from .diagnostic import Diagnostic

enabled = False
FROM_INSTRUCTIONS = 30_000
# The families the child runs: about half the CPU of a whole check at 100k lines (bench/families.py),
# and none whose module facts a keystroke's re-check reads first (those stay computed here).
CHILD = ("coopmat", "ids")
# How long the child may take: this many times what this process took for its own share, and at
# least WAIT_AT_LEAST seconds (its share costs about as much: see CHILD).
WAIT_FACTOR, WAIT_AT_LEAST = 4.0, 5.0
# Fork only while the load average leaves about a core idle (see _load).
IDLE_CORE = 0.5

Run = Callable[[Module, list[str]], dict[str, list[Diagnostic]]]
Prime = Callable[[Module, list[str]], None]
_unprimed: list[tuple[weakref.ref[Module], list[str], Prime]] = []  # left for settle()


def settle() -> None:
    """Prime what run_split left unprimed (modules since dropped are skipped)."""
    while _unprimed:
        ref, names, prime = _unprimed.pop()
        m = ref()
        if m is not None:
            prime(m, names)


def wanted(m: Module) -> bool:
    cores = os.cpu_count() or 1
    return (
        enabled
        and hasattr(os, "fork")
        and cores > 1
        and len(m.insts) >= FROM_INSTRUCTIONS
        and _load() < cores - IDLE_CORE
    )


def _load() -> float:
    """The 1-minute load average (0 where the system gives none). With every core busy the child
    only takes turns with this process, and its page copies make the check slower: at 100k lines
    under a load of ~2.8 on 2 cores, 890 ms forked against 735 ms serial (wall, model included)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def run_split(m: Module, names: list[str], run: Run, prime: Prime | None = None) -> dict[str, list[Diagnostic]]:
    """`run(m, names)`, with the CHILD families among `names` run by a forked child. While this
    process would otherwise wait for the child, `prime(m, families)` computes here the module facts
    the child's families computed there, which the next keystroke's re-check would otherwise pay;
    when the child answered first, `settle()` does it later (the server: once it has published)."""
    theirs = [n for n in names if n in CHILD]
    mine = [n for n in names if n not in CHILD]
    r, w = os.pipe()
    try:
        with warnings.catch_warnings():  # 3.12 warns of forking with threads: see the docstring
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return run(m, names)
    if pid == 0:  # the child
        code = 1
        try:
            os.close(r)
            gc.disable()  # a collection would touch (and so copy) every page the model is on
            data = pickle.dumps(run(m, theirs), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    try:
        started = time.monotonic()
        out = run(m, mine)
        if prime is not None:
            if select.select([r], [], [], 0)[0]:
                _unprimed.append((weakref.ref(m), theirs, prime))
            else:
                prime(m, theirs)
        data = _answer(r, pid, started + max(WAIT_AT_LEAST, WAIT_FACTOR * (time.monotonic() - started)))
    finally:
        os.close(r)
        try:
            os.waitpid(pid, 0)  # reaped whatever happens here
        except ChildProcessError:
            pass  # reaped by someone else: its answer (complete or not) is all that counts
    try:
        got = pickle.loads(data) if data else None
    except Exception:
        got = None
    if not isinstance(got, dict) or sorted(got) != sorted(theirs):
        got = run(m, theirs)
    out.update(got)
    return {n: out[n] for n in names}


def _answer(r: int, pid: int, deadline: float) -> bytes:
    """All the child sends, or b"" (and the child killed) when it is not done by the deadline: a
    child stuck on a lock another thread held at the fork must not stop the server."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return b""
        chunk = os.read(r, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
