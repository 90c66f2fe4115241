"""`spvls opt FILE FLAGS…`: the module as spirv-opt leaves it, in friendly text. spirv-opt's flags
go before or after FILE, in the order spirv-opt runs them."""

from __future__ import annotations

import argparse
import sys

from ..binary import optimize
from ..binding import tools
from ..spec import env as envs
from .inputs import FAILURES, report_failure
from .modules import InputError, read_words


def register(p: argparse.ArgumentParser) -> None:
    p.usage = "spvls opt [-h] [--stats] [--target-env ENV] FLAGS… FILE FLAGS…"
    p.epilog = "Every other argument is spirv-opt's pass flag (-O, -Os, --ccp, …), in the order given."
    p.allow_abbrev = False  # an abbreviation of ours must not take one of spirv-opt's flags
    p.add_argument("file", metavar="FILE", help="assembly text or a binary module, or - for standard input")
    p.add_argument(
        "--target-env",
        choices=envs.NAMES,
        metavar="ENV",
        help="assemble text for this env and optimize under it (default: its header's version)",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="on stderr, each pass's instruction counts before and after (spirv-opt --print-all: slower)",
    )
    p.set_defaults(run=run, passthrough="flags")


def run(args: argparse.Namespace) -> int:
    flags = list(args.flags)
    if args.target_env:
        flags.insert(0, f"--target-env={envs.tools_name(args.target_env)}")
    refused = optimize.refused_flags(args.flags)  # before FILE is read: `-o OUT FILE` names OUT as FILE
    if refused is not None:
        print(f"spvls opt: {refused}", file=sys.stderr)
        return 1
    try:
        result = optimize.optimize(read_words(args.file, args.target_env), flags, per_pass=args.stats)
    except FAILURES as e:
        return report_failure(e, args.file, args.file)
    except (InputError, optimize.OptimizeError, tools.Missing, TimeoutError) as e:
        print(f"spvls opt: {e}", file=sys.stderr)
        return 1
    if args.stats:
        for p in result.passes:
            print(f"{p.name}: {p.before} -> {p.after} instructions", file=sys.stderr)
        print(f"total: {result.before} -> {result.after} instructions", file=sys.stderr)
    sys.stdout.write(result.text)
    return 0
