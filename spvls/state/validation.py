"""SPIRV-Tools' validator behind the keystrokes: after the document has been idle a moment, on a
snapshot, in a worker thread, so native diagnostics are never delayed. The thread hands the text's
slices to a child process (binding.worker) that assembles and validates them; a newer generation
kills it, so a stale run stops burning a core, and its memory peak is not the server's.

Each change bumps the document's generation; a result computed for an older generation is
dropped, never published (as rust-analyzer drops a stale flycheck). The snapshot (copies of the
document's line lists, env, options) is taken on the event loop's thread, where edits happen; the
worker only reads it, and joins the text itself. The worker runs at a lower CPU priority, so a
keystroke's thread gets a core first. All state here is touched on the loop's thread alone.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from ..binding.spirv_tools import ValidatorOptions
from ..binding.worker import Worker
from ..checks import validator
from ..checks.diagnostic import ERROR, Diagnostic
from ..model.module import Module
from ..syntax.parser import Line
from .workspace import Workspace

log = logging.getLogger("spvls")

DELAY = 0.2  # seconds of idle typing before a run
BACKGROUND_NICE = 10  # the worker thread's and process's niceness above the server's
JOIN_SLICE = 8192  # lines joined at a time: the GIL is free between slices


@dataclass(frozen=True)
class Job:
    uri: str
    version: int
    generation: int
    texts: Sequence[str]  # each line without its break
    breaks: Sequence[str] | None  # each line's break; None: "\n" after each but the last (no copy kept)
    lines: Sequence[Line]
    env: str
    options: ValidatorOptions

    def parts(self) -> Iterator[str]:
        """The document's text a slice of lines at a time (the worker's part: joining a large
        document at once would hold the GIL for a keystroke's time)."""
        texts, breaks = self.texts, self.breaks
        for i in range(0, len(texts), JOIN_SLICE):
            if breaks is None:
                yield "\n".join(texts[i : i + JOIN_SLICE]) + ("\n" if i + JOIN_SLICE < len(texts) else "")
            else:
                yield "".join(
                    t + b for t, b in zip(texts[i : i + JOIN_SLICE], breaks[i : i + JOIN_SLICE], strict=False)
                )

    def __iter__(self) -> Iterator[str]:
        """The parts afresh each time: the validator's worker streams them, and feeds them again
        to a restarted child, without holding the text's bytes whole."""
        return self.parts()

    def text(self) -> str:
        return "".join(self.parts())


def run_job(job: Job, worker: Worker | None = None) -> list[Diagnostic]:
    """The worker thread's part: the text's slices go to the validator's process, which assembles
    and validates them (the job's uri names the run, for `Worker.cancel`)."""
    return validator.run(job, job.lines, job.env, job.options, worker, job.uri)


def lower_priority() -> None:
    """Run the calling thread at BACKGROUND_NICE above the process (Linux: a thread has its own
    niceness); where that is not possible, leave it as it is."""
    if not sys.platform.startswith("linux"):
        return  # elsewhere a thread id given to setpriority may name a process
    try:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, now + BACKGROUND_NICE))
    except (OSError, AttributeError):
        pass


def snapshot(ws: Workspace, uri: str, generation: int) -> Job | None:
    doc = ws.docs.get(uri)
    a = ws.analysis(uri)
    if doc is None or a is None:
        return None
    m = a.module
    return Job(
        uri,
        doc.version,
        generation,
        list(doc.texts),
        None if doc.lf_only() else list(doc.breaks),
        list(doc.lines),
        validator.env_for(m.env, m.version),
        ws.settings.validator_options(),
    )


