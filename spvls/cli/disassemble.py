"""`spvls dis`: a binary module as the text the editor shows."""

from __future__ import annotations

import argparse

from ..binary import convert, files
from .inputs import FAILURES, report_failure


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a binary module, or - for standard input")
    p.add_argument("-o", dest="output", default=files.STDIO, metavar="OUT", help="output file (default: stdout)")
    p.add_argument("--raw-id", action="store_true", help="ids as numbers, not friendly names")
    p.add_argument("--no-header", action="store_true", help="no header comments")
    p.add_argument("--comment", action="store_true", help="add comments (as spirv-dis --comment)")
    p.add_argument("--nested-indent", action="store_true", help="indent blocks by nesting (as spirv-dis)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """`path: error: …` and exit 1 on a binary it cannot read."""
    opts = convert.Options(
        raw_id=args.raw_id, no_header=args.no_header, comment=args.comment, nested_indent=args.nested_indent
    )
    try:
        dis = convert.disassemble(files.read_bytes(args.file), opts)
        files.write_output(args.output, dis.text.encode("utf-8"))
    except FAILURES as e:
        return report_failure(e, args.file, args.file)
    return 0
