"""`spvls check`: diagnostics for files, for CI."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..checks import analyze
from ..checks.diagnostic import ERROR, Diagnostic
from ..spec import env as envs
from ..syntax.document import Document
from .files import expand, read_source
from .output import format_json, format_text


def register(sub) -> None:
    p = sub.add_parser("check", help="check files and print diagnostics")
    p.add_argument("--target-env", choices=envs.NAMES, metavar="ENV",
                   help="spirv-val's target env (spv1.0..spv1.6, vulkan1.0..vulkan1.4, universal1.x); "
                        "default: the file's '; Version:' header, else spv1.6")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("files", nargs="+", metavar="FILE", help="files, or directories to search")
    p.set_defaults(run=run)


# The last file's analysis is left for the process exit to drop (entry() skips interpreter
# teardown): freeing a 100k-line module one object at a time takes a tenth of a second.
_last_analysis = None


def check_file(path: Path, target_env: str | None) -> list[Diagnostic]:
    global _last_analysis
    text, problems = read_source(path)
    if any(d.severity == ERROR for d in problems) and not text:
        return problems
    _last_analysis = None
    _last_analysis = analyze(Document(text, uri=str(path)), target_env) if text else None
    diags = _last_analysis.diagnostics if _last_analysis else []
    return sorted(problems + diags, key=lambda d: (d.line, d.start))


def run(args) -> int:
    errors = 0
    records = []
    for name in expand(args.files):
        for d in check_file(Path(name), args.target_env):
            errors += d.severity == ERROR
            if args.format == "json":
                records.append(format_json(name, d))
            else:
                print(format_text(name, d))
    if args.format == "json":
        print(json.dumps(records, indent=1))
    elif errors:
        print(f"{errors} error(s)", file=sys.stderr)
    return 1 if errors else 0
