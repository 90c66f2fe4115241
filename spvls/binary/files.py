"""Reading a path or standard input, and writing a file atomically."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from .words import is_binary

STDIO = "-"
_stdin: bytes | None = None


def read_bytes(name: str) -> bytes:
    """The bytes of a file, or of standard input for `-` (read once, then the same bytes again);
    OSError as reading raises it."""
    global _stdin
    if name == STDIO:
        if _stdin is None:
            _stdin = sys.stdin.buffer.read()
        return _stdin
    return Path(name).read_bytes()


def starts_binary(name: str) -> bool:
    """Whether the file (or standard input) starts with SPIR-V's magic number; False if unreadable."""
    try:
        if name == STDIO:
            return is_binary(read_bytes(name)[:4])
        with open(name, "rb") as f:
            return is_binary(f.read(4))
    except OSError:
        return False


def write_atomic(name: str | os.PathLike, data: bytes) -> None:
    """Write `data` to a temporary file beside the target and rename it over the target: the
    target is either its old self or the whole new content, never a half-written file."""
    target = Path(os.path.realpath(name))
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_output(name: str, data: bytes) -> None:
    """To standard output for `-`, else atomically to the file."""
    if name == STDIO:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(name, data)
