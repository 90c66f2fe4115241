"""A whole-module check on two cores: a child process runs the families this one does not keep (HERE)
while this one runs those, and sends back their diagnostics (plain data, a few bytes for a valid
module).

A child is forked on the model just built (`run_split`) and shares its pages. (A child forked before
the parse, which parsed and built a model of its own, saved no more at 100k lines and less at 10k,
for the memory of a second model; a helper process that kept a second parse of each opened document
saved too little for the memory it held: see bench/README.md.)

Only where `os.fork` exists, with more than one core and the load average leaving about one idle,
for modules of at least FROM_INSTRUCTIONS instructions (below that, what the other process saves
does not pay for the fork, the copies and the messages), and only when `enabled` (the server turns
it on; the CLI's jobs already fill the cores). Whatever goes wrong in the other process (an
exception, a signal, no answer, too slow), this process runs those families itself: the result is
always the serial one.

The child runs Python code and writes to its own pipe, and leaves with `os._exit`. It
touches nothing the server's other threads may hold locked at the fork: the validation thread's
pipe to the validator process, the stdin reader's buffer, stdout, the event loop.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import select
import signal
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from typing import NoReturn

from ..model.module import Module
from .diagnostic import Diagnostic

enabled = False
FROM_INSTRUCTIONS = 30_000
# The families this process keeps; the child runs all others. Kept here: those that read the
# uniformity analysis, which a keystroke's re-check reads for every function, so it must be computed
# here, and which costs more than the child's whole share would save if the child computed it too
# (the first keystrokes of a large module would wait for it); `structure`, which reads the CFGs that
# analysis is built on (the child would build them again, and its share, with the copy-on-write
# faults of every page it touches, would come last); and `layout`, small.
HERE = ("coopmat", "uniformity", "reconvergence", "structure", "layout")
# How long the child may take: this many times what this process took for its own share, and at
# least WAIT_AT_LEAST seconds (its share costs about as much: see HERE).
WAIT_FACTOR, WAIT_AT_LEAST = 4.0, 5.0
# Fork only while the load average leaves about a core idle (see _load).
IDLE_CORE = 0.5

Run = Callable[[Module, list[str]], dict[str, list[Diagnostic]]]
Prime = Callable[[Module, list[str]], None]
_forking = threading.Lock()  # see _fork
_unprimed: list[tuple[Callable[[], Module | None], list[str], Prime]] = []  # left for settle()


def _held(m: Module) -> Callable[[], Module | None]:
    """A weak reference to m; a strong one where the compiled build's Module takes none (held only
    until the server's next settle(), after its publication)."""
    try:
        return weakref.ref(m)
    except TypeError:
        return lambda: m


def settle() -> None:
    """Prime what run_split left unprimed (modules since dropped are skipped)."""
    while _unprimed:
        ref, names, prime = _unprimed.pop()
        m = ref()
        if m is not None:
            prime(m, names)


def forget(m: Module) -> None:
    """Leave m unprimed: it was dropped before it was published (settle() would hold it till then)."""
    _unprimed[:] = [entry for entry in _unprimed if entry[0]() is not m]


def wanted(m: Module) -> bool:
    return enabled and hasattr(os, "fork") and len(m.insts) >= FROM_INSTRUCTIONS and _idle_core()


