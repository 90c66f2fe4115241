"""Diagnostics kept on disk, by content: a document opened again shows what it showed before at once.

The key is everything the published native diagnostics depend on: the text, the document's URI
(related information names it), the settings, the position encoding, the workspace folders (source
files are looked up there) and this spvls itself, stamped by its files and the grammar's (any code
or grammar change is a new key). The value is the `diagnostics` array as it went on the wire. The
analysis still runs after a hit (every other request needs the model); what a hit showed is checked
against it and published again if they differ (a shader source file that appeared since, say): the
cache can show a stale answer for the time of one analysis, never longer.

What is read back goes to the client, so the cache trusts nothing it reads:
- the directory is the user's alone (0700, owned by the user; one that is not is not used), each
  file 0600, written whole to a temporary file in the directory and renamed (spvls.fileio);
- each entry carries an HMAC of its key and its bytes under a secret of the user's (the `key`
  file, 0600), so an entry someone else wrote, or one moved to another key, is a miss;
- an entry is read only from a regular file of at most MAX_BYTES (never a FIFO, a device, a link);
- its JSON is parsed and each diagnostic rebuilt from fields checked one by one (`diagnostics`), so
  what reaches the client is diagnostics and nothing else, never the stored bytes.

Off when SPVLS_NO_CACHE is set to anything but 0 (the tests set it, but for the tests of this).
Entries live in <cache>/diagnostics (see fileio.cache_root), the least recently used
removed past MAX_ENTRIES.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
import time
from pathlib import Path
from typing import Any

from .. import fileio
from ..spec import grammar

MAX_ENTRIES = 256
MAX_BYTES = 4 << 20  # an entry's size at most (2,000 diagnostics with related information: ~1 MB)
MAX_PUBLISHED = 2000  # diagnostics a publication carries: more helps no one and stalls clients
MAX_ITEMS = MAX_PUBLISHED + 1  # and the note saying how many more there are
_MAC = 32  # bytes of HMAC-SHA256 before each entry's JSON
_SECRET = "key"
# What else decides the published JSON: the parser's messages and positions, the protocol's types.
_DEPENDENCIES = ("lark", "pygls", "lsprotocol", "cattrs")
_STAMPED = (".py", ".json", ".lark", ".gz")  # the files whose change is a new spvls


def enabled() -> bool:
    return os.environ.get("SPVLS_NO_CACHE", "") in ("", "0")


@functools.cache
def stamp() -> bytes:
    """This spvls's identity: each of its files' and the grammar's path, size and mtime, and the
    versions of the packages that shape what it publishes."""
    h = hashlib.blake2b(digest_size=16)
    h.update(sys.version.encode())
    for name in _installed(_DEPENDENCIES):
        h.update(f"{name}\n".encode())
    for root in (Path(__file__).resolve().parents[1], grammar.grammar_dir()):
        for path, size, mtime in _files(str(root)):
            h.update(f"{path}\0{size}\0{mtime}\n".encode())
    return h.digest()


def _installed(packages: tuple[str, ...]) -> list[str]:
    """The names of the packages' `NAME-VERSION.dist-info` (or `.egg-info`) entries on sys.path:
    their versions, read with one listing of each path entry (importlib.metadata reads each
    package's metadata files, which a first open would wait for)."""
    wanted = {p.lower() for p in packages}
    found = []
    for entry in sys.path:
        with contextlib.suppress(OSError):
            for name in os.listdir(entry or "."):
                if (
                    name.endswith((".dist-info", ".egg-info"))
                    and name.split("-", 1)[0].lower().replace("_", "-") in wanted
                ):
                    found.append(name)
    return sorted(found)


def _files(root: str) -> list[tuple[str, int, int]]:
    """(path, size, mtime) of each source, grammar or data file under root (or root itself), sorted
    by path. os.walk, not Path.rglob, which is much slower: this runs at a first open."""
    if os.path.isfile(root):
        st = os.stat(root)
        return [(root, st.st_size, st.st_mtime_ns)]
    out = []
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]  # bytecode follows the sources it is stamped by
        for name in names:
            if name.endswith(_STAMPED):
                path = os.path.join(top, name)
                with contextlib.suppress(OSError):
                    st = os.stat(path)
                    if stat.S_ISREG(st.st_mode):
                        out.append((path, st.st_size, st.st_mtime_ns))
    return sorted(out)


