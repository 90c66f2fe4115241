"""Benchmark spvls against spirv-as + spirv-val on the same files, in one run.

    python bench/run.py [--quick] [--pure-only]

Prints each figure and its ratio to the baseline (one spirv-as + spirv-val run on the file), and
the language server's figures for both builds (pure Python and compiled: tools/compiled.py, its
extension modules cached under ~/.cache/spvls-compiled) beside the Go server's.
Not part of the test suite: speed is measured here, never asserted in a test.
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import peer  # noqa: E402
from common import Publications, children, compiled_env, pct, quiet, role  # noqa: E402
from generate import module  # noqa: E402

SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
ENV = "vulkan1.3"


def tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else name


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def baseline(path: Path) -> float:
    out = Path(tempfile.mkdtemp()) / "m.spv"

    def run():
        subprocess.run([tool("spirv-as"), "--target-env", ENV, str(path), "-o", str(out)], check=True,
                       capture_output=True)
        subprocess.run([tool("spirv-val"), "--target-env", ENV, str(out)], capture_output=True)
    return best_of(3, run)


def cold_check(path: Path) -> float:
    return best_of(3, lambda: subprocess.run([sys.executable, "-m", "spvls", "check", "--target-env", ENV,
                                              str(path)], capture_output=True))


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def edit_lines(lines: list[str], edits: int) -> list[int]:
    """Lines for one-character edits inside function bodies (a space appended, then removed)."""
    return [n for n, ln in enumerate(lines) if "OpIAdd" in ln or "OpFAdd" in ln or "= OpLoad" in ln][:edits]


def hover_probe(lines: list[str]) -> tuple[int, int, str]:
    """An opcode in a function body to hover; completion asks for the operand after it (an id slot)."""
    line = next((n for n, ln in enumerate(lines) if "OpCooperativeMatrixMulAddKHR" in ln),
                next(n for n, ln in enumerate(lines) if "= OpLoad" in ln))
    op = "OpCooperativeMatrixMulAddKHR" if "OpCooperativeMatrixMulAddKHR" in lines[line] else "OpLoad"
    return line, lines[line].index(op) + 5, op


async def lsp_session(path: Path, edits: int, requests: int, env: dict[str, str] | None = None) -> dict:
    text = path.read_text()
    lines = text.split("\n")
    client = LanguageClient("spvls-bench", "1")
    quiet(client)
    published = Publications(client)

    t_start = time.perf_counter()
    await client.start_io(sys.executable, "-m", "spvls", env=env)
    pid = client._server.pid  # the benchmark reads the server's RSS
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                     initialization_options={"targetEnv": ENV}))
    start_s = time.perf_counter() - t_start  # cold start: spawn to initialize answered (the warm-up is in it)
    client.initialized(T.InitializedParams())
    uri = path.resolve().as_uri()

    t0 = time.perf_counter()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spirv", 1, text)))
    open_s = await published.version(1) - t0

    targets = edit_lines(lines, edits)
    keystrokes = []
    version = 1
    for i in range(edits):
        n = targets[i % len(targets)]
        col = len(lines[n]) - 1
        insert = i % 2 == 0
        version += 1
        change = T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(n, col), T.Position(n, col if insert else col + 1)), text=" " if insert else "")
        t = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        keystrokes.append(await published.version(version) - t)

    doc = T.TextDocumentIdentifier(uri)
    probe, col, op = hover_probe(lines)
    hovers, completions = [], []
    for _ in range(requests):
        t = time.perf_counter()
        await client.text_document_hover_async(T.HoverParams(doc, T.Position(probe, col)))
        hovers.append(time.perf_counter() - t)
        t = time.perf_counter()
        await client.text_document_completion_async(
            T.CompletionParams(doc, T.Position(probe, lines[probe].index(op) + len(op) + 1)))
        completions.append(time.perf_counter() - t)
    # What an editor asks for after edits besides diagnostics: the outline, and semantic tokens
    # in full once, then as deltas after each of a few more keystrokes.
    t = time.perf_counter()
    await client.text_document_document_symbol_async(T.DocumentSymbolParams(doc))
    outline = time.perf_counter() - t
    t = time.perf_counter()
    full = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    tokens_full = time.perf_counter() - t
    result_id, deltas = full.result_id, []
    for i in range(10):
        n = targets[i % len(targets)]
        col = len(lines[n]) - 1
        version += 1
        change = T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(n, col), T.Position(n, col if i % 2 == 0 else col + 1)),
            text=" " if i % 2 == 0 else "")
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        await published.version(version)
        t = time.perf_counter()
        d = await client.text_document_semantic_tokens_full_delta_async(
            T.SemanticTokensDeltaParams(doc, previous_result_id=result_id))
        deltas.append(time.perf_counter() - t)
        result_id = d.result_id
    rss = peak_rss_mb(pid)
    worker = max((peak_rss_mb(c) for c in children(pid) if role(c) == "validator"), default=0.0)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"start": start_s, "open": open_s, "key_p50": statistics.median(keystrokes), "key_p95": pct(keystrokes, 95),
            "key_first": keystrokes[0] if keystrokes else float("nan"),
            "hover_p50": statistics.median(hovers), "hover_p95": pct(hovers, 95),
            "completion_p50": statistics.median(completions), "completion_p95": pct(completions, 95),
            "outline": outline, "tokens_full": tokens_full, "tokens_delta_p50": statistics.median(deltas),
            "rss_mb": rss, "worker_mb": worker}


async def reopen(path: Path) -> float:
    """Open → diagnostics in a new server for a text a server opened before: published from the
    diagnostics cache on disk (spvls/state/cache.py), before the document is parsed."""
    client = LanguageClient("spvls-bench", "1")
    quiet(client)
    published = Publications(client)
    await client.start_io(sys.executable, "-m", "spvls")
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                     initialization_options={"targetEnv": ENV}))
    client.initialized(T.InitializedParams())
    t0 = time.perf_counter()
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(path.resolve().as_uri(), "spirv", 1, path.read_text())))
    took = await published.version(1) - t0
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return took


def corpus_files(n: int) -> list[Path]:
    root = SHARED / "corpus"
    manifest = root / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    rows = [r for r in csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t")
            if r["validates"] == "yes"]
    rows.sort(key=lambda r: -int(r["lines"]))
    return [root / r["path"] for r in rows[:n]]


def corpus_throughput() -> None:
    """Lines per second over the whole corpus: `spvls check -j 1` and `-j 0` (every core), against
    spirv-as + spirv-val run per file (each file a process pair, as a build runs them)."""
    root = SHARED / "corpus"
    manifest = root / "MANIFEST.tsv"
    if not manifest.exists():
        print(f"\ncorpus: not found at {root}; throughput left out")
        return
    paths = [root / r["path"] for r in csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t")]
    lines = sum(p.read_text(errors="replace").count("\n") for p in paths)
    out = Path(tempfile.mkdtemp()) / "m.spv"

    def tools() -> None:
        for p in paths:
            subprocess.run([tool("spirv-as"), "--target-env", ENV, str(p), "-o", str(out)], capture_output=True)
            subprocess.run([tool("spirv-val"), "--target-env", ENV, str(out)], capture_output=True)
    figures = {"spirv-as + spirv-val per file": best_of(1, tools)}
    for j in (1, 0):
        figures[f"spvls check -j {j}"] = best_of(1, lambda j=j: subprocess.run(
            [sys.executable, "-m", "spvls", "check", "-j", str(j), "--format", "json", *map(str, paths)],
            capture_output=True))
    print(f"\nwhole corpus: {len(paths)} files, {lines:,} lines, {os.cpu_count()} cores")
    base = figures["spirv-as + spirv-val per file"]
    for name, t in figures.items():
        print(f"  {name:32} {t:6.1f} s {lines / t:9,.0f} lines/s  ({base / t:4.2f}x the tools' rate)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer edits and requests")
    ap.add_argument("--pure-only", action="store_true", help="leave out the compiled build")
    args = ap.parse_args()
    edits, requests = (20, 20) if args.quick else (60, 60)
    work = Path(tempfile.mkdtemp(prefix="spvls-bench-"))
    # A cache of its own: `open` is a first open (a miss), `reopen` the same text again (a hit).
    os.environ["SPVLS_CACHE_DIR"] = str(work / "cache")
    os.environ.pop("SPVLS_NO_CACHE", None)
    files = []
    for n in (10_000, 100_000):
        p = work / f"generated-{n // 1000}k.spvasm"
        p.write_text(module(n))
        files.append(p)
    files += corpus_files(2)
    compiled = None if args.pure_only else compiled_env(work / "compiled")
    if compiled is not None:
        compiled["SPVLS_CACHE_DIR"] = str(work / "cache-compiled")  # its own: its open is a first open too
    # spvls has run on this machine before, as after its first launch: the grammar's indexes and
    # Lark's tables it builds once and keeps in the cache directory are there; the texts are new.
    # (bench/coldstart.py's "caches off" is a first launch.)
    for env in (None, compiled) if compiled is not None else (None,):
        subprocess.run([sys.executable, "-m", "spvls", "check", "--no-spirv-val", str(ROOT / "examples" / "subgroup.spvasm")],
                       capture_output=True, env=env, check=True)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}")
    print(f"{'file':28} {'lines':>7} {'as+val':>8} {'check':>14} {'open':>14} {'key p50':>15} {'key p95':>9} {'key 1st':>9} "
          f"{'hover p95':>10} {'compl p95':>10} {'outline':>8} {'tok full':>9} {'tok Δ p50':>9} {'RSS MB':>7} "
          f"{'val MB':>7} {'start':>7}")
    sessions = []
    for p in files:
        base = baseline(p)
        cold = cold_check(p)
        s = asyncio.run(lsp_session(p, edits, requests))
        s["reopen"] = min(asyncio.run(reopen(p)) for _ in range(3))
        if compiled is not None:
            s["compiled"] = asyncio.run(lsp_session(p, edits, requests, compiled))
        sessions.append((p, s))
        nlines = p.read_text().count("\n")
        print(f"{p.name[:28]:28} {nlines:7d} {base * 1000:7.0f}ms {cold * 1000:7.0f}ms {cold / base:4.1f}x "
              f"{s['open'] * 1000:7.0f}ms {s['open'] / base:4.1f}x {s['key_p50'] * 1000:7.1f}ms "
              f"{s['key_p50'] / base:5.2f}x {s['key_p95'] * 1000:7.1f}ms {s['key_first'] * 1000:7.0f}ms "
              f"{s['hover_p95'] * 1000:8.1f}ms "
              f"{s['completion_p95'] * 1000:8.1f}ms {s['outline'] * 1000:6.0f}ms {s['tokens_full'] * 1000:7.0f}ms "
              f"{s['tokens_delta_p50'] * 1000:7.1f}ms {s['rss_mb']:7.0f} {s['worker_mb']:7.0f} {s['start'] * 1000:5.0f}ms")
    print("reopen: open -> diagnostics for the same text in a new server (from the cache on disk), best of 3: "
          + ", ".join(f"{p.name[:28]} {s['reopen'] * 1000:.0f}ms" for p, s in sessions))
    print("ratios are to one spirv-as + spirv-val run on the same file (best of 3; the environment's, cmeel's "
          "Python scripts that run the programs: bench/coldstart.py times the programs themselves too); "
          "key 1st: the first keystroke, right after the first diagnostics (it waits for pygls' import, which "
          "the first open's answer comes before: spvls/server/early.py); start: spawn to initialize "
          "answered (the server builds its grammar, parser and first checks there, not at the first open); "
          "RSS: the server's peak (VmHWM); val: the validator process's peak (0: it had not run); "
          "bench/memory.py gives both stage by stage")
    go_columns(sessions, edits, requests)
    corpus_throughput()


def go_columns(sessions, edits: int, requests: int) -> None:
    if not peer.available():
        print(f"\nGo server: not found at {peer.GO_SERVER} (set SPVLS_GO_SERVER); its columns are left out")
        return
    print(f"\nside by side with the Go server ({peer.GO_SERVER.name}); ratio = spvls / Go; "
          "compiled: the same figures from the compiled build")
    print(f"{'file':28} {'open spvls':>11} {'compiled':>9} {'open Go':>9} {'ratio':>6} {'compiled':>9} "
          f"{'reopen spvls':>13} {'ratio':>6} {'key p50 spvls':>14} {'key p50 Go':>11} {'ratio':>6} "
          f"{'key p95 spvls':>14} {'compiled':>9} {'hover p50 spvls':>16} {'hover p50 Go':>13} "
          f"{'RSS spvls':>10} {'compiled':>9} {'RSS Go':>7}")
    for p, s in sessions:
        lines = p.read_text().split("\n")
        line, col, _ = hover_probe(lines)
        g = asyncio.run(peer.go_session(p, edits, requests, edit_lines(lines, edits), (line, col), peak_rss_mb))
        c = s.get("compiled")
        c_open = f"{c['open'] * 1000:7.0f}ms" if c else f"{'-':>9}"
        c_ratio = f"{c['open'] / g['open']:8.2f}x" if c else f"{'-':>9}"
        c_p95 = f"{c['key_p95'] * 1000:7.1f}ms" if c else f"{'-':>9}"
        c_rss = f"{c['rss_mb']:7.0f}MB" if c else f"{'-':>9}"
        print(f"{p.name[:28]:28} {s['open'] * 1000:9.0f}ms {c_open} {g['open'] * 1000:7.0f}ms "
              f"{s['open'] / g['open']:5.2f}x {c_ratio} "
              f"{s['reopen'] * 1000:11.0f}ms {s['reopen'] / g['open']:5.2f}x "
              f"{s['key_p50'] * 1000:12.1f}ms {g['key_p50'] * 1000:9.1f}ms {s['key_p50'] / g['key_p50']:5.2f}x "
              f"{s['key_p95'] * 1000:12.1f}ms {c_p95} "
              f"{s['hover_p50'] * 1000:14.1f}ms {g['hover_p50'] * 1000:11.1f}ms {s['rss_mb']:8.0f}MB {c_rss} "
              f"{g['rss_mb']:5.0f}MB")

if __name__ == "__main__":
    main()
