"""`spvls diff A B`: two modules (text or binary, any mix) compared by structure, as a unified diff."""

from __future__ import annotations

import argparse
import sys

from ..binary import compare
from ..binding import tools
from .inputs import FAILURES, report_failure
from .modules import InputError, read_words


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A", help="assembly text or a binary module")
    p.add_argument("b", metavar="B", help="assembly text or a binary module")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Exit 0 when they are the same, 1 when they differ (as diff), 2 when they cannot be compared."""
    words = []
    for name in (args.a, args.b):
        try:
            words.append(read_words(name))
        except FAILURES as e:
            report_failure(e, name, name)  # the file that could not be read, not always A
            return 2
        except InputError as e:
            print(f"spvls diff: {e}", file=sys.stderr)
            return 2
    try:
        result = compare.compare(words[0], words[1], args.a, args.b)
    except FAILURES as e:
        report_failure(e, args.a, args.a)
        return 2
    except (InputError, compare.CompareError, tools.Missing, TimeoutError) as e:
        print(f"spvls diff: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(result.diff)
    return 1 if result.diff else 0
