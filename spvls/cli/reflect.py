"""`spvls reflect`: the module's interface as JSON, as `spirv-cross --reflect` prints it."""

from __future__ import annotations

import argparse
import sys

from ..features import reflect
from ..spec import env as envs
from .inputs import FAILURES, report_failure
from .modules import InputError, numbered_module, read_words


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="assembly text or a binary module, or - for standard input")
    p.add_argument("--entry", metavar="NAME", help="whose interface (default: the first entry point's)")
    p.add_argument(
        "--stage",
        choices=reflect.STAGES,
        metavar="STAGE",
        help="of the entry points named so, the one of this stage (" + ", ".join(reflect.STAGES) + ")",
    )
    p.add_argument(
        "--target-env", choices=envs.NAMES, metavar="ENV", help="assemble text for this env (default: its header's)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        m = numbered_module(read_words(args.file, args.target_env))
        out = reflect.to_json(reflect.reflect(m, args.entry, args.stage))
    except FAILURES as e:
        return report_failure(e, args.file, args.file)
    except (InputError, LookupError) as e:
        print(f"spvls reflect: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(out + "\n")
    return 0
