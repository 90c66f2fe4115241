"""Diagnostics kept on disk, by content: a document opened again shows what it showed before at once.

The key is everything the published native diagnostics depend on: the text, the document's URI
(related information names it), the settings, the position encoding, the workspace folders (source
files are looked up there) and this spvls itself, stamped by its files and the grammar's (any code
or grammar change is a new key). The value is the `diagnostics` array as it went on the wire, so a
hit is written out as it is, before the document is parsed. The analysis still runs after it (every
other request needs the model), and is not published again: by the key, it says the same.

Off when SPVLS_NO_CACHE is set (the tests set it, but for the tests of this). Entries live in
<cache>/diagnostics (see features.sourcefiles.cache_dir), the oldest removed past MAX_ENTRIES.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

from ..features.sourcefiles import cache_dir
from ..spec import grammar

MAX_ENTRIES = 256


def enabled() -> bool:
    return not os.environ.get("SPVLS_NO_CACHE")


def _dir() -> Path:
    return cache_dir().parent / "diagnostics"


@functools.cache
def stamp() -> bytes:
    """This spvls's identity: each of its files' and the grammar's path, size and mtime."""
    h = hashlib.blake2b(digest_size=16)
    h.update(sys.version.encode())
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
    try:
        data = (_dir() / k).read_bytes()
    except OSError:
        return None
    return data[16:] if len(data) > 16 and _check(data[16:]) == data[:16] else None


def put(k: str, data: bytes) -> None:
    """Keep the JSON under the key (written whole or not at all; a failure is not the user's problem)."""
    if not enabled():
        return
    d = _dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{k}.{os.getpid()}.tmp"
        tmp.write_bytes(_check(data) + data)
        os.replace(tmp, d / k)
        entries = [p for p in d.iterdir() if not p.name.startswith(".")]
        if len(entries) > MAX_ENTRIES:
            entries.sort(key=lambda p: p.stat().st_mtime_ns)
            for p in entries[: len(entries) - MAX_ENTRIES]:
                p.unlink(missing_ok=True)
    except OSError:
        pass
