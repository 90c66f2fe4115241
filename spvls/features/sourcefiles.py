"""The shader source files a module names: found on disk (absolute, next to the document, in a
workspace folder) or written once from the text the module embeds to a read-only cache file; and
one line of them. Shared by the features that lead back to the source (source, hover)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import fileio
from ..binding.text import utf8
from ..model.module import Module
from ..model.sourcemap import SourceLoc, embedded_texts


def path_of(uri: str) -> Path | None:
    """A file:// URI or a plain path (the CLI's documents) as a path."""
    if not uri:
        return None
    if "://" not in uri:
        return Path(uri)
    u = urlparse(uri)
    return Path(unquote(u.path)) if u.scheme == "file" else None


# A module names its source files: data from anywhere (a bug report, a capture). Only files under
# the roots below are read, regular files only, and only so much of them.
MAX_READ = 16 << 20  # bytes read looking for a line: a 2 GB file with no line break costs this much
READ_SECONDS = 0.5


def roots(m: Module, folders: Sequence[Path] = ()) -> list[str]:
    """Where the module's source files may be read: its own folder, then `folders` (the workspace
    folders and the roots the user lists: session state, `Workspace.folders`), resolved."""
    doc = path_of(m.doc.uri)
    out = []
    for base in [*([doc.parent] if doc else []), *folders]:
        try:
            out.append(os.path.realpath(base))
        except (OSError, ValueError):
            continue
    return out


def _under(path: str, allowed: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in allowed)


def on_disk(m: Module, file: str, folders: Sequence[Path] = ()) -> Path | None:
    """The source file, when it is a regular file under the module's roots (see `roots`): as written
    when absolute, else next to the document, else in one of the `folders`. A name that leads
    elsewhere (`/etc/shadow`, `../../x`, a link out) finds nothing: the module chooses no file."""
    p = Path(file)
    allowed = roots(m, folders)
    for cand in [p] if p.is_absolute() else [Path(r) / p for r in allowed]:
        try:
            real = os.path.realpath(cand)
            if _under(real, allowed) and stat.S_ISREG(os.stat(real).st_mode):
                return Path(real)
        except (OSError, ValueError):  # missing, or a name the file system cannot take (NUL, too long)
            continue
    return None


# glslang writes its processing notes and a `#line 1` above the text it embeds; the served file
# starts at the source's own line 1, so line numbers point where they should.
_PREAMBLE = re.compile(r"\A(?:// OpModuleProcessed[^\n]*\n)+#line 1\n")


def embedded_body(text: str) -> str:
    return _PREAMBLE.sub("", text, count=1)


def cache_dir() -> Path:
    return fileio.cache_root() / "embedded"


MAX_EMBEDDED = 64  # copies kept; the least recently used go first


def embedded_file(m: Module, file: str) -> Path | None:
    """The module's embedded text of `file`, written (once per text) to a read-only cache file named
    after it; past MAX_EMBEDDED copies the least recently used are removed."""
    text = embedded_texts(m).get(file)
    if text is None:
        return None
    body = embedded_body(text)
    digest = hashlib.sha256(f"{file}\0{body}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = re.sub(r"[^\w.+-]", "_", Path(file.replace("\\", "/")).name)[:100] or "source"
    path = cache_dir() / digest / name
    try:
        if path.is_file():
            os.utime(path.parent)  # used: the last to go
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        # read-only: a copy, editing it would change nothing; a lone surrogate (from an LSP client) kept
        fileio.write_atomic(path, utf8(body), new_mode=stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        _evict(path.parent.parent)
    except OSError:
        return None
    return path


def _evict(root: Path) -> None:
    """Keep the MAX_EMBEDDED most recently used copies (a directory per text)."""
    entries = []
    for d in root.iterdir():
        try:
            if d.is_dir() and not d.is_symlink():
                entries.append((d.stat().st_mtime_ns, d))
        except OSError:
            continue
    entries.sort()
    for _, d in entries[: max(len(entries) - MAX_EMBEDDED, 0)]:
        with contextlib.suppress(OSError):  # another server may be removing it too
            for f in d.iterdir():
                f.unlink(missing_ok=True)
            d.rmdir()


# Where each source file of a document was found, for a moment: the diagnostics published on a
# keystroke may name the same file thousands of times, and each look-up touches the disk.
# Keyed by the embedded text itself, not the id() of a module's texts: a new module's dict can
# reuse a dropped one's id, which would name the old text's copy for up to _FOUND_FOR.
_FOUND: dict[tuple[str, str, str | None, tuple[Path, ...]], tuple[float, Path | None]] = {}
_FOUND_FOR = 2.0  # seconds


def _find(m: Module, file: str, folders: Sequence[Path]) -> Path | None:
    key, now = (m.doc.uri, file, embedded_texts(m).get(file), tuple(folders)), time.monotonic()
    hit = _FOUND.get(key)
    if hit is not None and now - hit[0] < _FOUND_FOR:
        return hit[1]
    if len(_FOUND) > 4096:
        _FOUND.clear()
    path = on_disk(m, file, folders) or embedded_file(m, file)
    _FOUND[key] = (now, path)
    return path


def target(m: Module, loc: SourceLoc, folders: Sequence[Path] = ()) -> tuple[Path, int, int] | None:
    """(file, 0-based line, 0-based column) of a location: on disk first, else the embedded text."""
    path = _find(m, loc.file, folders)
    if path is None:
        return None
    return path, max(loc.line - 1, 0), max(loc.column - 1, 0)


def source_line(m: Module, loc: SourceLoc, folders: Sequence[Path] = ()) -> str | None:
    """The text of the location's line, from the file on disk (under the module's roots, at most
    MAX_READ bytes read for READ_SECONDS) or the embedded text."""
    if loc.line <= 0:
        return None
    path = on_disk(m, loc.file, folders)
    if path is not None:
        try:
            found = fileio.read_line(path, loc.line, MAX_READ, READ_SECONDS)
        except OSError:
            found = None
        if found is not None:
            return found.decode("utf-8", errors="replace")
    text = embedded_texts(m).get(loc.file)
    if text is None:
        return None
    lines = embedded_body(text).split("\n")
    return lines[loc.line - 1] if loc.line <= len(lines) else None
