"""Keystroke -> diagnostics over stdio, with SPIRV-Tools' validator at work in the background and off.

    python bench/keystroke.py [--keys 60] [--lines 10000 100000]

Runs `spvls` from this checkout over stdio with its didChange handler timed inside the server
(wall, and the handler thread's CPU), opens a generated module and types keys at the end of lines
inside function bodies (a space, then its removal). Between keys it pauses past the validator's
200 ms debounce, so a run is at work on an earlier version when many of them arrive; the server
records whether one was. Prints, per size and mode: the client's p50/p95 (didChange sent ->
that version's diagnostics received), the server's didChange wall and CPU p50/p95, how many keys
came while a validation ran, and the server's RSS (now and peak) after the last validation, and the
peak of the validator's worker process (the last one: a superseded run's process is killed).
Issue 20's goal: p95 <= 10 ms at 100k lines with the validator running.
Not part of the test suite: speed is measured here, never asserted in a test.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import Publications, children, pct, role, status_mb, validations  # noqa: E402
from generate import module  # noqa: E402

PAUSES = (0.21, 0.24, 0.3, 0.45, 0.7)  # seconds between keys, in turn: past the 0.2 s debounce
TIMES = "SPVLS_BENCH_TIMES"  # where the timed server appends one JSON line per didChange


def serve() -> None:
    """The server, with its didChange handler timed (run as `keystroke.py --serve`)."""
    sys.path.insert(0, str(ROOT))
    from spvls.server import app

    ls = app.create()
    features = ls.protocol.fm.features
    handler = features[T.TEXT_DOCUMENT_DID_CHANGE]
    out = open(os.environ[TIMES], "a", buffering=1)  # noqa: SIM115 - open for the server process's life

    def timed(params):
        busy = bool(ls.session.validation._running)
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return handler(params)
        finally:
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
            out.write(json.dumps({"version": params.text_document.version, "wall": wall, "cpu": cpu,
                                  "busy": busy}) + "\n")

    features[T.TEXT_DOCUMENT_DID_CHANGE] = timed
    app.run(ls=ls)


async def session(text: str, keys: int, mode: str) -> dict:
    lines = text.split("\n")
    times_file = Path(tempfile.mkstemp(prefix="spvls-keys-")[1])
    client = LanguageClient("spvls-bench", "1")
    published = Publications(client)
    validated = validations(client, published)

    await client.start_io(sys.executable, str(Path(__file__).resolve()), "--serve",
                          env={**os.environ, TIMES: str(times_file)})
    pid = client._server.pid
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                     initialization_options={"validate": mode}))
    client.initialized(T.InitializedParams())
    uri = f"file:///tmp/spvls-bench-keys-{len(lines)}.spvasm"

    t = time.perf_counter()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))
    open_s = await published.version(1) - t
    if mode != "off":
        await published.until(lambda: 1 in validated)
    targets = [n for n, ln in enumerate(lines) if "= OpIAdd" in ln or "= OpLoad" in ln][:keys]
    client_s = []
    for i in range(keys):
        await asyncio.sleep(PAUSES[i % len(PAUSES)])
        n = targets[i % len(targets)]
        col = len(lines[n])
        insert = i % 2 == 0
        version = i + 2
        change = T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(n, col), T.Position(n, col if insert else col + 1)), text=" " if insert else "")
        t = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        client_s.append(await published.version(version) - t)
    if mode != "off":
        await published.until(lambda: keys + 1 in validated)
    rss, peak = status_mb(pid)["VmRSS"], status_mb(pid)["VmHWM"]
    workers = [status_mb(c).get("VmHWM", 0.0) for c in children(pid) if role(c) == "validator"]  # the validator's process, if one runs
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    server = [json.loads(line) for line in times_file.read_text().splitlines()]
    times_file.unlink()
    busy = {s["version"] for s in server if s["busy"]}
    return {
        "open": open_s, "client": client_s, "busy": busy,
        "client_busy": [c for v, c in enumerate(client_s, 2) if v in busy],
        "wall": [s["wall"] for s in server], "cpu": [s["cpu"] for s in server],
        "runs": len(validated), "rss": rss, "peak": peak, "worker": max(workers, default=0.0),
    }


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:6.1f} / {pct(values, 95) * 1000:6.1f}" if values else "     - /      -"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=60)
    ap.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve()
        return
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average {load:.1f}")
    print(f"{'lines':>7} {'validate':>8} {'open':>8} {'client p50 / p95':>16} {'(validating)':>16} "
          f"{'server wall':>15} {'server CPU':>15} {'keys validating':>15} {'runs':>5} {'RSS / peak MB':>14} {'worker peak':>11}")
    for n in args.lines:
        text = module(n)
        for mode in ("onType", "off"):
            s = asyncio.run(session(text, args.keys, mode))
            print(f"{text.count(chr(10)):7d} {mode:>8} {s['open'] * 1000:6.0f}ms {ms(s['client'])} "
                  f"{ms(s['client_busy'])} {ms(s['wall'])} {ms(s['cpu'])} "
                  f"{len(s['busy']):>8} of {len(s['client']):<4} {s['runs']:5d} {s['rss']:6.0f} / {s['peak']:5.0f} {s['worker']:8.0f} MB")
    print("ms, p50 / p95; client: didChange sent -> that version's diagnostics; (validating): the keys that came "
          "while a validation ran; server: the didChange handler, wall and its thread's CPU")


if __name__ == "__main__":
    main()
