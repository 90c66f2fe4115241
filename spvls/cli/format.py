"""`spvls format`: lay files out as spirv-dis does, changing whitespace only."""
from __future__ import annotations

import sys
from pathlib import Path

from ..checks.diagnostic import ERROR
from ..features import formatting
from ..syntax.document import Document
from .files import expand, read_source, terminated_lines
from .output import format_text


def register(sub) -> None:
    p = sub.add_parser("format", help="lay files out as spirv-dis does (whitespace only)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    p.add_argument("files", nargs="+", metavar="FILE", help="files, or directories to search")
    p.set_defaults(run=run)


def run(args) -> int:
    """Rewrite files in spirv-dis's layout (whitespace only); with --check, list those it would change."""
    unformatted = failed = 0
    for name in expand(args.files):
        path = Path(name)
        text, problems = read_source(path)
        if any(d.severity == ERROR for d in problems):
            failed += 1
            for d in problems:
                print(format_text(name, d), file=sys.stderr)
            continue
        changes = formatting.format_lines(Document(text))
        if not changes:
            continue
        unformatted += 1
        if args.check:
            print(f"{name}: {len(changes)} line(s) not in spirv-dis layout (first: line {changes[0][0] + 1})")
            continue
        lines = terminated_lines(text)
        for n, old, new in changes:
            lines[n] = new + lines[n][len(old):]
        path.write_text("".join(lines), encoding="utf-8", newline="")
        print(f"{name}: formatted {len(changes)} line(s)")
    return 1 if failed or (args.check and unformatted) else 0
