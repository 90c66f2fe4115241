"""`spvls check FILE...` for CI and pre-commit; `spvls` alone serves LSP over stdio."""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import re
import sys
from pathlib import Path

from .checks import analyze
from .checks.diagnostic import ERROR, WARNING, Diagnostic
from .features import formatting
from .spec import env as envs
from .syntax.document import Document

SPIRV_MAGIC = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")
_SEVERITY_WORD = {"information": "info"}


def read_source(path: Path) -> tuple[str, list[Diagnostic]]:
    """The file's text, with diagnostics for what made it hard to read. Never raises."""
    try:
        data = path.read_bytes()
    except OSError as e:
        return "", [Diagnostic(0, 0, 0, ERROR, "io.unreadable", f"cannot read {path}: {e.strerror or e}")]
    if data[:4] in SPIRV_MAGIC:
        return "", [Diagnostic(0, 0, 0, ERROR, "syntax.binary",
                               "this is a SPIR-V binary module, not assembly text: run spirv-dis on it first")]
    if not data.strip():
        return "", [Diagnostic(0, 0, 0, WARNING, "syntax.empty", "the file is empty: no SPIR-V module here")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", errors="replace")
        line = data[: e.start].count(b"\n")
        col = len(data[: e.start].rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace"))
        return text, [Diagnostic(line, col, col + 1, ERROR, "syntax.encoding",
                                 f"byte 0x{data[e.start]:02x} is not UTF-8: SPIR-V assembly is UTF-8 text "
                                 "(shown here as U+FFFD)")]


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


def format_text(path: str, d: Diagnostic) -> str:
    sev = _SEVERITY_WORD.get(d.severity, d.severity)
    return f"{path}:{d.line + 1}:{d.start + 1}: {sev}: {d.message} [{d.code}]"


def format_json(path: str, d: Diagnostic) -> dict:
    return {"path": path, "line": d.line + 1, "column": d.start + 1, "endColumn": d.end + 1,
            "severity": d.severity, "code": d.code, "message": d.message,
            "related": [{"line": r.line + 1, "column": r.start + 1, "message": r.message} for r in d.related],
            "fixes": [{"title": f.title, "edits": [{"line": e.line + 1, "column": e.start + 1, "endColumn": e.end + 1,
                                                   "text": e.text} for e in f.edits]} for f in d.fixes]}


def expand(names: list[str]) -> list[str]:
    """Files as given; a directory stands for the SPIR-V assembly under it: *.spvasm, *.spv.asm,
    and any other file whose first line is spirv-dis's `; SPIR-V` header."""
    out = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            out.append(name)
            continue
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            if f.name.endswith((".spvasm", ".spv.asm")) or _has_header(f):
                out.append(str(f))
    return out


def _has_header(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"; SPIR-V"
    except OSError:
        return False


def cmd_check(args) -> int:
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


def _terminated_lines(text: str) -> list[str]:
    """The text's lines with their own terminators (\n, \r\n or \r), numbered as Document numbers them."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    return [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]


def cmd_format(args) -> int:
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
        lines = _terminated_lines(text)
        for n, old, new in changes:
            lines[n] = new + lines[n][len(old):]
        path.write_text("".join(lines), encoding="utf-8", newline="")
        print(f"{name}: formatted {len(changes)} line(s)")
    return 1 if failed or (args.check and unformatted) else 0


def tune_gc() -> None:
    """Opening a module allocates about ten long-lived objects per line and frees few, so the cyclic
    GC's default pace (a pass every 700 allocations) re-scans live objects for nothing: with
    passes every 50,000 allocations a 100k-line module opens in half the time. Our models hold
    no reference cycles; reference counting frees them."""
    gc.set_threshold(50_000, 20, 20)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spvls", description="SPIR-V assembly language server and checker")
    parser.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    parser.add_argument("--tcp", action="store_true", help="serve LSP over TCP (for debugging)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="check files and print diagnostics")
    check.add_argument("--target-env", choices=envs.NAMES, metavar="ENV",
                       help="spirv-val's target env (spv1.0..spv1.6, vulkan1.0..vulkan1.4, universal1.x); "
                            "default: the file's '; Version:' header, else spv1.6")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("files", nargs="+", metavar="FILE", help="files, or directories to search")
    fmt = sub.add_parser("format", help="lay files out as spirv-dis does (whitespace only)")
    fmt.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    fmt.add_argument("files", nargs="+", metavar="FILE", help="files, or directories to search")
    args = parser.parse_args(argv)
    tune_gc()
    if args.command == "check":
        return cmd_check(args)
    if args.command == "format":
        return cmd_format(args)
    from .server import serve
    return serve(tcp=args.tcp, host=args.host, port=args.port)


def entry() -> None:
    """The console script. Exits without tearing down the interpreter: freeing the millions of
    small objects a 100k-line module leaves takes a fifth of the check, and nothing is left to close."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the LSP client may have closed it already
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
