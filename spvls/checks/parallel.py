"""A whole-module check on two cores: another process runs some families (CHILD) while this one
runs the others, and sends back their diagnostics (plain data, a few bytes for a valid module).

Two ways: a document opened is sent, as it arrives, to the helper, a process forked once at the
server's start, which parses, builds and checks it on its own while this process does the same for
the other families (`ahead` in checks, `ask`, `finish`); a whole re-check after an edit forks a
child on the model just built (`run_split`), which shares its pages.

Only where `os.fork` exists, with more than one core and the load average leaving about one idle,
for documents of at least HELPER_FROM_LINES lines or modules of at least FROM_INSTRUCTIONS
instructions (below that, what the other process saves does not pay for the fork, the copies and
the messages), and only when `enabled` (the server turns it on; the CLI's jobs already fill the
cores). Whatever goes wrong in the other process (an exception, a signal, no answer, too slow), this
process runs those families itself: the result is always the serial one.

The child or helper runs Python code and writes to its own pipe, and leaves with `os._exit`. It
touches nothing the server's other threads may hold locked at the fork: the validation thread's
pipe to the validator process, the stdin reader's buffer, stdout, the event loop.
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
import time
import warnings
import weakref
from collections.abc import Callable

from ..binding.spirv_tools import trim
from ..model.module import Module
from .diagnostic import Diagnostic

enabled = False
FROM_INSTRUCTIONS = 30_000
# A document opened with this many lines is checked by the helper too (see start_helper), from the
# moment it arrives.
HELPER_FROM_LINES = 2_000
# The families the child runs: about half the CPU of a whole check at 100k lines (bench/families.py),
# and none whose module facts a keystroke's re-check reads first (those stay computed here).
CHILD = ("coopmat", "ids")
# How long the child may take: this many times what this process took for its own share, and at
# least WAIT_AT_LEAST seconds (its share costs about as much: see CHILD).
WAIT_FACTOR, WAIT_AT_LEAST = 4.0, 5.0
# Fork only while the load average leaves about a core idle (see _load).
IDLE_CORE = 0.5
# The helper parses and builds the document a second time, so it asks for a core about idle: the
# load average below cores - 1. With one other busy process (load ~1) the server, the helper and it
# share two cores, and the server's own share of an open slowed by more than the helper saved
# (10k lines at load ~3.6 over stdio: 127 ms serial, 210 ms with the helper).
HELPER_IDLE = 1.0

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
    return enabled and hasattr(os, "fork") and len(m.insts) >= FROM_INSTRUCTIONS and _idle_core()


def _idle_core(idle: float = IDLE_CORE) -> bool:
    cores = usable_cores()
    return cores > 1 and _load() < cores - idle


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
    return _finish(_Forked(pid, r), m, names, run, prime)


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


def _finish(child, m: Module, names: list[str], run: Run, prime: Prime | None) -> dict[str, list[Diagnostic]]:
    """`run(m, names)` with the CHILD families' diagnostics from `child` (a _Forked or an Asked),
    or run here when it gives none."""
    theirs = [n for n in names if n in CHILD]
    mine = [n for n in names if n not in CHILD]
    got = None
    try:
        entered = time.monotonic()
        out = run(m, mine)
        spent = time.monotonic() - entered
        if prime is not None:
            if child.ready():
                _unprimed.append((weakref.ref(m), theirs, prime))
            else:
                prime(m, theirs)
        got = child.answer(entered, spent)
    finally:
        child.close()
    if not isinstance(got, dict) or sorted(got) != sorted(theirs):
        got = run(m, theirs)
    out.update(got)
    return {n: out[n] for n in names}


# -- the helper: a process forked once, at the server's start, that checks each large document
# opened for CHILD's families on a model of its own, while this process parses and builds its own
# and runs the other families. A child forked at each open would share this process's heap and
# pay (and make this process pay) copy-on-write faults on every page either one writes; a fork
# after the build, on the model's pages, cost each side ~65 ms at 100k lines.

# share(text, env, names, built): the families' diagnostics; built() is called once the model is.
Share = Callable[[str, "str | None", list[str], Callable[[], None]], dict[str, list[Diagnostic]]]


class _Helper:
    def __init__(self, pid: int, to: int, back: int) -> None:
        self.pid, self.to, self.back = pid, to, back
        self.asked = 0  # the number of the last request


_helper: _Helper | None = None
_HEAD = struct.Struct("<Q")  # each message: its length, then its pickle
SEND_WITHIN = 2.0  # seconds for the helper to take a request (an idle helper waits reading)
_PIPE = 1 << 20
_BUILT = "built"  # the helper's word that it has built its model for a request


def start_helper(share: Share, warm: Callable[[], None] | None = None) -> bool:
    """Fork the helper (once per process) where there are two cores; `share(text, env, names)` is
    what it runs for each request, after `warm()` once. Whether a helper runs."""
    global _helper
    if _helper is not None:
        return True
    if not hasattr(os, "fork") or usable_cores() < 2:
        return False
    to_r, to_w = os.pipe()
    back_r, back_w = os.pipe()
    # The helper starts with SIGUSR1 blocked, until its handler is set: a cancel sent that early
    # must not end it (SIGUSR1's default).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            # What exists now is frozen: neither process's collector then writes to the pages they
            # share (each write copies a page). The helper's own pages at rest: 30 -> 23 MB
            # (bench/memory.py, 100k lines).
            gc.freeze()
            pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for fd in (to_r, to_w, back_r, back_w):
            os.close(fd)
        return False
    if pid == 0:
        try:
            os.close(to_w)
            os.close(back_r)
            _serve(to_r, back_w, share, warm)
        finally:
            os._exit(0)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    os.close(to_r)
    os.close(back_w)
    try:  # a 5 MB text passes in 5 writes, not 80 (Linux)
        import fcntl

        fcntl.fcntl(to_w, getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE)
    except (ImportError, OSError):
        pass
    os.set_blocking(to_w, False)  # a pipe is writable with 4 KB free: a blocking 1 MB write could wait forever
    _helper = _Helper(pid, to_w, back_r)
    return True


def stop_helper() -> None:
    """End the helper (a later open checks in this process alone, until start_helper again)."""
    global _helper
    h, _helper = _helper, None
    if h is not None:
        os.close(h.to)
        os.close(h.back)
        _kill(h.pid)
        _reap(h.pid)


class _Cancelled(Exception):
    pass


def _serve(r: int, w: int, share: Share, warm: Callable[[], None] | None) -> None:
    """The helper's loop, until this process closes its end (or exits): it holds no terminal
    and no client's stream, and leaves signals such as Ctrl-C to this process. SIGUSR1 cancels the
    request it works on (a message being written is never cut)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    busy = False

    def cancel(signum, frame) -> None:
        if busy:
            raise _Cancelled

    signal.signal(signal.SIGUSR1, cancel)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    low, high = sorted((r, w))  # the client's socket (TCP) and the like stay this process's alone
    os.closerange(3, low)
    os.closerange(low + 1, high)
    os.closerange(high + 1, 1 << 16)
    if warm is not None:
        warm()

    def send(what: object) -> None:
        nonlocal busy
        was, busy = busy, False
        data = pickle.dumps(what, pickle.HIGHEST_PROTOCOL)
        _write_all(w, _HEAD.pack(len(data)) + data)
        busy = was

    while True:
        request = _read(r)
        if request is None:
            return
        began = time.monotonic()
        number, text, env, names = pickle.loads(request)
        got = None  # this process runs them
        try:
            try:
                busy = True
                got = share(text, env, names, lambda: send((number, (_BUILT, time.monotonic() - began))))
            finally:
                busy = False
        except Exception:  # a cancel that lands in the `finally` too: it must not end the helper's loop
            got = None
        send((number, got))
        del got, text
        gc.collect()  # the cycles the request left (the model's own go with their references)
        trim()  # and the C heap's free pages go back: the helper waits holding little of its own


