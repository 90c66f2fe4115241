"""CPU milliseconds the uniformity analysis (model/uniformity.py) takes on generated modules: the
whole module analysed cold (what the first check, the first semantic tokens or the first hover of a
module pays), and a keystroke's share: one edited function analysed again, with its callers' summaries
compared (what `Family.widen` and the re-check of that function pay).

    python bench/uniformity.py [--runs 5] [--sizes 10000 100000]

CPU time (time.process_time), so the machine's load matters little. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from generate import module as generated  # noqa: E402

from spvls.checks import analyze  # noqa: E402
from spvls.checks.families import uniformity as family  # noqa: E402
from spvls.model import uniformity as uni  # noqa: E402
from spvls.syntax.document import Document  # noqa: E402


def measure(lines: int, runs: int) -> dict[str, float]:
    doc = Document(generated(lines))
    a = analyze(doc, "vulkan1.3")
    m = a.module
    cold = []
    for _ in range(runs):
        uni._cache(m).clear()
        gc.collect()
        t = time.process_time()
        uni.of_module(m)
        cold.append(time.process_time() - t)
    keys = []
    fns = [f for f in m.functions if any(i.opname == "OpLoad" for i in m.insts_in(f))]
    fns = fns[:: max(1, len(fns) // 60)]
    for fn in fns:
        n = next(i.line for i in m.insts_in(fn) if i.opname == "OpLoad")
        doc.replace((n, len(doc.texts[n])), (n, len(doc.texts[n])), " ")
        t = time.process_time()
        a = analyze(doc, "vulkan1.3", a)
        mid = time.process_time()
        doc.replace((n, len(doc.texts[n]) - 1), (n, len(doc.texts[n])), "")
        a = analyze(doc, "vulkan1.3", a)
        assert a.rechecked is not None, "the edit was not taken in place"
        # What uniformity adds to that keystroke: its function analysed again and checked.
        uni._cache(m).pop(fn.id, None)
        u0 = time.process_time()
        family.widen(m, fn)
        family.check(m, fn)
        keys.append((time.process_time() - u0, mid - t))
    share = sorted(k for k, _ in keys)
    whole = sorted(w for _, w in keys)
    return {
        "lines": len(doc.lines),
        "functions": len(m.functions),
        "cold_ms": min(cold) * 1000,
        "key_p50_ms": statistics.median(share) * 1000,
        "key_p95_ms": share[int(len(share) * 0.95) - 1] * 1000,
        "analyze_key_p95_ms": whole[int(len(whole) * 0.95) - 1] * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = ap.parse_args()
    print("lines    functions  whole module cold  keystroke share p50 / p95  analyze() p95 per keystroke")
    for size in args.sizes:
        r = measure(size, args.runs)
        print(
            f"{r['lines']:>7}  {r['functions']:>9}  {r['cold_ms']:>14.0f} ms  "
            f"{r['key_p50_ms']:>9.2f} / {r['key_p95_ms']:.2f} ms  {r['analyze_key_p95_ms']:>20.1f} ms"
        )


if __name__ == "__main__":
    main()
