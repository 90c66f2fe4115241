"""CPU milliseconds each rule family takes: generated modules of 10k and 100k lines, and the whole
../shared/corpus (summed over its files, each in its manifest's env). Best of N runs; each run builds
fresh modules (not timed) and runs the families in `FAMILIES` order, so a module fact or the opcode
index is paid by whichever family asks first, as in `analyze`.

    python bench/families.py [--runs 3] [--sizes 10000 100000] [--no-corpus]

CPU time (time.process_time), so the machine's load matters little. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import csv
import gc
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from generate import module as generated  # noqa: E402

from spvls.checks import FAMILIES, target  # noqa: E402
from spvls.checks.family import Family  # noqa: E402
from spvls.model.module import build  # noqa: E402
from spvls.spec.grammar import load  # noqa: E402
from spvls.syntax.document import Document  # noqa: E402

SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))


def family_name(f: Family) -> str:
    return f.name


def one_run(docs: list[tuple[Document, str | None]]) -> dict[str, float]:
    """CPU seconds per family over these documents (modules built fresh, untimed)."""
    total = dict.fromkeys(map(family_name, FAMILIES), 0.0)
    grammar = load()
    for doc, env in docs:
        version, env, _ = target(doc, env)
        m = build(doc, grammar, version)
        m.env = env
        gc.collect()
        gc.disable()
        try:
            for f in FAMILIES:
                t = time.process_time()
                f.check(m, None)
                total[family_name(f)] += time.process_time() - t
        finally:
            gc.enable()
    return total


def best(docs: list[tuple[Document, str | None]], runs: int) -> dict[str, float]:
    results = [one_run(docs) for _ in range(runs)]
    out = {k: min(r[k] for r in results) for k in results[0]}
    out["all"] = min(sum(r.values()) for r in results)
    return out


def corpus() -> list[tuple[Document, str | None]]:
    root = SHARED / "corpus"
    manifest = root / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    rows = list(csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    return [
        (Document((root / r["path"]).read_text(encoding="utf-8", errors="replace")), r["env"] or None) for r in rows
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="best of this many")
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--no-corpus", action="store_true")
    a = ap.parse_args(argv)
    columns: list[tuple[str, dict[str, float]]] = []
    for n in a.sizes:
        columns.append((f"{n // 1000}k", best([(Document(generated(n)), "vulkan1.3")], a.runs)))
    if not a.no_corpus:
        docs = corpus()
        if docs:
            columns.append((f"corpus ({len(docs)})", best(docs, a.runs)))
        else:
            print(f"corpus: not found at {SHARED / 'corpus'}; left out", file=sys.stderr)
    print("| family | " + " | ".join(c for c, _ in columns) + " |")
    print("| --- |" + " ---: |" * len(columns))
    for k in columns[0][1]:
        cells = " | ".join(f"{r[k] * 1000:.0f}" for _, r in columns)
        print(f"| {'**all**' if k == 'all' else k} | {cells} |")
    print(f"(CPU ms, best of {a.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
