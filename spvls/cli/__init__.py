"""`spvls check FILE...` for CI and pre-commit; `spvls` alone serves LSP over stdio.

Each subcommand is a module here with `register(subparsers)`, which adds its parser and sets
`run=` to the function that carries it out; COMMANDS lists them in help order."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys

from .. import __version__
from . import assemble, cfg, check, disassemble, doc, format
from .check import check_file
from .inputs import expand, read_source

__all__ = ["check_file", "entry", "expand", "main", "read_source", "tune_gc"]

COMMANDS = (check, format, cfg, doc, disassemble, assemble)


def tune_gc() -> None:
    """Opening a module allocates about ten long-lived objects per line and frees few, so the cyclic
    GC's default pace (a pass every 700 allocations) re-scans live objects for nothing: with
    passes every 50,000 allocations a 100k-line module opens in half the time. Our models hold
    no reference cycles; reference counting frees them."""
    gc.set_threshold(50_000, 20, 20)


@functools.cache  # built once a process: in-process callers (the tests) run main() thousands of times
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spvls", description="SPIR-V assembly language server and checker")
    p.add_argument("--version", action="version", version=f"spvls {__version__}")
    p.add_argument("--stdio", action="store_true", help="serve LSP over stdio (the default)")
    p.add_argument("--tcp", action="store_true", help="serve LSP over TCP (for debugging)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=2087)
    sub = p.add_subparsers(dest="command")
    for command in COMMANDS:
        command.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    tune_gc()
    if args.command:
        return args.run(args)
    from ..server import serve

    return serve(tcp=args.tcp, host=args.host, port=args.port)


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
