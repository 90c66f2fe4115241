"""`spvls reflect` beside `spirv-cross --reflect` (Debian's) on the largest corpus modules, each a
cold process: wall and CPU time, best of a few runs, and spvls's CPU as a ratio of spirv-cross's.
spvls reads the text (assembled by SPIRV-Tools' library) and the binary spirv-as makes of it;
spirv-cross reads the binary. The split of spvls's time (interpreter, imports, reading, the model,
the reflection) is measured in one process.

    python bench/reflect.py              # the 3 largest modules, best of 5
    python bench/reflect.py --files 5 --runs 7
"""
from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
sys.path.insert(0, str(ROOT))

from spvls.binding import tools  # noqa: E402

# The phases of one `spvls reflect FILE`, timed in a fresh process (CPU seconds, one line each).
PHASES = """
import sys, time
t = time.process_time
a = t()
from spvls.cli import modules
from spvls.features import reflect
b = t()
w = modules.read_words(sys.argv[1])
c = t()
m = modules.numbered_module(w)
d = t()
reflect.to_json(reflect.reflect(m, None, None))
e = t()
print(a, b - a, c - b, d - c, e - d)
"""


def largest(n: int) -> list[tuple[Path, str]]:
    """The n largest corpus modules that validate, with their env."""
    manifest = SHARED / "corpus" / "MANIFEST.tsv"
    rows = [r for r in csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t")
            if r["validates"] == "yes"]
    rows.sort(key=lambda r: -int(r["lines"]))
    return [(SHARED / "corpus" / r["path"], r["env"]) for r in rows[:n]]


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(p.pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(cmd)} failed ({status})")
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime


def best(cmd: list[str], runs: int) -> tuple[float, float]:
    got = [run(cmd) for _ in range(runs)]
    return min(w for w, _ in got), min(c for _, c in got)


def phases(path: Path, runs: int) -> list[float]:
    """Interpreter start, imports, reading, the model, the reflection: CPU ms, best of runs each."""
    rows = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", PHASES, str(path)], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
        rows.append([float(x) * 1000 for x in out.split()])
    return [min(col) for col in zip(*rows, strict=True)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5, help="best of this many")
    a = ap.parse_args(argv)
    cross = shutil.which("spirv-cross")
    if cross is None or not (SHARED / "corpus").is_dir():
        print("needs spirv-cross (Debian's package) and ../shared/corpus")
        return 1
    spvls = [sys.executable, "-m", "spvls", "reflect"]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}, "
          f"best of {a.runs}")
    print("| module | lines | spirv-cross | spvls, binary | spvls, text | CPU ratio (text / spirv-cross) |\n"
          "| --- | ---: | ---: | ---: | ---: | ---: |")
    split = []
    with tempfile.TemporaryDirectory() as tmp:
        for source, env in largest(a.files):
            binary = Path(tmp) / (source.name + ".spv")
            subprocess.run([str(tools.find("spirv-as")), "--preserve-numeric-ids", "--target-env", env, "-o",
                            str(binary), str(source)], check=True)
            theirs = best([cross, str(binary), "--reflect"], a.runs)
            ours_binary = best([*spvls, str(binary)], a.runs)
            ours_text = best([*spvls, str(source)], a.runs)
            lines = sum(1 for _ in source.open(encoding="utf-8"))

            def cell(wall_cpu: tuple[float, float]) -> str:
                return f"{wall_cpu[0] * 1000:.0f} ms ({wall_cpu[1] * 1000:.0f} ms CPU)"

            ratio = ours_text[1] / max(theirs[1], 0.001)  # spirv-cross can take under a tick
            print(f"| {source.name} | {lines:,} | {cell(theirs)} | {cell(ours_binary)} | {cell(ours_text)} | "
                  f"{ratio:.0f}× |", flush=True)
            split.append((source.name, phases(source, a.runs)))
    print("\nspvls reflect's CPU by phase (ms), the text read:\n\n"
          "| module | interpreter | imports | reading | model | reflection |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, ms in split:
        print(f"| {name} | " + " | ".join(f"{x:.0f}" for x in ms) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
