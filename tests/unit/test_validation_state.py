"""The background validation's scheduling (spvls/state/validation.py), on a real event loop with
a runner the test holds: order and generations, not time."""
from __future__ import annotations

import asyncio
import os
import threading

import pytest

from spvls.checks.diagnostic import ERROR, Diagnostic
from spvls.state.validation import BACKGROUND_NICE, JOIN_SLICE, Job, Validation, run_job, snapshot
from spvls.state.workspace import Workspace

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


def test_the_snapshot_is_the_document_then_and_stays_so() -> None:
    ws = Workspace()
    # More lines than a join slice, with every kind of line break the document keeps.
    text = "".join(f"%c{i} = OpConstant %u32 {i}" + ("\r\n", "\n", "\r")[i % 3] for i in range(20_000))
    doc = ws.open("u", TEXT + text + "OpNop", 1)
    job = snapshot(ws, "u", 1)
    assert job is not None and job.text() == doc.text == TEXT + text + "OpNop"
    doc.replace((2, 0), (5, 3), "; edit\n\n")
    doc.replace((0, 0), (0, 0), "OpNop\r\n")
    doc.set_text(doc.text + "\nOpNop")
    assert doc.text != TEXT + text + "OpNop"
    assert job.text() == TEXT + text + "OpNop" and len(job.lines) == 20_003


@pytest.mark.parametrize("end", ["", "\n", "\n\n"])
def test_an_all_lf_snapshot_keeps_no_breaks_and_joins_every_slice(end: str) -> None:
    """A document whose breaks are all LF: the job keeps no copy of them, and its slices join back
    to the text (a line at each JOIN_SLICE boundary keeps its break)."""
    ws = Workspace()
    lines = [f"%c{i} = OpConstant %u32 {i}" for i in range(3 * JOIN_SLICE + 7)]
    doc = ws.open("u", TEXT + "\n".join(lines) + end, 1)
    job = snapshot(ws, "u", 1)
    assert job is not None and job.breaks is None
    assert job.text() == doc.text == TEXT + "\n".join(lines) + end


async def test_the_worker_runs_at_a_lower_priority() -> None:
    ws = Workspace()
    ws.open("u", TEXT, 1)
    seen: list[int] = []

    def runner(job: Job) -> list[Diagnostic]:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return []

    v = Validation(ws, lambda uri: None, delay=0, runner=runner)
    v.changed("u")
    await _until(lambda: v.runs == 1, "a run")
    loop_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert seen == [min(19, loop_nice + BACKGROUND_NICE)]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == loop_nice  # the loop's is unchanged
    v.shutdown()
