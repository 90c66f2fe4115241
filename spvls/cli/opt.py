"""`spvls opt FILE FLAGS…`: the module as spirv-opt leaves it, in friendly text."""

from __future__ import annotations

import argparse
import sys

from ..binary import optimize
from ..binding import tools
from ..spec import env as envs
from .inputs import FAILURES, report_failure
from .modules import InputError, read_words


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="assembly text or a binary module, or - for standard input")
    p.add_argument(
        "--target-env", choices=envs.NAMES, metavar="ENV", help="assemble text for this env (default: its header's)"
    )
    p.add_argument("--stats", action="store_true", help="on stderr, each pass's instruction counts before and after")
    p.add_argument(
        "flags", nargs=argparse.REMAINDER, metavar="FLAGS", help="spirv-opt's pass flags (-O, -Os, --ccp, …)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # --stats is spvls's (spirv-opt has no such flag), wherever it is given.
    stats = args.stats or "--stats" in args.flags
    flags = [f for f in args.flags if f != "--stats"]
    try:
        result = optimize.optimize(read_words(args.file, args.target_env), flags)
    except FAILURES as e:
        return report_failure(e, args.file, args.file)
    except (InputError, optimize.OptimizeError, tools.Missing, TimeoutError) as e:
        print(f"spvls opt: {e}", file=sys.stderr)
        return 1
    if stats:
        for p in result.passes:
            print(f"{p.name}: {p.before} -> {p.after} instructions", file=sys.stderr)
        print(f"total: {result.before} -> {result.after} instructions", file=sys.stderr)
    sys.stdout.write(result.text)
    return 0
