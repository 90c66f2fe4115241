"""`spvls format`: lay files out as spirv-dis does, changing whitespace only."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from .. import fileio
from ..binary import files
from ..checks.diagnostic import ERROR
from ..features import formatting
from ..syntax.document import Document
from .inputs import expand, raw_text, read_source, terminated_lines
from .output import format_text


def register(p: argparse.ArgumentParser) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    mode.add_argument(
        "--diff",
        action="store_true",
        help="change nothing; print a unified diff of what would change, exit 1 if anything would",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="files, directories to search, or - (standard input to standard output)",
    )
    p.set_defaults(run=run)


def formatted(path: Path, text: str) -> tuple[str, str, int, int]:
    """(old, new, lines changed, first changed line) over the file's own text: a line holding bytes
    that are not UTF-8 is left as it is, so they survive (written back with surrogateescape)."""
    raw = raw_text(path)
    lines = terminated_lines(raw)
    changed = []
    for n, old, new in formatting.format_lines(Document(text)):
        if n < len(lines) and lines[n].startswith(old):
            lines[n] = new + lines[n][len(old) :]
            changed.append(n)
    return raw, "".join(lines), len(changed), (changed[0] if changed else -1)


def run(args: argparse.Namespace) -> int:
    """Rewrite files in spirv-dis's layout (whitespace only); with --check or --diff, change nothing."""
    unformatted = failed = 0
    for name in expand(args.files):
        path = Path(name)
        text, problems = read_source(path)
        if any(d.severity == ERROR for d in problems):
            failed += 1
            for d in problems:
                print(format_text(name, d), file=sys.stderr)
            continue
        old, new, count, first = formatted(path, text)
        if name == files.STDIO and not (args.check or args.diff):
            sys.stdout.flush()  # standard input to standard output, changed or not
            sys.stdout.buffer.write(new.encode("utf-8", errors="surrogateescape"))
            continue
        if not count:
            continue
        unformatted += 1
        if args.check:
            print(f"{name}: {count} line(s) not in spirv-dis layout (first: line {first + 1})")
            continue
        if args.diff:
            # git's a/ b/ prefixes for a relative path (`git apply` takes it); an absolute one as it is.
            before, after = (name, name) if path.is_absolute() else (f"a/{name}", f"b/{name}")
            diff = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), before, after)
            out = "".join(
                line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in diff
            )
            sys.stdout.flush()  # bytes, so that what is not UTF-8 shows as it is in the file
            sys.stdout.buffer.write(out.encode("utf-8", errors="surrogateescape"))
            continue
        try:
            fileio.write_atomic(
                path,
                new.encode("utf-8", errors="surrogateescape"),
                expect=old.encode("utf-8", errors="surrogateescape"),
            )
        except OSError as e:
            failed += 1
            print(f"{name}: error: {e.strerror or e}", file=sys.stderr)
            continue
        print(f"{name}: formatted {count} line(s)")
    return 1 if failed or ((args.check or args.diff) and unformatted) else 0