class Validation:
    """Per document: the last validator diagnostics, the pending timer, the run in flight."""

    def __init__(
        self,
        ws: Workspace,
        on_result: Callable[[str], None],
        delay: float = DELAY,
        runner: Callable[[Job], list[Diagnostic]] | None = None,
        note: Callable[[str], None] = log.debug,
    ):
        self.ws = ws
        self.on_result = on_result  # called on the loop's thread when a document's results change
        self.note = note  # one line per run started and ended, for the client's log
        self.delay = delay
        self.worker = Worker(nice=BACKGROUND_NICE)  # the validator's process, started on the first run
        self.runner = runner or self._run
        self.results: dict[str, list[Diagnostic]] = {}
        self._generation: dict[str, int] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: set[str] = set()
        self._again: set[str] = set()  # changed while a run was in flight: run once it ends
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spvls-validate", initializer=lower_priority)
        self.runs = 0  # finished runs (published or dropped), for tests and logs

    def changed(self, uri: str, delay: float | None = None) -> None:
        """The document changed (or was opened or saved): drop what is in flight, run when idle."""
        gen = self._generation[uri] = self._generation.get(uri, 0) + 1
        if uri in self._running:
            self.worker.cancel(uri)  # its result would be dropped: stop it now
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers[uri] = loop.call_later(self.delay if delay is None else delay, self._fire, uri, gen)

    def forget(self, uri: str) -> None:
        """The document closed, or validation was turned off for it."""
        self._generation[uri] = self._generation.get(uri, 0) + 1
        if uri in self._running:
            self.worker.cancel(uri)
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._again.discard(uri)
        if self.results.pop(uri, None):
            self.on_result(uri)

    def edited(self, uri: str, first: int, last: int, delta: int) -> None:
        """Lines first..last were replaced by last - first + 1 + delta lines: until the next result,
        keep the last one's diagnostics off the edited lines and move those below with the text."""
        found = self.results.get(uri)
        if found:
            self.results[uri] = [
                d if d.line < first else replace(d, line=d.line + delta) for d in found if not first <= d.line <= last
            ]

    def diagnostics(self, uri: str, native: list[Diagnostic], lines: int, m: Module | None = None) -> list[Diagnostic]:
        """The native diagnostics merged with the validator's latest (kept until replaced), with
        the shader source lines the current module gives them."""
        found = [d for d in self.results.get(uri, ()) if d.line < lines]
        return validator.merge(native, found, m) if found else native

    def _run(self, job: Job) -> list[Diagnostic]:
        """In the worker thread: a job that waited behind another document's and went stale
        meanwhile is not run (its result would be dropped)."""
        if job.generation != self._generation.get(job.uri):
            return []
        return run_job(job, self.worker)

    def _fire(self, uri: str, gen: int) -> None:
        self._timers.pop(uri, None)
        if gen != self._generation.get(uri):
            return
        if uri in self._running:
            self._again.add(uri)
            return
        job = snapshot(self.ws, uri, gen)
        if job is None:
            return
        self._running.add(uri)
        self.note(f"spirv-val: validating {uri} version {job.version}")
        future = asyncio.get_running_loop().run_in_executor(self._pool, self.runner, job)
        start = time.perf_counter()
        future.add_done_callback(lambda f: self._done(job, f, start))

    def _done(self, job: Job, future: asyncio.Future, start: float) -> None:
        uri = job.uri
        self._running.discard(uri)
        self.runs += 1
        took = f"{(time.perf_counter() - start) * 1000:.0f} ms"
        if uri in self._again:
            self._again.discard(uri)
            self._fire(uri, self._generation.get(uri, 0))
        if job.generation != self._generation.get(uri):
            self.note(f"spirv-val: {uri} version {job.version} done in {took}: dropped (the document changed)")
            return
        try:
            found = future.result()
        except Exception as e:
            log.exception("spirv-val failed on %s", uri)
            found = [
                Diagnostic(
                    0,
                    0,
                    0,
                    ERROR,
                    validator.SOURCE + ".internal",
                    f"spvls could not run spirv-val on this document ({e!r}); see the server log",
                )
            ]
        self.note(f"spirv-val: {uri} version {job.version} done in {took}: {len(found)} problem(s)")
        self.results[uri] = found
        self.on_result(uri)

    def shutdown(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.worker.close()