def _idle_core() -> bool:
    cores = usable_cores()
    return cores > 1 and _load() < cores - IDLE_CORE


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (taskset, a container's cpuset) and its
    cgroup's CPU quota (`docker --cpus`), not the machine's count, which a second process on one
    usable core would only take turns with."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max", encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = min(n, max(1, int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return n


def _load() -> float:
    """The 1-minute load average (0 where the system gives none). With every core busy the child
    only takes turns with this process, and its page copies make the check slower than a serial
    one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def run_split(m: Module, names: list[str], run: Run, prime: Prime | None = None) -> dict[str, list[Diagnostic]]:
    """`run(m, names)`, with the families among `names` not kept HERE run by a forked child. While this
    process would otherwise wait for the child, `prime(m, families)` computes here the module facts
    the child's families computed there, which the next keystroke's re-check would otherwise pay;
    those left when the child answered, `settle()` does later (the server: once it has published)."""
    theirs = [n for n in names if n not in HERE]
    child = _fork(lambda: run(m, theirs))
    if child is None:
        return run(m, names)
    return _finish(child, m, names, run, prime)


def _fork(work: Callable[[], dict[str, list[Diagnostic]]]) -> _Forked | None:
    """A child that sends back work()'s result, pickled, and exits; None if it cannot be forked.
    One fork at a time: a child forked while another thread's pipe is open would hold its write
    end, and that thread would read no end of its answer until this child exits."""
    with _forking:
        try:
            r, w = os.pipe()
        except OSError:
            return None
        try:
            with warnings.catch_warnings():  # 3.12 warns of forking with threads: see the docstring
                warnings.simplefilter("ignore", DeprecationWarning)
                pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return None
        if pid != 0:
            os.close(w)
            return _Forked(pid, r)
    _serve(r, w, work)  # the child


def _serve(r: int, w: int, work: Callable[[], dict[str, list[Diagnostic]]]) -> NoReturn:
    """In the child: work()'s result written to `w`, then exit."""
    code = 1
    try:
        os.close(r)
        gc.disable()  # a collection would touch (and so copy) every page the model is on
        data = pickle.dumps(work(), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(w, "wb") as f:
            f.write(data)
        code = 0
    finally:
        os._exit(code)


class _Forked:
    """run_split's child: it answers on its pipe and exits."""

    def __init__(self, pid: int, r: int) -> None:
        self.pid, self.r = pid, r
        self.started = time.monotonic()

    def ready(self) -> bool:
        return bool(select.select([self.r], [], [], 0)[0])

    def answer(self, entered: float, spent: float) -> object:
        """The child's answer, or None (and the child killed) when it is not done by a deadline:
        WAIT_FACTOR times what this process took for its share, and at least WAIT_AT_LEAST seconds."""
        now = time.monotonic()
        data = _answer(self.r, self.pid, self.started + max(WAIT_AT_LEAST, WAIT_FACTOR * (now - self.started)))
        try:
            return pickle.loads(data) if data else None
        except Exception:
            return None

    def close(self) -> None:
        os.close(self.r)
        _reap(self.pid)


def _finish(child: _Forked, m: Module, names: list[str], run: Run, prime: Prime | None) -> dict[str, list[Diagnostic]]:
    """`run(m, names)` with the child's families' diagnostics from `child`, or run here when it gives none."""
    theirs = [n for n in names if n not in HERE]
    mine = [n for n in names if n in HERE]
    got = None
    try:
        entered = time.monotonic()
        out = run(m, mine)
        spent = time.monotonic() - entered
        if prime is not None:  # family by family, while the child works: its answer is not kept waiting
            left = list(theirs)
            while left and not child.ready():
                prime(m, [left.pop(0)])
            if left:
                _unprimed.append((_held(m), left, prime))
        got = child.answer(entered, spent)
    except BaseException:
        _kill(child.pid)  # this process's share failed: the child's answer is not waited for
        raise
    finally:
        child.close()
    if not isinstance(got, dict) or sorted(got) != sorted(theirs):
        got = run(m, theirs)
    out.update(got)
    return {n: out[n] for n in names}


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _reap(pid: int) -> None:
    # Reaped by someone else (ChildProcessError): its answer, complete or not, is all that counts.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _answer(r: int, pid: int, deadline: float) -> bytes:
    """All the child sends, or b"" (and the child killed) when it is not done by the deadline: a
    child stuck on a lock another thread held at the fork must not stop the server."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            _kill(pid)
            return b""
        chunk = os.read(r, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
