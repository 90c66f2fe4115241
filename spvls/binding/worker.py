"""SPIRV-Tools' assembler + validator in a long-lived child process, so that a run can be stopped.

A validation running in a thread of our own process cannot be stopped, and its memory peak
(tens of MB on a large module, inside the library) would be ours. So the parent sends the text's bytes over a pipe, a slice at a time, to a child
that assembles and validates them through the same binding (`spirv_tools`) and answers with the
first Failure (or None), holding the later ones keep-going validation found (`keepgoing`). The text goes rather than the words so that the assembler's peak and CPU
are the child's too, and a superseded run is stopped wherever it is. The child is started on first
use and kept. It is killed when its CPU-time budget is spent (`Stopped("timeout")`), when the caller
cancels the job (`Stopped("cancelled")`), and if it dies otherwise it is restarted and the job
tried once more before the death is reported (`Stopped("crashed")`). Where no child can start,
validation runs in this process.

Messages, both ways: a 4-byte little-endian length, then that much JSON. A request is followed by
the text's bytes in chunks, each a 4-byte length and its bytes, then an empty chunk.

    python -S -m spvls.binding.worker     # the child
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from . import keepgoing, refused, tools
from . import spirv_tools as st
from .text import utf8

TIMEOUT_EXIT = 75  # the child's exit status when its own watchdog stopped it
START_LIMIT = 60  # seconds a child may take to load the library and say it is ready
WATCH_EVERY = 0.02  # seconds between the child's looks at its CPU time
_LEN = struct.Struct("<I")


@dataclass(frozen=True)
class Stopped:
    """A validation that gave no verdict: 'timeout' (after `seconds` of CPU time), 'cancelled'
    (a newer job superseded it), or 'crashed' (the child died twice; `detail` says how)."""

    reason: str
    seconds: float = 0.0
    detail: str = ""


def wall_limit(budget: float) -> float:
    """The parent's own limit, in wall time, for a child that stops counting CPU time (stopped,
    starved, or stuck): generous, since a loaded machine stretches wall time several times."""
    return 4 * budget + 10


# ---- the child -------------------------------------------------------------------------------


def _die_with_parent(every: float = 0.2) -> None:
    """Exit once the parent is gone, even mid-validation (else the child would finish its run
    first, then read EOF). A thread that watches the parent id, rather than Linux's
    PR_SET_PDEATHSIG, which fires when the parent *thread* that started the child ends."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _read(stream: IO[bytes], n: int) -> bytes | None:
    data = stream.read(n)
    return data if data is not None and len(data) == n else None


def _send(stream: IO[bytes], obj: Any) -> None:
    body = json.dumps(obj).encode()
    stream.write(_LEN.pack(len(body)) + body)
    stream.flush()


class _Deadline:
    """Calls `expire()` once `clock()` passes the armed deadline. One thread for the owner's life (a
    thread started per job cost more than a small job's validation), started on the first `arm`.
    `expire` runs under the lock, so the job cannot end and the next one be armed meanwhile; the
    lock is never taken while a lock `expire` takes is held. `every`: the longest wait between looks,
    for a clock no wait can follow (CPU time)."""

    def __init__(self, clock: Callable[[], float], expire: Callable[[], object], every: float | None = None) -> None:
        self._clock, self._expire, self._every = clock, expire, every
        self._cv = threading.Condition()
        self._at: float | None = None  # the armed deadline, on `clock`
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> None:
        with self._cv:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True)
                self._thread.start()
            self._at = self._clock() + seconds
            self._cv.notify()

    def disarm(self) -> None:
        with self._cv:
            self._at = None

    def _run(self) -> None:
        with self._cv:
            while True:
                if self._at is None:
                    self._cv.wait()
                    continue
                left = self._at - self._clock()
                if left <= 0:
                    self._at = None
                    self._expire()
                    continue
                self._cv.wait(left if self._every is None else min(left, self._every))


# The share of the CPU budget keep-going rounds may use: the first error is never lost to them.
KEEP_GOING_SHARE = 0.6