def _read(r: int) -> bytes | None:
    head = _until(r, _HEAD.size, None)
    return None if head is None else _until(r, _HEAD.unpack(head)[0], None)


def _write_all(w: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(w, view) :]


def helper_wanted(lines: int) -> bool:
    return _helper is not None and enabled and lines >= HELPER_FROM_LINES and _idle_core(HELPER_IDLE)


class Asked:
    """A request to the helper: the CHILD families' check of a text this process is about to
    parse. `finish` takes its answer, or `drop` forgets it."""

    _PENDING = object()

    def __init__(self, helper: _Helper, number: int) -> None:
        self.helper, self.number = helper, number
        self.started = time.monotonic()
        self.built_after: float | None = None  # seconds the helper took to build its model
        self.got: object = self._PENDING

    def ready(self) -> bool:
        self._take(None)
        return self.got is not self._PENDING

    def answer(self, entered: float, spent: float) -> object:
        """The helper's answer to this request, or None: then this process runs the families itself
        (`entered`: when it began its own families, which took `spent`), and the request is
        cancelled. On a busy machine the helper may get less than a core: this process waits only
        when the helper, going at the pace it has shown, will answer sooner than running the
        families here would take, and never longer than that."""
        self._take(None)
        if self.got is self._PENDING:
            now = time.monotonic()
            # Its families cost about what this process's did, relative to the build before them
            # (not even built: far behind).
            built = self.built_after
            pace = 1 + spent / max(entered - self.started, 1e-3)
            if built is None or self.started + built * pace - now > spent or not self._take(now + spent):
                if _helper is self.helper:
                    _kill(self.helper.pid, signal.SIGUSR1)
                return None
        return self.got

    def _take(self, deadline: float | None) -> bool:
        """Read the helper's messages until this request's answer (True), or until none is waiting
        (deadline None) or the deadline passes. Answers to requests dropped before are skipped; a
        broken stream ends the helper."""
        h = self.helper
        while self.got is self._PENDING:
            if _helper is not h:
                return False
            wait = 0.0 if deadline is None else deadline - time.monotonic()
            if wait < 0 or not select.select([h.back], [], [], wait)[0]:
                return False
            head = _until(h.back, _HEAD.size, time.monotonic() + SEND_WITHIN)  # a message begun comes whole
            body = _until(h.back, _HEAD.unpack(head)[0], time.monotonic() + SEND_WITHIN) if head else None
            if body is None:
                stop_helper()
                return False
            number, what = pickle.loads(body)
            if number == self.number:
                if isinstance(what, tuple) and what[0] == _BUILT:
                    self.built_after = what[1]
                else:
                    self.got = what
        return True

    def close(self) -> None:
        pass


