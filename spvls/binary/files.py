"""Reading a path or standard input, and writing a file or standard output."""

from __future__ import annotations

import os
import stat
import sys

from .. import fileio
from .words import is_binary

STDIO = "-"
# A module read whole: larger than any compiler's output, small enough that refusing takes no time.
MAX_BYTES = 256 << 20
_piped: dict[str, bytes] = {}  # standard input and FIFOs, read once: a second read would find them empty


def read_bytes(name: str, *, pipe: bool = True) -> bytes:
    """The bytes of a regular file (or, with `pipe`, a FIFO named on a command line, or standard input
    for `-`), at most MAX_BYTES; OSError (fileio.ReadRefused for a device, a directory, a FIFO without
    `pipe`, a larger file) as reading raises it."""
    if name in _piped:
        return _piped[name]
    if name == STDIO:
        _piped[name] = sys.stdin.buffer.read(MAX_BYTES + 1)
        if len(_piped[name]) > MAX_BYTES:
            raise fileio.ReadRefused("<stdin>", f"over the {MAX_BYTES}-byte limit: not read")
        return _piped[name]
    data = fileio.read_regular(name, MAX_BYTES, pipe=pipe)
    if pipe and _is_fifo(name):
        _piped[name] = data
    return data


def _is_fifo(name: str) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(name).st_mode)
    except OSError:
        return False


def starts_binary(name: str) -> bool:
    """Whether the file (standard input, a FIFO named on the command line) starts with SPIR-V's
    magic number; False if unreadable or not a file."""
    try:
        if name in _piped or name == STDIO or _is_fifo(name):
            return is_binary(read_bytes(name)[:4])
        fd = fileio.open_regular(name, MAX_BYTES)
    except OSError:
        return False
    try:
        return is_binary(os.read(fd, 4))
    except OSError:
        return False
    finally:
        os.close(fd)


def write_output(name: str, data: bytes) -> None:
    """To standard output for `-`, else atomically to the file."""
    if name == STDIO:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        fileio.write_atomic(name, data)
