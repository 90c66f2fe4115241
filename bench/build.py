"""CPU milliseconds a first open spends parsing (the Document) and building the model (the Module)
of a never-seen generated module, in both builds: pure Python in this process, the compiled build
(tools/compiled.py, from its cache) in a child process, unless --pure-only. Each run empties the
parser's and the matcher's caches by shape first, as a new text's open finds them; best of N.

    python bench/build.py [--runs 5] [--sizes 10000 100000] [--pure-only]

CPU time (time.process_time), so the machine's load matters little. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.append(str(HERE.parent))  # last: the compiled copy a child is given on PYTHONPATH comes first

from common import compiled_env  # noqa: E402
from generate import module as generated  # noqa: E402


def measure(sizes: list[int], runs: int) -> dict[str, list[float]]:
    """{size: [parse ms, model ms]}, each the best of `runs`, in this process' build of spvls."""
    from spvls.model import operands
    from spvls.model.module import build
    from spvls.spec.grammar import load
    from spvls.syntax import parser
    from spvls.syntax.document import Document

    grammar = load()
    build(Document(generated(1000)), grammar, (1, 6))  # Lark, the grammar and the imports: loaded
    out = {}
    for n in sizes:
        text = generated(n)
        best = [float("inf"), float("inf")]
        for _ in range(runs):
            for cached in (parser._parse_whole, parser._plan, parser._lark_template):
                cached.cache_clear()
            parser._templates.clear()
            operands._templates.clear()
            gc.collect()
            t0 = time.process_time()
            doc = Document(text)
            t1 = time.process_time()
            m = build(doc, grammar, (1, 6))
            t2 = time.process_time()
            best = [min(best[0], t1 - t0), min(best[1], t2 - t1)]
            del m, doc
            gc.unfreeze()  # what the builds froze (syntax/heap.py) goes back to the collector
            gc.collect()
        out[str(n)] = [best[0] * 1000, best[1] * 1000]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="best of this many")
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    ap.add_argument("--pure-only", action="store_true", help="leave out the compiled build")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child's answer
    a = ap.parse_args(argv)
    if a.json:
        from spvls.syntax import parser

        print(json.dumps({"parser": parser.__file__, **measure(a.sizes, a.runs)}))
        return 0
    columns = {"pure": measure(a.sizes, a.runs)}
    if not a.pure_only:
        with tempfile.TemporaryDirectory(prefix="spvls-bench-build-") as tmp:
            env = compiled_env(Path(tmp))
            args = [sys.executable, __file__, "--json", "--runs", str(a.runs), "--sizes", *map(str, a.sizes)]
            child = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
            columns["compiled"] = json.loads(child.stdout)
            if not columns["compiled"]["parser"].endswith(".so"):
                raise SystemExit(f"the compiled build was not imported: {columns['compiled']['parser']}")
    names = list(columns)
    print("| lines | " + " | ".join(f"parse, {b} | model, {b}" for b in names) + " |")
    print("| ---: |" + " ---: | ---: |" * len(names))
    for n in a.sizes:
        cells = " | ".join(f"{columns[b][str(n)][0]:.0f} | {columns[b][str(n)][1]:.0f}" for b in names)
        print(f"| {n:,} | {cells} |")
    print(f"(CPU ms, best of {a.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