def _until(r: int, n: int, deadline: float | None) -> bytes | None:
    """n bytes from r, or None at its end or past the deadline (None: no deadline)."""
    chunks, left = [], n
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([r], [], [], wait)[0]:
                return None
        chunk = os.read(r, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def ask(text: str, env: str | None, names: list[str]) -> Asked | None:
    """Send the helper a text to check for `names` (None when there is no helper, or it does not
    take the request in time: then it is ended)."""
    h = _helper
    if h is None:
        return None
    h.asked += 1
    request = pickle.dumps((h.asked, text, env, names), pickle.HIGHEST_PROTOCOL)
    deadline = time.monotonic() + SEND_WITHIN
    try:
        for data in (memoryview(_HEAD.pack(len(request))), memoryview(request)):
            while data:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                readable, writable, _ = select.select([h.back], [h.to], [], left)
                if readable:
                    # An answer nobody took (its request dropped or given up): the helper may be
                    # blocked writing it, and so not reading this request. It is for an older
                    # request (this one is not sent yet): skipped.
                    head = _until(h.back, _HEAD.size, deadline)
                    if head is None or _until(h.back, _HEAD.unpack(head)[0], deadline) is None:
                        raise TimeoutError
                if writable:
                    try:
                        data = data[os.write(h.to, data[:_PIPE]) :]
                    except BlockingIOError:
                        pass
    except OSError:  # the helper is gone (EPIPE), does not read, or its answers broke off
        stop_helper()
        return None
    return Asked(h, h.asked)


def finish(
    asked: Asked, m: Module, names: list[str], run: Run, prime: Prime | None = None
) -> dict[str, list[Diagnostic]]:
    """`run(m, names)` with the CHILD families' diagnostics from the helper, which checked the same
    text (run here if it gave none); `prime` as in run_split."""
    return _finish(asked, m, names, run, prime)


def drop(asked: Asked) -> None:
    """Forget a request whose answer is no longer wanted (its document changed or closed): it is
    cancelled, and the next request skips its answer."""
    if _helper is asked.helper and asked.got is Asked._PENDING:
        _kill(asked.helper.pid, signal.SIGUSR1)


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)  # reaped whatever happens here
    except ChildProcessError:
        pass  # reaped by someone else: its answer (complete or not) is all that counts


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