def check(
    data: bytes | list[bytes], env: str, options: st.ValidatorOptions, budget: float | None = None
) -> tuple[str, st.Failure | None]:
    """Assemble, then validate: ("as", the assembler's Failure) or ("val", the validator's or None),
    with the later errors keep-going finds (options.keep_going) in its `later`, within
    KEEP_GOING_SHARE of the budget (seconds of CPU time; None: the options' timeout).
    data: the text's bytes, or a list holding them that is emptied as they are read, so that the
    text is not held through the validation, the child's peak."""
    start = time.process_time()
    text = data if isinstance(data, bytes) else data.pop()
    words = st.assemble_bytes(text, env, preserve_numeric_ids=False)
    keep = options.keep_going
    once = replace(options, keep_going=None)
    limit = budget or options.timeout or st.DEFAULT_TIMEOUT
    if isinstance(words, st.Failure):
        if keep is None:
            return "as", words
        past = refused.later_failures(
            text,
            words,
            lambda data: st.assemble_bytes(data, env, preserve_numeric_ids=False),
            lambda w: st.validate(w, env, once),
            keep,
            start + KEEP_GOING_SHARE * limit,
        )
        return "as", replace(words, later=tuple(past))
    del text
    fail = st.validate(words, env, options)
    if fail is None or keep is None:
        return "val", fail
    later = keepgoing.later_failures(
        words,
        fail.index or 0,
        fail.message,
        lambda w: st.validate(w, env, once),
        keep,
        start + KEEP_GOING_SHARE * limit,
    )
    return "val", replace(fail, later=tuple(later))


def _job(req: dict, held: list[bytes]) -> dict:
    try:
        stage, fail = check(held, req["env"], st.ValidatorOptions.from_dict(req["options"]), req.get("budget"))
    except ValueError as e:
        return {"value_error": str(e)}
    return {"stage": stage, "failure": None if fail is None else fail.to_dict()}


def _chunks(stream: IO[bytes]) -> bytes | None:
    parts: list[bytes] = []
    while True:
        head = _read(stream, _LEN.size)
        if head is None:
            return None
        n = _LEN.unpack(head)[0]
        if not n:
            return b"".join(parts)
        part = _read(stream, n)
        if part is None:
            return None
        parts.append(part)


def main(inp: IO[bytes] | None = None, out: IO[bytes] | None = None) -> int:
    """The child's loop, on its standard input and output unless told other streams."""
    _die_with_parent()
    inp, out = inp or sys.stdin.buffer, out or sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the answers
    try:
        try:
            hello = {"ready": st.version()}
        except st.Unavailable as e:
            _send(out, {"unavailable": str(e)})
            return 0
        _send(out, hello)
    except BrokenPipeError:  # the parent went away before this child was ready (it exited)
        os._exit(0)  # at once, as below: nobody to answer, and nothing to say on stderr
    # The job's CPU budget, spent: the parent reads the exit status as a timeout.
    watch = _Deadline(time.process_time, lambda: os._exit(TIMEOUT_EXIT), WATCH_EVERY)
    while True:
        head = _read(inp, _LEN.size)
        if head is None:
            return 0
        body = _read(inp, _LEN.unpack(head)[0])
        if body is None:
            return 0
        req = json.loads(body)
        data = _chunks(inp)
        if data is None:
            return 0
        if req.get("budget"):
            watch.arm(req["budget"])
        held = [data]
        del data  # the list is the text's only holder: check() lets it go once assembled
        try:
            answer = _job(req, held)
        finally:
            watch.disarm()
        try:
            _send(out, answer)
        except BrokenPipeError:  # the parent went away mid-job (it exited): nobody to answer
            os._exit(0)  # at once: a normal exit would flush the unsent answer into the broken pipe again


# ---- the parent ------------------------------------------------------------------------------


class _Dead(Exception):
    """The child died (or its pipe broke) during a job."""


