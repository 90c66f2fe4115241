"""Peak memory over stdio: the server's and the validator process's, stage by stage.

    python bench/memory.py [--lines 100000] [--runs 1]

Issue 20's memory goal is "peak RSS <= 150 MB with the 100k-line document open, its tokens sent
and the validator run". The user pays for two processes: the server, and the validator's worker
process (spvls/binding/worker.py), which assembles and validates a copy of the text. This prints
both peaks (VmHWM) and their sum. The server's peak is also given per stage: before each stage its
high-water mark is reset (Linux: `5` written to /proc/PID/clear_refs), so each stage's figure is
the highest RSS during that stage alone:

- start: spawn -> `initialize` answered (the interpreter, the imports, the warm-up);
- open empty: an empty document opened (what the server holds with nothing to hold);
- open: the generated module opened -> its diagnostics published;
- tokens: `semanticTokens/full` answered;
- validate: the validator's run for that version done (its result merged and published).

The server's child process is read too, with its own peak: the validator's process (`validator`).
A child forked for one check (checks.parallel.run_split) lives only during `open`, shares its pages
with the server, and is left out of the server's peak; `together` counts what it copied.
Not part of the test suite: memory is measured here, never asserted in a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import Publications, children, role, status_mb, validations  # noqa: E402
from generate import module  # noqa: E402

STAGES = ("start", "open empty", "open", "tokens", "validate")


def pss_mb(pid: int) -> float:
    """The process's proportional set size, MB: its private pages plus its share of pages it shares
    (a forked child's with its parent), so that the sum over processes counts each page once."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    return sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("Pss:")) / 1024


async def sample_together(pid: int, into: dict[str, float], every: float = 0.02) -> None:
    """The highest PSS of the server and its children together, read every `every` seconds (a
    sample may miss a peak shorter than that)."""
    while True:
        total = pss_mb(pid) + sum(pss_mb(c) for c in children(pid))
        into["together"] = max(into.get("together", 0.0), total)
        await asyncio.sleep(every)


def reset_peak(pid: int) -> bool:
    """Start the process's high-water mark again from its RSS now (Linux 4.0+)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


async def session(text: str) -> dict[str, float]:
    client = LanguageClient("spvls-bench", "1")
    published = Publications(client)
    validated = validations(client, published)

    await client.start_io(sys.executable, "-m", "spvls")
    pid = client._server.pid  # the benchmark reads the server's memory
    out: dict[str, float] = {}
    sampler = asyncio.ensure_future(sample_together(pid, out))
    peaks: dict[str, float] = {}

    def stage(name: str) -> None:
        s = status_mb(pid)
        peaks[name] = s["VmHWM"]
        out[f"{name} rss"] = s["VmRSS"]
        reset_peak(pid)

    await client.initialize_async(
        T.InitializeParams(capabilities=T.ClientCapabilities(), initialization_options={"validate": "onType"})
    )
    client.initialized(T.InitializedParams())
    stage("start")
    empty = "file:///tmp/spvls-bench-memory-empty.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(empty, "spvasm", 1, "")))
    await published.version(1)
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(empty)))
    stage("open empty")
    published.at.clear()
    validated.clear()
    uri = f"file:///tmp/spvls-bench-memory-{text.count(chr(10))}.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))
    await published.version(1)
    stage("open")
    await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(T.TextDocumentIdentifier(uri)))
    stage("tokens")
    await published.until(lambda: 1 in validated)
    kids = {role(c): c for c in children(pid)}
    c = kids.get("validator")
    out["validator peak"] = status_mb(c).get("VmHWM", 0.0) if c else 0.0
    stage("validate")
    sampler.cancel()
    out["server peak"] = max(peaks.values())
    out.update((f"{k} peak", v) for k, v in peaks.items())
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, nargs="+", default=[100_000])
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    # Every run a first open: a text opened before has its diagnostics published from the cache on
    # disk (state/cache.py) before it is parsed, which would end the "open" stage at ~70 MB.
    os.environ["SPVLS_NO_CACHE"] = "1"
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    print("MB; per stage: the server's peak during it (its RSS at its end)")
    head = "".join(f"{s:>16}" for s in STAGES)
    print(f"{'lines':>7}{head} {'server peak':>12} {'validator peak':>15} {'together':>9}")
    for n in args.lines:
        text = module(n)
        for _ in range(args.runs):
            r = asyncio.run(session(text))
            cells = "".join(f"{r[s + ' peak']:7.0f} ({r[s + ' rss']:4.0f})  " for s in STAGES)
            print(f"{text.count(chr(10)):7d}{cells} {r['server peak']:10.0f} {r['validator peak']:15.0f} "
                  f"{r['together']:9.0f}")
    print("together: the highest PSS of the server and its children summed, sampled every 20 ms (each page once)")


if __name__ == "__main__":
    main()
