"""The background validation's scheduling (spvls/session/validation.py), on a real event loop with
a runner the test holds: order and generations, not time."""
from __future__ import annotations

import asyncio
import threading

from spvls.checks.diagnostic import ERROR, Diagnostic
from spvls.session.validation import Job, Validation, run_job
from spvls.session.workspace import Workspace

TEXT = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def _diag(job: Job) -> list[Diagnostic]:
    return [Diagnostic(0, 0, 1, ERROR, "spirv-val", f"version {job.version}")]


async def _until(cond, what: str) -> None:
    for _ in range(2000):
        if cond():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never: {what}")


async def test_a_result_for_an_older_version_is_dropped() -> None:
    ws = Workspace()
    doc = ws.open("u", TEXT, 1)
    gate = threading.Event()
    started: list[int] = []
    published: list[tuple[int, list[str]]] = []

    def runner(job: Job) -> list[Diagnostic]:
        started.append(job.version)
        if job.version == 1:
            gate.wait(30)  # version 1 stays in flight until the test lets it go
        return _diag(job)

    v = Validation(ws, lambda uri: published.append((doc.version, [d.message for d in v.results[uri]])),
                   delay=0, runner=runner)
    v.changed("u")
    await _until(lambda: started == [1], "version 1 started")
    # The loop keeps serving while the worker holds version 1: an edit makes version 2.
    doc.replace((0, 0), (0, 0), "; edit\n")
    doc.version = 2
    v.changed("u")
    await asyncio.sleep(0.05)
    assert started == [1] and published == []  # version 2 waits for the worker
    gate.set()
    await _until(lambda: published, "a publication")
    assert published == [(2, ["version 2"])]  # version 1's result never published
    assert started == [1, 2] and v.runs == 2
    v.shutdown()


async def test_debounce_runs_once_after_a_burst() -> None:
    ws = Workspace()
    doc = ws.open("u", TEXT, 1)
    versions: list[int] = []
    done = asyncio.Event()

    def runner(job: Job) -> list[Diagnostic]:
        versions.append(job.version)
        return []

    v = Validation(ws, lambda uri: done.set(), delay=0.05, runner=runner)
    for n in range(2, 12):
        doc.version = n
        v.changed("u")
    await asyncio.wait_for(done.wait(), 30)
    assert versions == [11]
    v.shutdown()


async def test_forget_drops_results_and_the_run_in_flight() -> None:
    ws = Workspace()
    ws.open("u", TEXT, 1)
    gate = threading.Event()
    calls: list[str] = []

    def runner(job: Job) -> list[Diagnostic]:
        gate.wait(30)
        return _diag(job)

    v = Validation(ws, calls.append, delay=0, runner=runner)
    v.changed("u")
    await _until(lambda: "u" in v._running, "in flight")
    v.forget("u")
    gate.set()
    await _until(lambda: v.runs == 1, "the run ended")
    assert calls == [] and v.results == {}
    v.shutdown()


async def test_the_real_runner_maps_and_keeps_the_edit_lines() -> None:
    ws = Workspace()
    text = TEXT + "OpEntryPoint GLCompute %main \"main\"\n"
    doc = ws.open("u", text, 1)
    got: list[list[Diagnostic]] = []
    v = Validation(ws, lambda uri: got.append(v.results[uri]), delay=0, runner=run_job)
    v.changed("u")
    await _until(lambda: got, "a result")
    [d] = got[0]
    assert (d.line, d.code) == (2, "spirv-val")
    # Until the next result: an edit above moves it, an edit on its line drops it.
    v.edited("u", 0, 0, 1)
    assert [x.line for x in v.diagnostics("u", [], len(doc.texts) + 1)] == [3]
    v.edited("u", 3, 3, 0)
    assert v.diagnostics("u", [], 10) == []
    v.shutdown()
