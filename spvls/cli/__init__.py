"""`spvls check FILE...` for CI and pre-commit; `spvls` alone serves LSP over stdio.

Each subcommand is a module here with `register(parser)`, which adds its arguments and sets `run=`
to the function that carries it out. COMMANDS names them in help order with their one-line help,
so that a run imports only the module of the command it runs (and `--version` none)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib
import os
import sys
from typing import Any

from .. import __version__

__all__ = ["COMMANDS", "check_file", "entry", "expand", "main", "read_source", "tune_gc"]

# name -> (module, help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "check files and print diagnostics"),
    "format": ("format", "lay files out as spirv-dis does (whitespace only)"),
    "cfg": ("cfg", "draw a function's control-flow graph (Graphviz DOT or SVG)"),
    "doc": ("doc", "explain an opcode, enumerant, extension, extended instruction or diagnostic code"),
    "dis": ("disassemble", "disassemble a binary module as the editor shows it"),
    "as": ("assemble", "assemble text into a binary module"),
    "reflect": ("reflect", "the module's interface as JSON (as spirv-cross --reflect)"),
    "opt": ("opt", "the module as spirv-opt's passes leave it, as friendly text"),
    "diff": ("diff", "compare two modules by structure (spirv-diff), as a unified diff in friendly names"),
}
# Top-level options that take a value: the word after them is not a command.
_VALUED = ("--host", "--port", "--source-root")


def __getattr__(name: str) -> Any:
    # The in-process API (tests, bench) without loading it for every run of the console script.
    if name == "check_file":
        return importlib.import_module(".check", __name__).check_file
    if name in ("expand", "read_source"):
        return getattr(importlib.import_module(".inputs", __name__), name)
    raise AttributeError(name)


def tune_gc() -> None:
    """Opening a module allocates about ten long-lived objects per line and frees few, so the cyclic
    GC's default pace (a pass every 700 allocations) re-scans live objects for nothing: with
    passes every 50,000 allocations a 100k-line module opens in half the time. Our models hold
    no reference cycles; reference counting frees them."""
    gc.set_threshold(50_000, 20, 20)


# What spvls imports to run at all. Editors run `spvls --version` to learn whether an interpreter has a
# working spvls, so it must fail where these are missing, though it imports none of them.
REQUIRED = ("lark", "pygls", "lsprotocol")


class _Version(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        from importlib.util import find_spec

        missing = [name for name in REQUIRED if find_spec(name) is None]
        if missing:
            parser.exit(
                1,
                f"spvls {__version__} cannot run with {sys.executable}: {', '.join(missing)} not installed "
                f"(install spvls with pip, which brings them)\n",
            )
        print(f"spvls {__version__}{build()}")
        parser.exit(0)


def build() -> str:
    """' (compiled)' when the parser is a compiled extension module (tools/compiled.py), else ''.
    Looked for as a file: importing would cost what `--version` must not."""
    syntax = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "syntax")
    try:
        compiled = any(n.startswith("parser.") and n.endswith((".so", ".pyd")) for n in os.listdir(syntax))
    except OSError:
        compiled = False
    return " (compiled)" if compiled else ""


def command_of(argv: list[str]) -> str | None:
    """The subcommand argv names, found before parsing so only its module is imported."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif word == "--" or not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


@functools.cache  # built once a process and command: in-process callers (the tests) run main() thousands of times
def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, with the arguments of `command` only (every command's name and help)."""
    p = argparse.ArgumentParser(prog="spvls", description="SPIR-V assembly language server and checker")
    p.add_argument("--version", action=_Version, nargs=0, help="print the version and exit (1: it cannot run here)")
    p.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    p.add_argument("--tcp", action="store_true", help="serve LSP over TCP (for debugging)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=2087)
    p.add_argument(
        "--source-root",
        action="append",
        default=[],
        metavar="DIR",
        help="the server may also read shader source files a module names under DIR (besides the "
        "workspace folders and the module's own folder); repeatable",
    )
    sub = p.add_subparsers(dest="command")
    for name, (module, help) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help, description=help)
        if name == command:
            importlib.import_module(f".{module}", __name__).register(command_parser)
    return p


def _fork_validator(args: argparse.Namespace) -> None:
    """A single-process `check` that will validate forks its validator's process from itself
    (check.check_text, at the first file's validation). Read from the parsed arguments, which
    know every spelling argparse accepts (`--job 2` as well as `-j2`)."""
    if args.command == "check" and args.spirv_val and args.jobs == 1:
        setattr(importlib.import_module(".check", __name__), "fork_validator", True)  # noqa: B010


def main(argv: list[str] | None = None) -> int:
    tune_gc()  # before the command's imports, which allocate as much as a small module's check
    words = sys.argv[1:] if argv is None else argv
    command = command_of(words)
    p = parser(command)
    args, rest = p.parse_known_args(words)
    if argv is None:  # the console script; in-process callers (tests) start it on their first job
        _fork_validator(args)
    # A command that hands its other arguments to a program (opt: spirv-opt's flags) names where.
    passthrough = getattr(args, "passthrough", None)
    if passthrough:
        setattr(args, passthrough, rest)
    elif rest:
        p.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command:
        code: int = args.run(args)
        return code
    from ..server import serve

    return serve(tcp=args.tcp, host=args.host, port=args.port, source_roots=args.source_root)


def entry() -> None:
    """The console script. Exits without tearing down the interpreter: freeing the millions of
    small objects a 100k-line module leaves takes a fifth of the check. Only the validator's
    process is left to close."""
    try:
        code = main()
    except BrokenPipeError:  # `spvls check DIR | head -1`: the reader has what it wanted
        code = 1
    workers = sys.modules.get("spvls.binding.worker")
    if workers is not None:
        workers.close_shared()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the LSP client may have closed it already
            stream.flush()
    os._exit(code)