def key(text: str, *context: object) -> str:
    """The entry's name for this text in this context. SHA-256, which x86 and ARM cores compute in
    hardware, faster than BLAKE2b over the text of a large first open, which waits for it."""
    h = hashlib.sha256(stamp())
    h.update(repr(context).encode("utf-8", "surrogatepass"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:40]


# -- the private directory and its secret -----------------------------------------------------
def _write_private(path: Path, data: bytes) -> None:
    """`data` written whole or not at all, in a 0600 file (fileio: a temporary file renamed)."""
    fileio.write_atomic(path, data, new_mode=0o600)


def _secret(d: Path) -> bytes | None:
    """The user's key for the entries' HMACs, made once (0600)."""
    path = d / _SECRET
    found = fileio.read_private(path, 64)
    if found is not None and len(found) >= 32:
        return found
    try:
        _write_private(path, secrets.token_bytes(32))
    except OSError:
        return None
    found = fileio.read_private(path, 64)  # another server may have made it first: its key is the key
    return found if found is not None and len(found) >= 32 else None


def _mac(secret: bytes, k: str, data: bytes) -> bytes:
    return hmac.new(secret, k.encode() + b"\0" + data, hashlib.sha256).digest()


_NAME = re.compile(r"[0-9a-f]{40}")


# -- entries ----------------------------------------------------------------------------------
def get_bytes(kind: str, k: str) -> bytes | None:
    """What is kept under the key, if its HMAC is the user's; None for a miss (also when the entry
    is damaged, forged, too large or not a regular file)."""
    if not enabled() or not _NAME.fullmatch(k):
        return None
    d = fileio.private_dir(kind)
    secret = _secret(d) if d is not None else None
    if d is None or secret is None:
        return None
    data = fileio.read_private(d / k, MAX_BYTES)
    if data is None or len(data) <= _MAC or not hmac.compare_digest(data[:_MAC], _mac(secret, k, data[_MAC:])):
        return None
    with contextlib.suppress(OSError):
        os.utime(d / k, follow_symlinks=False)  # used: the last to go (entries go oldest first)
    return data[_MAC:]


def put_bytes(kind: str, k: str, data: bytes) -> None:
    """Keep the bytes under the key (written whole or not at all; a failure, or data over
    MAX_BYTES, is not the user's problem)."""
    if not enabled() or not _NAME.fullmatch(k) or len(data) + _MAC > MAX_BYTES:
        return
    d = fileio.private_dir(kind)
    secret = _secret(d) if d is not None else None
    if d is None or secret is None:
        return
    try:
        _write_private(d / k, _mac(secret, k, data) + data)
        _prune(d)
    except OSError:
        pass


def get(k: str, uri: str) -> list[dict[str, Any]] | None:
    """The diagnostics kept under the key for the document at `uri`, each checked and rebuilt."""
    data = get_bytes("diagnostics", k)
    if data is None:
        return None
    try:
        return diagnostics(json.loads(data), uri)
    except (ValueError, TypeError, RecursionError):  # TypeError: a check this module lacks, failing closed
        return None


def put(k: str, value: list[dict[str, Any]]) -> None:
    """Keep the diagnostics under the key."""
    put_bytes("diagnostics", k, json.dumps(value, separators=(",", ":")).encode())


def _prune(d: Path) -> None:
    """Past MAX_ENTRIES, the least recently used go; a temporary file an hour old was left by a crash."""
    entries, stale = [], time.time() - 3600
    for p in d.iterdir():
        st = p.lstat()
        if p.name.startswith("."):
            if st.st_mtime < stale:
                p.unlink(missing_ok=True)
        elif p.name != _SECRET:
            entries.append((st.st_mtime_ns, p))
    if len(entries) > MAX_ENTRIES:
        entries.sort()
        for _, p in entries[: len(entries) - MAX_ENTRIES]:
            p.unlink(missing_ok=True)


# -- what an entry may hold: LSP diagnostics as the server publishes them -----------------------
_CODE = re.compile(r"[A-Za-z0-9_.\-]{1,200}")
_SOURCES = frozenset(("spvls", "spirv-val", "spirv-as"))
_HREF = re.compile(r"https://[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]{1,500}")
_MAX_LINE = 1 << 31
_MAX_TEXT = 1 << 16
_MAX_RELATED = 1000


def _int(v: object, low: int, high: int) -> int:
    if type(v) is not int or not low <= v < high:
        raise ValueError(f"not an integer in [{low}, {high})")
    return v


def _text(v: object, limit: int = _MAX_TEXT) -> str:
    if not isinstance(v, str) or len(v) > limit:
        raise ValueError("not a string")
    return v


def _object(v: object, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(v, dict) or not required <= v.keys() <= allowed:
        raise ValueError("not the expected object")
    return v


def _position(v: object) -> dict[str, int]:
    p = _object(v, {"line", "character"}, {"line", "character"})
    return {"line": _int(p["line"], 0, _MAX_LINE), "character": _int(p["character"], 0, _MAX_LINE)}


def _range(v: object) -> dict[str, dict[str, int]]:
    r = _object(v, {"start", "end"}, {"start", "end"})
    return {"start": _position(r["start"]), "end": _position(r["end"])}


def _uri(v: object, uri: str) -> str:
    u = _text(v, 4096)
    if u != uri and not u.startswith("file:///"):
        raise ValueError("a location neither the document nor a file")
    return u


def _related(v: object, uri: str) -> dict[str, Any]:
    r = _object(v, {"location", "message"}, {"location", "message"})
    loc = _object(r["location"], {"uri", "range"}, {"uri", "range"})
    return {"location": {"uri": _uri(loc["uri"], uri), "range": _range(loc["range"])}, "message": _text(r["message"])}


_FIELDS = {"range", "message", "severity", "code", "source", "codeDescription", "relatedInformation", "data"}


def _diagnostic(v: object, uri: str) -> dict[str, Any]:
    d = _object(v, _FIELDS, {"range", "message"})
    out: dict[str, Any] = {"range": _range(d["range"]), "message": _text(d["message"])}
    if "severity" in d:
        out["severity"] = _int(d["severity"], 1, 5)
    if "code" in d:
        if not isinstance(d["code"], str) or not _CODE.fullmatch(d["code"]):
            raise ValueError("not a diagnostic code")
        out["code"] = d["code"]
    if "source" in d:
        if not isinstance(d["source"], str) or d["source"] not in _SOURCES:
            raise ValueError("not a source spvls names")
        out["source"] = d["source"]
    if "codeDescription" in d:
        href = _object(d["codeDescription"], {"href"}, {"href"})["href"]
        if not isinstance(href, str) or not _HREF.fullmatch(href):
            raise ValueError("not a link to a specification")
        out["codeDescription"] = {"href": href}
    if "relatedInformation" in d:
        related = d["relatedInformation"]
        if not isinstance(related, list) or len(related) > _MAX_RELATED:
            raise ValueError("not a list of related information")
        out["relatedInformation"] = [_related(r, uri) for r in related]
    if "data" in d:
        out["data"] = {"fixes": _int(_object(d["data"], {"fixes"}, {"fixes"})["fixes"], 0, 1 << 16)}
    return out


def diagnostics(value: object, uri: str) -> list[dict[str, Any]]:
    """The diagnostics a stored entry holds, rebuilt from checked fields; ValueError when it holds
    anything else."""
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise ValueError("not a list of diagnostics")
    return [_diagnostic(v, uri) for v in value]
