"""`spvls cfg`: draw a function's control-flow graph as Graphviz DOT or SVG (spvls.features.cfg_dot)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..binary import convert, files
from ..checks import analyze
from ..checks.diagnostic import Diagnostic
from ..features import cfg_dot
from ..spec import env as envs
from ..syntax.document import Document
from .inputs import FAILURES, read_source, report_failure
from .output import format_text


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--function",
        metavar="NAME",
        help="a function's id (with or without %%) or name, or 'all'; default: the first entry point's",
    )
    p.add_argument("--format", choices=("dot", "svg"), default="dot", help="svg needs Graphviz's dot on PATH")
    p.add_argument(
        "--target-env", choices=envs.NAMES, metavar="ENV", help="as for check: the env whose rules mark the picture"
    )
    p.add_argument(
        "--timeout", type=float, default=60, metavar="SECONDS", help="stop Graphviz after this long (svg; default 60)"
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    p.add_argument("file", metavar="FILE", help="SPIR-V assembly or a binary module")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    problems: list[Diagnostic] = []
    if files.starts_binary(args.file):  # a binary module: the graph of its disassembly, as `spvls dis` prints it
        try:
            text = convert.disassemble(files.read_bytes(args.file)).text
        except FAILURES as e:
            return report_failure(e, args.file, args.file)
    else:
        text, problems = read_source(Path(args.file))
    if not text:
        for d in problems:
            print(format_text(args.file, d), file=sys.stderr)
        return 1
    a = analyze(Document(text, uri=args.file), args.target_env)
    try:
        out = cfg_dot.to_dot(cfg_dot.pictures(a.module, problems + a.diagnostics, args.function))
    except LookupError as e:
        print(f"spvls cfg: {args.file}: {e}", file=sys.stderr)
        return 2
    if args.format == "svg":
        try:
            svg = cfg_dot.render_svg(out, args.timeout)
        except cfg_dot.GraphvizError as e:
            print(f"spvls cfg: {args.file}: {e}", file=sys.stderr)
            return 2
        if svg is None:
            print(f"spvls cfg: {cfg_dot.SVG_HELP}", file=sys.stderr)
            return 2
        out = svg
    try:
        files.write_output(args.output or files.STDIO, out.encode("utf-8"))
    except OSError as e:
        return report_failure(e, args.output, args.file)
    return 0