class Worker:
    """The parent's handle on one child. `check` runs one job at a time (others wait);
    `cancel` may be called from any thread."""

    def __init__(self, nice: int = 0):
        self.nice = nice
        self.starts = 0  # children started, for tests and logs
        self.in_process = False  # no child could start: validate in process
        self.why_in_process = ""
        self._proc: subprocess.Popen | _Forked | None = None
        self._lock = threading.Lock()  # one job at a time
        self._state = threading.Lock()  # guards _proc, _tag and _reason against cancel()
        self._tag: object = None  # the running job's tag
        self._reason: str | None = None  # why we killed the child, if we did
        self._wall = _Deadline(time.monotonic, lambda: self._kill("timeout"))  # the job's wall limit

    @property
    def pid(self) -> int | None:
        """The live child's process id, else None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def check(
        self,
        text: str | Iterable[str],
        env: str = "spv1.6",
        options: st.ValidatorOptions | None = None,
        budget: float | None = st.DEFAULT_TIMEOUT,
        tag: object = None,
    ) -> tuple[str, st.Failure | None] | Stopped:
        """The text (or its parts, in order) assembled and validated in the child: ("as", the
        assembler's Failure) or ("val", the validator's Failure or None); Stopped if it gave none.
        budget: seconds of CPU time (None or 0: no limit). tag: what `cancel` names the job by.
        Parts that can be iterated again (a list, or an object whose iter() starts afresh, as the
        validation session's Job) go to the child one at a time, encoded as they go: the text's bytes
        are never held whole. A one-shot iterator is read into a list first,
        so that a restarted child can be fed again."""
        options = options or st.ValidatorOptions()
        st.env_value(env)  # an unknown env raises ValueError here, as in process
        chunks: Iterable[str] = [text] if isinstance(text, str) else text
        if isinstance(chunks, Iterator):
            chunks = list(chunks)
        with self._lock:
            if not self.in_process:
                died = ""
                for _attempt in range(2):
                    try:
                        return self._run(chunks, env, options, budget, tag)
                    except _Dead as e:
                        died = str(e)
                    except _NoChild as e:
                        self.in_process, self.why_in_process = True, str(e)
                        break
                    if self._reason == "cancelled":
                        return Stopped("cancelled")
                    if self._reason == "timeout" or died.endswith(f"status {TIMEOUT_EXIT}"):
                        return Stopped("timeout", float(budget or 0))
                else:
                    return Stopped("crashed", detail=died)
        return check(b"".join(utf8(t) for t in chunks), env, options, budget)

    def prestart(self, fork: bool = False) -> None:
        """Start the child now, on a thread, so that its start overlaps the caller's own work (a
        short-lived `spvls check` importing and parsing); the first job waits for it.
        fork: make the child by forking this process, at once (where os.fork exists): it has this
        module and the binding already imported, where a new interpreter would spend more than a
        small file's whole validation importing them. Only from a caller with no other thread (a
        fork copies none, nor what they hold), so only for this start: a restart spawns one."""
        forked = _fork() if fork and hasattr(os, "fork") else None

        def start() -> None:
            with self._lock:
                if self._proc is not None or self.in_process:
                    if forked is not None:
                        _stop(forked)
                    return
                try:
                    proc = self._start(forked)
                except _NoChild as e:
                    self.in_process, self.why_in_process = True, str(e)
                    return
                with self._state:
                    self._proc = proc

        threading.Thread(target=start, name="spvls-validator-start", daemon=True).start()

    def cancel(self, tag: object = None) -> bool:
        """Kill the child if it is running the job tagged `tag` (any job if tag is None)."""
        return self._kill("cancelled", tag)

    def close(self) -> None:
        with self._state:
            proc, self._proc = self._proc, None
        if proc is not None:
            _stop(proc)

    def _kill(self, reason: str, tag: object = None) -> bool:
        with self._state:
            if self._tag is None or (tag is not None and tag != self._tag):
                return False
            self._reason = reason
            if self._proc is not None:  # else the job is still starting its child: _run sees the reason
                self._proc.kill()
            return True

    def _start(self, forked: _Forked | None = None) -> subprocess.Popen | _Forked:
        """A new child (or `forked`, already made), once it says it is ready."""
        proc: subprocess.Popen | _Forked
        if forked is not None:
            proc = forked
        else:
            env = dict(os.environ)
            root = str(Path(__file__).resolve().parents[2])  # the directory holding the spvls package
            env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
            lib = tools.library_path()
            if lib is not None:
                env["SPVLS_SPIRV_TOOLS_LIB"] = str(lib)  # the same library, found without a search
            try:
                proc = subprocess.Popen(
                    # -S: no site-packages to scan (spvls comes by PYTHONPATH, the library by its path)
                    [sys.executable, "-S", "-m", "spvls.binding.worker"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=env,
                    start_new_session=True,  # the terminal's Ctrl-C goes to the parent alone
                )
            except OSError as e:
                raise _NoChild(f"cannot start the validator process: {e}") from e
        self.starts += 1
        _lower(proc.pid, self.nice)
        stuck = threading.Timer(START_LIMIT, proc.kill)  # never wait forever on a child's start
        stuck.daemon = True
        stuck.start()
        try:
            hello = _answer(proc)
        finally:
            stuck.cancel()
        if hello is None or "ready" not in hello:
            _stop(proc)
            why = hello.get("unavailable") if hello else f"it exited with status {proc.returncode}"
            raise _NoChild(f"the validator process did not start: {why}")
        return proc

    def _run(
        self, chunks: Iterable[str], env: str, options: st.ValidatorOptions, budget: float | None, tag: object
    ) -> tuple[str, st.Failure | None]:
        with self._state:  # named before a child starts, so that a cancel during the start counts
            self._tag, self._reason = (tag if tag is not None else True), None
        try:
            proc = self._proc
            if proc is None or proc.poll() is not None:
                with self._state:
                    self._proc = None
                if proc is not None:
                    _stop(proc)  # died while idle (its parent thread ended, or it was killed)
                proc = self._start()
                with self._state:
                    self._proc = proc
                    if self._reason is not None:  # cancelled while it started: keep it for the next job
                        raise _Dead("cancelled before it ran")
            req = {"env": env, "options": options.to_dict(), "budget": budget or 0}
            if budget:
                self._wall.arm(wall_limit(budget))
            try:
                assert proc.stdin is not None
                _send(proc.stdin, req)
                for part in chunks:
                    chunk = utf8(part)
                    if chunk:
                        proc.stdin.write(_LEN.pack(len(chunk)))
                        proc.stdin.write(chunk)
                proc.stdin.write(_LEN.pack(0))
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the child died; its answer below says so
            answer = _answer(proc)
        finally:
            self._wall.disarm()
            with self._state:
                self._tag = None
        if answer is None:
            with self._state:
                if self._proc is proc:
                    self._proc = None
            _stop(proc)
            raise _Dead(f"the validator process ended with status {proc.returncode}")
        if "value_error" in answer:
            raise ValueError(answer["value_error"])
        fail = answer.get("failure")
        return answer["stage"], None if fail is None else st.Failure.from_dict(fail)


class _NoChild(Exception):
    """No child could be started here."""


class _Forked:
    """A child forked from this process, running `main` on a pair of pipes: what the parent uses of
    a subprocess.Popen (pid, stdin, stdout, poll, wait, kill, returncode)."""

    def __init__(self, pid: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None
        # One waitpid at a time (as Popen's): of two at once, the second would find the child
        # reaped and its status lost.
        self._reaping = threading.Lock()

    def _reap(self, flags: int) -> int | None:
        if not self._reaping.acquire(blocking=flags == 0):
            return None  # a poll while a wait reaps: still running, as far as it can tell
        try:
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, flags)
                except ChildProcessError:  # reaped outside this object: its status is lost
                    pid, status = self.pid, 0
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode
        finally:
            self._reaping.release()

    def poll(self) -> int | None:
        return self._reap(os.WNOHANG)

    def wait(self) -> int:
        code = self._reap(0)
        assert code is not None
        return code

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _fork() -> _Forked | None:
    """This process forked into a child that runs `main` on a pair of pipes (None: it cannot fork).
    The child's own standard input and output become /dev/null (the parent's are not its to read or
    write), it leaves the terminal's session as a spawned one does, and it never returns here."""
    for stream in (sys.stdout, sys.stderr):  # else what they buffer would be written twice
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    requests, answers = os.pipe(), os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (*requests, *answers):
            os.close(fd)
        return None
    if pid == 0:
        code = 1
        try:
            os.close(requests[1])
            os.close(answers[0])
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.close(null)
            os.setsid()
            code = main(os.fdopen(requests[0], "rb"), os.fdopen(answers[1], "wb"))
        finally:
            os._exit(code)
    os.close(requests[0])
    os.close(answers[1])
    return _Forked(pid, os.fdopen(requests[1], "wb"), os.fdopen(answers[0], "rb"))


