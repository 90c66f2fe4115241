"""`spvls as`: text to a binary module, honouring the header comments `spvls dis` writes."""

from __future__ import annotations

import argparse
import re
import sys

from ..binary import convert, files, words
from ..spec import env as envs
from .inputs import FAILURES, decode_source, report_failure
from .output import format_text


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="assembly text, or - for standard input")
    p.add_argument(
        "-o",
        dest="output",
        metavar="OUT",
        help="output file, - for stdout (default: FILE with .spv for its .spvasm/.spv.asm/.asm, else FILE.spv)",
    )
    p.add_argument(
        "--target-env",
        choices=envs.NAMES,
        metavar="ENV",
        help="as for check; default: the text's '; Version:' header, else spv1.6",
    )
    p.add_argument(
        "--ids-from", metavar="BINARY", help="number the names as this binary (the text's origin) numbered them"
    )
    p.add_argument(
        "--refuse-invalid",
        action="store_true",
        help="write nothing when spirv-val rejects the module (default: write it and warn)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Nothing is written unless the text assembles; a file is replaced atomically."""
    out = args.output or (
        files.STDIO
        if args.file == files.STDIO
        else re.sub(r"(\.spv\.asm|\.spvasm|\.asm)?$", ".spv", args.file, count=1)
    )
    try:
        text, problems = decode_source(files.read_bytes(args.file))
        if problems:
            print(format_text(args.file, problems[0]), file=sys.stderr)
            return 1
        original = words.read(files.read_bytes(args.ids_from)) if args.ids_from else None
        result = convert.assemble(text, args.target_env, original)
        invalid = convert.validation(text, args.target_env, original)
        if invalid is not None:
            where = f"{invalid.line + 1}:1:" if invalid.line is not None else ""
            verdict = "error: not written:" if args.refuse_invalid else "warning: written, but"
            first = invalid.message.splitlines()[0] if invalid.message else "invalid"
            print(f"{args.file}:{where} {verdict} spirv-val rejects it: {first}", file=sys.stderr)
            if args.refuse_invalid:
                return 1
        files.write_output(out, words.to_bytes(result, original.big_endian if original else False))
    except FAILURES as e:
        return report_failure(e, args.file, args.ids_from)
    except convert.AssembleError as e:
        where = f"{e.line + 1}:{(e.column or 0) + 1}:" if e.line is not None else ""
        print(f"{args.file}:{where} error: {e.message}", file=sys.stderr)
        return 1
    return 0
