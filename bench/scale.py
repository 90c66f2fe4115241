"""Absolute figures for issue 14's growth inputs (points 11-15): `spvls check` as a cold process on
each, wall time and peak RSS, against the goal (no input under 1 MB over 2 s or 300 MB).

    python bench/scale.py            # the issue's sizes
    python bench/scale.py --scale 2  # each size doubled

The `own` column is the same check with `--no-spirv-val`: spvls' own work, without SPIRV-Tools'
assembler and validator (which run in their worker process, stopped at `--spirv-val-timeout`).

Wall time depends on the machine's load: this is a bench, not a test (tests/scale asserts ratios).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.scale.inputs import CASES, slow_cfg  # noqa: E402

GOAL_S, GOAL_MB = 2.0, 300


def _run(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS in MB of one process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, _status, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3, help="best of this many")
    a = ap.parse_args(argv)
    over = 0
    print("| input | n | size | check (wall) | check (CPU) | own (wall) | peak RSS | goal (2 s, 300 MB) |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (gen, _, n) in CASES.items():
            n = int(n * a.scale)
            path = Path(tmp) / f"{name}.spvasm"
            path.write_text(gen(n), encoding="utf-8")
            runs = [_run([sys.executable, "-m", "spvls", "check", str(path)]) for _ in range(a.runs)]
            secs, cpu, rss = min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)
            own = min(_run([sys.executable, "-m", "spvls", "check", "--no-spirv-val", str(path)])[0]
                      for _ in range(a.runs))
            ok = min(secs, cpu) <= GOAL_S and rss <= GOAL_MB  # CPU time: the machine may be shared
            over += not ok
            print(f"| {name} | {n:,} | {path.stat().st_size / 1e6:.2f} MB | {secs:.2f} s | {cpu:.2f} s | {own:.2f} s | {rss} MB | "
                  f"{'met' if ok else 'MISSED'} |", flush=True)
        # The CFG view's layout and construct nesting (issue 31): `spvls cfg` on selections nested
        # 5,000 deep, the DOT only (Graphviz's own layout is not spvls').
        n = int(5000 * a.scale)
        path = Path(tmp) / "nested.spvasm"
        path.write_text(slow_cfg(n), encoding="utf-8")
        runs = [_run([sys.executable, "-m", "spvls", "cfg", str(path), "-o", str(Path(tmp) / "n.dot")])
                for _ in range(a.runs)]
        secs, cpu, rss = min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)
        ok = min(secs, cpu) <= GOAL_S and rss <= GOAL_MB
        over += not ok
        print(f"| spvls cfg: nested selections | {n:,} | {path.stat().st_size / 1e6:.2f} MB | {secs:.2f} s | "
              f"{cpu:.2f} s | | {rss} MB | {'met' if ok else 'MISSED'} |", flush=True)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