def _answer(proc: subprocess.Popen | _Forked) -> dict | None:
    assert proc.stdout is not None
    head = _read(proc.stdout, _LEN.size)
    body = _read(proc.stdout, _LEN.unpack(head)[0]) if head else None
    return json.loads(body) if body else None


def _lower(pid: int, nice: int) -> None:
    """Run the child at `nice` above us from its first instruction on (its start, imports and
    library load, is CPU the server's keystrokes should get first)."""
    if nice and hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice))


def _stop(proc: subprocess.Popen | _Forked) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for f in (proc.stdin, proc.stdout):
        if f is not None:
            with contextlib.suppress(OSError):
                f.close()


_shared: Worker | None = None
_shared_lock = threading.Lock()


def close_shared() -> None:
    """Stop and reap this process's worker, if one started: a process leaving by os._exit skips
    atexit, and an unreaped child's CPU time would be missing from its own."""
    if _shared is not None:
        _shared.close()


def shared() -> Worker:
    """This process's worker (started on its first job)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Worker()
            atexit.register(_shared.close)
        return _shared


def _forget_after_fork() -> None:
    """A forked process (check -j, checks.parallel) must not share its parent's child: the pipes
    would interleave. It starts its own on first use."""
    global _shared, _shared_lock
    _shared, _shared_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


if __name__ == "__main__":
    sys.exit(main())
