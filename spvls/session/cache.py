"""Diagnostics kept on disk, by content: a document opened again shows what it showed before at once.

The key is everything the published native diagnostics depend on: the text, the document's URI
(related information names it), the settings, the position encoding, the workspace folders (source
files are looked up there) and this spvls itself, stamped by its files and the grammar's (any code
or grammar change is a new key). The value is the `diagnostics` array as it went on the wire, so a
hit is written out as it is, before the document is parsed. The analysis still runs after it (every
other request needs the model).

Off when SPVLS_NO_CACHE is set to anything but 0 (the tests set it, but for the tests of this).
Entries live in <cache>/diagnostics (see features.sourcefiles.cache_dir), the least recently used
removed past MAX_ENTRIES. What a hit publishes is checked against the analysis that follows it, and
published again if they differ (a shader source file that appeared since, say): the cache can show
a stale answer for the time of one analysis, never longer.
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import sys
import time
from importlib import metadata
from pathlib import Path

from ..features.sourcefiles import cache_dir
from ..spec import grammar

MAX_ENTRIES = 256
# What else decides the published JSON: the parser's messages and positions, the protocol's types.
_DEPENDENCIES = ("lark", "pygls", "lsprotocol", "cattrs")


def enabled() -> bool:
    return os.environ.get("SPVLS_NO_CACHE", "") in ("", "0")


def _dir() -> Path:
    return cache_dir().parent / "diagnostics"


@functools.cache
def stamp() -> bytes:
    """This spvls's identity: each of its files' and the grammar's path, size and mtime, and the
    versions of the packages that shape what it publishes."""
    h = hashlib.blake2b(digest_size=16)
    h.update(sys.version.encode())
    for name in _DEPENDENCIES:
        try:
            h.update(f"{name} {metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            pass
    package = Path(__file__).resolve().parents[1]
    roots = [package, grammar.grammar_dir()]
    for root in roots:
        for p in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if p.suffix in (".py", ".json", ".lark", ".gz") and p.is_file():
                st = p.stat()
                h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.digest()


def key(text: str, *context: object) -> str:
    h = hashlib.blake2b(stamp(), digest_size=20)
    h.update(repr(context).encode("utf-8", "surrogatepass"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _check(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def get(k: str) -> bytes | None:
    """The diagnostics array's JSON kept under the key, or None (also when the entry is damaged:
    each starts with a checksum of the rest, since it goes to the client as it is)."""
    if not enabled():
        return None
    path = _dir() / k
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) <= 16 or _check(data[16:]) != data[:16]:
        return None
    try:
        os.utime(path)  # used: the last to go (entries go oldest first)
    except OSError:
        pass
    return data[16:]


def put(k: str, data: bytes) -> None:
    """Keep the JSON under the key (written whole or not at all; a failure is not the user's problem)."""
    if not enabled():
        return
    d = _dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{k}.{secrets.token_hex(8)}.tmp"  # another process's (or container's) is another name
        tmp.write_bytes(_check(data) + data)
        os.replace(tmp, d / k)
        _prune(d)
    except OSError:
        pass


def _prune(d: Path) -> None:
    """Past MAX_ENTRIES, the least recently used go; a temporary file an hour old was left by a crash."""
    entries, stale = [], time.time() - 3600
    for p in d.iterdir():
        st = p.stat()
        if p.name.startswith("."):
            if st.st_mtime < stale:
                p.unlink(missing_ok=True)
        else:
            entries.append((st.st_mtime_ns, p))
    if len(entries) > MAX_ENTRIES:
        entries.sort()
        for _, p in entries[: len(entries) - MAX_ENTRIES]:
            p.unlink(missing_ok=True)
