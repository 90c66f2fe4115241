"""spirv-val in spvls: agreement with SPIRV-Tools, keystrokes while it runs, memory over many runs.

    python bench/validation.py [--quick]

1. Verdict agreement and same-line figures on ../shared/corpus and ../shared/cases: `spvls check`
   (native rules + spirv-as/spirv-val, merged) against the manifests' spirv-as/spirv-val verdicts,
   and whether our error sits on the instruction (or text line) SPIRV-Tools names; and how many of
   the corpus files spirv-val rejects the native rules flag alone (--no-spirv-val).
2. Keystroke latency (didChange -> that version's diagnostics) at 10k and 100k lines with
   validation on: keystrokes paced past the 200 ms debounce, so spirv-val is at work on the
   previous version while most of them arrive.
3. RSS of one process before and after 1,000 assemble + validate runs through the binding.
"""
from __future__ import annotations

import argparse
import asyncio
import csv
import os
import re
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from common import Publications, pct  # noqa: E402
from generate import module  # noqa: E402

from spvls.binding import spirv_tools as st  # noqa: E402
from spvls.checks import validator  # noqa: E402
from spvls.cli import check_file  # noqa: E402
from spvls.syntax.document import Document  # noqa: E402

SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))


def stops_at(text: str, env: str) -> tuple[str, int] | None:
    words = st.assemble(text, env)
    if isinstance(words, st.Failure):
        return "as", words.line
    fail = st.validate(words, env)
    return None if fail is None else ("val", fail.index)


def agreement() -> None:
    for kind in ("corpus", "cases"):
        root = SHARED / kind
        rows = list(csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"))
        n = agree = invalid = same = native_alone = assembled = native_assembled = 0
        for r in rows:
            path = root / r["path"]
            text = path.read_text(encoding="utf-8", errors="replace")
            want_invalid = r["spirv_val"] == "invalid" if kind == "cases" else r["validates"] != "yes"
            errors = [d for d in check_file(path, r["env"]) if d.severity == "error"]
            n += 1
            agree += bool(errors) == want_invalid
            if not want_invalid:
                continue
            invalid += 1
            native = any(d.severity == "error" for d in check_file(path, r["env"], spirv_val=False))
            native_alone += native
            where = stops_at(text, r["env"])
            if where is None:
                continue
            if where[0] == "val":  # assembles, but spirv-val rejects it
                assembled += 1
                native_assembled += native
            at = validator.instruction_lines(Document(text).lines)
            line = where[1] if where[0] == "as" else at[min(max(where[1], 1), len(at)) - 1]
            same += any(d.line == line for d in errors)
        print(f"{kind}: {n} files; same verdict as spirv-as + spirv-val: {agree}/{n}; "
              f"of the {invalid} they reject, our error on their line: {same}/{invalid}; "
              f"native rules alone (--no-spirv-val) flag {native_alone}/{invalid} "
              f"({native_assembled}/{assembled} of those that assemble)")


async def keystrokes(lines_wanted: int, count: int, pause: float, mode: str) -> dict:
    text = module(lines_wanted)
    lines = text.split("\n")
    client = LanguageClient("spvls-bench", "1")
    published = Publications(client)
    runs: list[float] = []

    @client.feature(T.WINDOW_LOG_MESSAGE)
    def on_log(params: T.LogMessageParams):
        m = re.search(r" done in (\d+) ms", params.message)
        if m:
            runs.append(int(m.group(1)) / 1000)

    await client.start_io(sys.executable, "-m", "spvls")
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities(),
                                                     initialization_options={"validate": mode}))
    client.initialized(T.InitializedParams())
    uri = f"file:///tmp/spvls-bench-validate-{lines_wanted}.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))

    await published.version(1)
    targets = [n for n, ln in enumerate(lines) if "= OpIAdd" in ln or "= OpLoad" in ln][:count]
    times = []
    for i in range(count):
        await asyncio.sleep(pause)  # idle past the debounce: spirv-val starts on the last version
        n = targets[i % len(targets)]
        col = len(lines[n])
        version = i + 2
        t = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(n, col), T.Position(n, col)),
                                                text=" " if i % 2 == 0 else "")]))
        times.append(await published.version(version) - t)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"lines": len(lines), "p50": statistics.median(times), "p95": pct(times, 95),
            "runs": len(runs), "run_p50": statistics.median(runs) if runs else 0.0,
            "count": count}


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def rss_after(runs: int) -> None:
    text = module(10_000)
    words = st.assemble(text, "vulkan1.3")
    st.validate(words, "vulkan1.3")
    marks = {0: rss_kb()}
    t = time.perf_counter()
    for i in range(1, runs + 1):
        words = st.assemble(text, "vulkan1.3")
        assert st.validate(words, "vulkan1.3") is None
        if i in (10, 100, runs // 2, runs):
            marks[i] = rss_kb()
    took = time.perf_counter() - t
    print(f"RSS over {runs} assemble + validate runs of a {text.count(chr(10)):,}-line module "
          f"({took / runs * 1000:.0f} ms each): "
          + ", ".join(f"{kb / 1024:.1f} MB after {i}" for i, kb in marks.items()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; SPIRV-Tools {st.version()}")
    agreement()
    for n in (10_000, 100_000):
        for mode in ("onType", "off"):  # the same keystrokes without spirv-val, for comparison
            s = asyncio.run(keystrokes(n, 10 if args.quick else 30, 0.3, mode))
            print(f"keystrokes at {s['lines']:,} lines, validate={mode}: p50 {s['p50'] * 1000:.1f} ms, "
                  f"p95 {s['p95'] * 1000:.1f} ms over {s['count']}; {s['runs']} spirv-val runs"
                  + (f", p50 {s['run_p50'] * 1000:.0f} ms each" if s["runs"] else ""))
    rss_after(100 if args.quick else 1000)


if __name__ == "__main__":
    main()
