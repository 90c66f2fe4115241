"""What spirv-opt's per-pass listing costs: `spvls opt -O` (binary.optimize) on the largest corpus
modules, without and with `--print-all` (spvls opt --stats, the LSP command's perPass), CPU time of
spvls and spirv-opt together and wall time, best of a few runs, in one process.

    python bench/optimize.py              # the 3 largest modules, best of 5
"""
from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
sys.path.insert(0, str(ROOT))

from spvls.binary import optimize  # noqa: E402
from spvls.cli.modules import read_words  # noqa: E402


def cpu() -> float:
    """CPU seconds of this process and its finished children (spirv-opt)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def largest(n: int) -> list[Path]:
    manifest = SHARED / "corpus" / "MANIFEST.tsv"
    rows = [r for r in csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t")
            if r["validates"] == "yes"]
    rows.sort(key=lambda r: -int(r["lines"]))
    return [SHARED / "corpus" / r["path"] for r in rows[:n]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5, help="best of this many")
    a = ap.parse_args(argv)
    if not (SHARED / "corpus").is_dir():
        print("needs ../shared/corpus")
        return 1
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, best of {a.runs}")
    print("| module | lines | -O | -O --print-all | CPU ratio | passes |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    for path in largest(a.files):
        words = read_words(str(path))
        cells, passes = [], 0
        for per_pass in (False, True):
            runs = []
            for _ in range(a.runs):
                c, w = cpu(), time.perf_counter()
                result = optimize.optimize(words, ["-O"], per_pass=per_pass)
                runs.append((time.perf_counter() - w, cpu() - c))
            passes = max(passes, len(result.passes))
            cells.append((min(r[0] for r in runs), min(r[1] for r in runs)))
        (w0, c0), (w1, c1) = cells
        lines = sum(1 for _ in path.open(encoding="utf-8"))
        print(f"| {path.name} | {lines:,} | {w0 * 1000:.0f} ms ({c0 * 1000:.0f} ms CPU) | "
              f"{w1 * 1000:.0f} ms ({c1 * 1000:.0f} ms CPU) | {c1 / c0:.1f}× | {passes} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
