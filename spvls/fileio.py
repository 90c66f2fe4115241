"""Every file spvls writes (but the scratch files it hands a child program in a temporary directory
of its own), and every file a module makes it read, goes through here.

A write goes to a temporary file in the target's directory, is flushed to disk and renamed over
the target, so the target is at every moment either its old bytes or all of the new ones; a failure
removes the temporary file and raises `WriteError` saying the target is unchanged. A read of a file
named by data (a module's OpSource, a path in a request) takes only a regular file, a bounded
number of bytes, and never waits on a FIFO or device.

Both errors are OSErrors (`filename`, `strerror` set), so a caller that reports OSErrors reports
these with no change.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from pathlib import Path

# Who may read a new file: the user's umask decides (as for any program's output), unless the
# caller asks for less (a private cache: 0o600).
DEFAULT_MODE = 0o666
_CHUNK = 1 << 20


class WriteError(OSError):
    """A write that did not happen; the target is as it was (or still absent)."""

    def __init__(self, path: str | os.PathLike[str], reason: str, existed: bool) -> None:
        outcome = "the file is unchanged" if existed else "no file was created"
        super().__init__(errno.EIO, f"not written: {reason}; {outcome}", os.fspath(path))
        self.reason = reason
        self.existed = existed


class ReadRefused(OSError):
    """A file not read because of what it is (a FIFO, a device, too large), not because reading failed."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EINVAL, reason, os.fspath(path))


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, expect: bytes | None = None, new_mode: int = DEFAULT_MODE
) -> None:
    """Replace the file at `path` (a symbolic link: the file it names) with `data`, or leave it
    byte-identical and raise WriteError. An existing file keeps its mode (and owner, when allowed);
    a new one gets `new_mode` less the umask. With `expect`, the file must still hold those bytes
    (what the caller read and edited): another program's edit since then is not overwritten. A
    read-only file or one that is not a regular file is refused."""
    target = Path(os.path.realpath(path))
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise WriteError(path, e.strerror or str(e), True) from e
    existed = st is not None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise WriteError(path, "it is not a regular file", True)
        if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise WriteError(path, "the file is read-only", True)
    elif expect is not None:
        raise WriteError(path, "it was removed since it was read", False)
    import secrets  # here: a process that writes nothing never needs it

    tmp = target.parent / f".{target.name[:200]}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600 if st else new_mode
        )
    except OSError as e:
        raise WriteError(path, e.strerror or str(e), existed) from e
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view[:_CHUNK]) :]
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
                with contextlib.suppress(OSError):  # only root may give a file to another user
                    os.fchown(fd, st.st_uid, st.st_gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        if expect is not None and _current(target) != expect:
            raise WriteError(path, "it changed on disk since it was read", True)
        os.replace(tmp, target)
    except WriteError:
        _remove(tmp)
        raise
    except OSError as e:
        _remove(tmp)
        raise WriteError(path, e.strerror or str(e), existed) from e
    except BaseException:
        _remove(tmp)
        raise
    _sync_dir(target.parent)


def _current(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except OSError:
        return None


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _sync_dir(d: Path) -> None:
    """The rename itself survives a power cut once the directory is flushed (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(d, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def open_regular(path: str | os.PathLike[str], limit: int, *, pipe: bool = False) -> int:
    """A read-only descriptor of a regular file of at most `limit` bytes (the caller closes it);
    ReadRefused for a FIFO, device, directory or larger file. Opening never blocks (a FIFO with no
    writer) and touches no device: the kind is checked before and after the open. With `pipe`, a
    FIFO the user named (`<(…)` on a command line) is taken and waited on."""
    before = os.stat(path)
    piped = pipe and stat.S_ISFIFO(before.st_mode)
    if not piped:
        _require_regular(path, before, limit)
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | (0 if piped else os.O_NONBLOCK))
    try:
        after = os.fstat(fd)
        if not (piped and stat.S_ISFIFO(after.st_mode)):
            _require_regular(path, after, limit)  # replaced between the two looks
    except BaseException:
        os.close(fd)
        raise
    return fd


def _require_regular(path: str | os.PathLike[str], st: os.stat_result, limit: int) -> None:
    if stat.S_ISFIFO(st.st_mode):
        raise ReadRefused(path, "a FIFO (named pipe), not a file: not read")
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        raise ReadRefused(path, "a device, not a file: not read")
    if stat.S_ISDIR(st.st_mode):
        raise ReadRefused(path, "a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise ReadRefused(path, "not a regular file: not read")
    if st.st_size > limit:
        raise ReadRefused(path, f"{st.st_size} bytes, over the {limit}-byte limit: not read")


def read_regular(path: str | os.PathLike[str], limit: int, *, pipe: bool = False) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (one that grows past it while read, as
    a /proc file reporting size 0 may, is refused too); ReadRefused or OSError otherwise. `pipe`:
    as for open_regular."""
    fd = open_regular(path, limit, pipe=pipe)
    try:
        chunks, total = [], 0
        while chunk := os.read(fd, min(_CHUNK, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise ReadRefused(path, f"over the {limit}-byte limit: not read")
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_line(path: str | os.PathLike[str], number: int, limit: int, seconds: float) -> bytes | None:
    """Line `number` (1-based, without its line break) of a regular file, reading at most `limit`
    bytes for `seconds`: None when the file ends (or the budget runs out) before it."""
    fd = open_regular(path, 1 << 62)  # a long file is fine: only `limit` bytes of it are read
    try:
        deadline, seen, line, partial = time.monotonic() + seconds, 0, 1, bytearray()
        while seen < limit and time.monotonic() < deadline:
            chunk = os.read(fd, min(_CHUNK, limit - seen))
            if not chunk:
                return bytes(partial) if line == number and partial else None
            seen += len(chunk)
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                if line == number:
                    partial += chunk[start : nl if nl >= 0 else len(chunk)]
                    if nl >= 0:
                        return bytes(partial).rstrip(b"\r")
                if nl < 0:
                    break
                line, start = line + 1, nl + 1
        return None
    finally:
        os.close(fd)


# -- the user's private cache directory ---------------------------------------------------------
def cache_root() -> Path:
    """Where spvls keeps its caches: SPVLS_CACHE_DIR if absolute, else $XDG_CACHE_HOME/spvls, else
    ~/.cache/spvls. A relative path would be relative to wherever the editor started the server: not
    taken."""
    chosen = os.environ.get("SPVLS_CACHE_DIR", "")
    if os.path.isabs(chosen):
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")) / "spvls"


def private_dir(kind: str) -> Path | None:
    """<cache root>/<kind>, made 0700 if absent; None unless it is a directory of this user's that
    others cannot reach (a link, another user's: not used). What is read from it is trusted as the
    user's own files are."""
    d = cache_root() / kind
    try:
        d.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=0o700)
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return None
    if stat.S_IMODE(st.st_mode) & 0o077:
        try:
            os.chmod(d, 0o700)  # made under a permissive umask; ours, so ours to close
        except OSError:
            return None
    return d


def read_private(path: Path, limit: int) -> bytes | None:
    """A file of a private directory: a regular file of this user's, not a link, of at most `limit`
    bytes; None otherwise."""
    try:
        link = os.lstat(path)
        if not stat.S_ISREG(link.st_mode) or link.st_uid != os.geteuid():
            return None
        fd = open_regular(path, limit)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (link.st_dev, link.st_ino):  # swapped between the two looks
            return None
        chunks, total = [], 0
        while chunk := os.read(fd, min(_CHUNK, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
        return None if total > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
