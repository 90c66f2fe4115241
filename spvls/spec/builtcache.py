"""Facts that take long to build and never change for given inputs (the grammar's indexes, the
parser's tables), kept pickled in the user's private cache directory so a new process loads them
instead of building them again. Each entry's file is named by its inputs too, so that installs that
differ (a compiled build beside a pure one, two virtual environments) keep one each rather than
rebuilding over one another's; the few most recent of a name are kept.

A file is used only from a directory that is the user's own and closed to others (0700), and only
if it is a regular file of the user's, not too large, whose header names the same inputs: pickle
runs code, so the directory must be as trusted as the user's own files. Anything else (a missing,
foreign, stale or corrupt entry, a read-only disk) means the facts are built in memory as if there
were no cache; a failure to save is silent, since nothing is lost but time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from .. import fileio

T = TypeVar("T")

MAX_BYTES = 64 << 20
KEPT = 4  # entries of one name, each from other inputs, kept on disk
_MAGIC = b"spvls-built-1\n"
_DIGEST = 32


def key_of(parts: Iterable[bytes | str]) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest().encode()


def file_stamp(path: Path) -> str:
    """What identifies an input file without reading it."""
    st = path.stat()
    return f"{path}\0{st.st_size}\0{st.st_mtime_ns}"


def built(name: str, key: bytes, build: Callable[[], T]) -> T:
    """The value `build()` returns, loaded from the cache entry `name` when it was built from the
    inputs `key` names; built (and saved) otherwise."""
    if os.environ.get("SPVLS_NO_BUILT_CACHE", "") not in ("", "0"):
        return build()
    folder = fileio.private_dir("built")
    if folder is None:
        return build()
    path = entry(folder, name, key)
    header = _MAGIC + key + b"\n"
    data = fileio.read_private(path, MAX_BYTES)
    if data is not None and data.startswith(header):
        digest, body = data[len(header) : len(header) + _DIGEST], data[len(header) + _DIGEST :]
        if digest == _digest(body):  # else torn or altered: built again below
            try:
                value: T = pickle.loads(body)
                return value
            except Exception:  # written by another Python or spvls: built again below
                pass
    value = build()
    try:
        body = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a value that does not pickle is simply not cached
        return value
    _save(path, header + _digest(body) + body)
    _prune(folder, name)
    return value


def entry(folder: Path, name: str, key: bytes) -> Path:
    """The file of entry `name` built from the inputs `key` names."""
    return folder / f"{key[:16].decode('ascii', 'replace')}-{name}"


def _prune(folder: Path, name: str) -> None:
    """All but the KEPT most recently written entries of `name` removed."""
    with contextlib.suppress(OSError):
        found = []
        for p in folder.glob(f"*-{name}"):
            with contextlib.suppress(OSError):
                found.append((p.lstat().st_mtime_ns, p))
        for _mtime, p in sorted(found, reverse=True)[KEPT:]:
            with contextlib.suppress(OSError):
                p.unlink()


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=_DIGEST).digest()


def _save(path: Path, payload: bytes) -> None:
    with contextlib.suppress(OSError):  # not saved: the next process builds it again
        fileio.write_atomic(path, payload, new_mode=0o600)
