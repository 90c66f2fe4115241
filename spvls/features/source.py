"""From an instruction back to the shader source it came from: the file on disk, or the text the
module embeds (written once to a cache file, which any editor opens read-only); hover text, the
definition target and the source-line inlay hints."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..model.module import Module
from ..model.sourcemap import (
    SourceLoc,
    debug_op,
    embedded_texts,
    in_effect,
    inlining,
    location,
    location_of,
    locations,
    scope_function_name,
)

# Workspace folders (the server sets them from `initialize`): where a relative source name is
# looked for after the document's own directory.
folders: list[Path] = []


def path_of(uri: str) -> Path | None:
    """A file:// URI or a plain path (the CLI's documents) as a path."""
    if not uri:
        return None
    if "://" not in uri:
        return Path(uri)
    u = urlparse(uri)
    return Path(unquote(u.path)) if u.scheme == "file" else None


def on_disk(m: Module, file: str) -> Path | None:
    """The source file: as written when absolute, else next to the document, else in a workspace folder."""
    p = Path(file)
    try:
        if p.is_absolute():
            return p if p.is_file() else None
        doc = path_of(m.doc.uri)
        for base in ([doc.parent] if doc else []) + folders:
            cand = base / p
            if cand.is_file():
                return cand.resolve()
    except (OSError, ValueError):  # a name the file system cannot take (NUL, too long)
        return None
    return None


# glslang writes its processing notes and a `#line 1` above the text it embeds; the served file
# starts at the source's own line 1, so line numbers point where they should.
_PREAMBLE = re.compile(r"\A(?:// OpModuleProcessed[^\n]*\n)+#line 1\n")


def embedded_body(text: str) -> str:
    return _PREAMBLE.sub("", text, count=1)


def cache_dir() -> Path:
    base = os.environ.get("SPVLS_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "spvls"
    )
    return Path(base) / "embedded"


def embedded_file(m: Module, file: str) -> Path | None:
    """The module's embedded text of `file`, written (once) to a read-only cache file named after it."""
    text = embedded_texts(m).get(file)
    if text is None:
        return None
    body = embedded_body(text)
    digest = hashlib.sha256(f"{file}\0{body}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = re.sub(r"[^\w.+-]", "_", Path(file.replace("\\", "/")).name) or "source"
    path = cache_dir() / digest / name
    try:
        if path.is_file():
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{name}.{os.getpid()}.tmp")
        tmp.write_text(body, encoding="utf-8", errors="surrogateescape")
        tmp.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # a copy: editing it changes nothing
        os.replace(tmp, path)
    except OSError:
        return None
    return path


# Where each source file of a document was found, for a moment: the diagnostics published on a
# keystroke may name the same file thousands of times, and each look-up touches the disk.
_FOUND: dict[tuple[str, str, int], tuple[float, Path | None]] = {}
_FOUND_FOR = 2.0  # seconds


def _find(m: Module, file: str) -> Path | None:
    key, now = (m.doc.uri, file, id(embedded_texts(m))), time.monotonic()
    hit = _FOUND.get(key)
    if hit is not None and now - hit[0] < _FOUND_FOR:
        return hit[1]
    if len(_FOUND) > 4096:
        _FOUND.clear()
    path = on_disk(m, file) or embedded_file(m, file)
    _FOUND[key] = (now, path)
    return path


def target(m: Module, loc: SourceLoc) -> tuple[Path, int, int] | None:
    """(file, 0-based line, 0-based column) of a location: on disk first, else the embedded text."""
    path = _find(m, loc.file)
    if path is None:
        return None
    return path, max(loc.line - 1, 0), max(loc.column - 1, 0)


def definition(m: Module, line: int, col: int) -> tuple[Path, int, int] | None:
    """On an instruction's opcode: where in the source it came from."""
    src = m.doc.line(line)
    tok = src.token_at(col) if src else None
    if tok is None or tok.kind != "OPNAME" or line not in m.inst_at:
        return None
    loc = location(m, line)
    return target(m, loc) if loc is not None else None


def source_line(m: Module, loc: SourceLoc) -> str | None:
    """The text of the location's line, from the file on disk or the embedded text."""
    if loc.line <= 0:
        return None
    path = on_disk(m, loc.file)
    text = None
    if path is not None:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, text in enumerate(f, 1):
                    if n == loc.line:
                        return text.rstrip("\r\n")
            return None
        except OSError:
            pass
    text = embedded_texts(m).get(loc.file)
    if text is None:
        return None
    lines = embedded_body(text).split("\n")
    return lines[loc.line - 1] if loc.line <= len(lines) else None


_FENCE = {".hlsl": "hlsl", ".slang": "slang", ".cl": "c", ".c": "c", ".cpp": "cpp"}


def hover_note(m: Module, line: int) -> str:
    """Markdown: where the instruction came from, that source line, and its inlining chain; '' when
    it has no location."""
    line_inst, scope = in_effect(m, line)
    loc = location_of(m, line_inst)
    if loc is None:
        return ""
    head = f"Source: `{loc}`"
    fn = scope_function_name(m, scope)
    if fn:
        head += f" in `{fn}`"
    parts = [head]
    text = source_line(m, loc)
    if text is not None and text.strip():
        lang = _FENCE.get(Path(loc.file).suffix.lower(), "glsl")
        parts.append(f"```{lang}\n{text.rstrip()}\n```")
    chain = [f"inlined into `{step.function}`" + (f" at {step.at}" if step.at else "") for step in inlining(m, scope)]
    if chain:
        parts.append("  \n".join(chain))
    return "\n\n".join(parts)


def _is_debug(m: Module, inst) -> bool:
    return inst.opname in ("OpLine", "OpNoLine") or debug_op(m, inst) is not None


def source_hints(m: Module, first: int, last: int) -> list[tuple[int, int, str]]:
    """(line, column, label): `a.comp:7` after the first instruction of each run of instructions
    mapped to one source line (debug instructions themselves are passed over)."""
    prev = None
    for n in range(first - 1, -1, -1):  # the run the range starts in, from the instruction before it
        inst = m.inst_at.get(n)
        if inst is not None and not _is_debug(m, inst):
            loc = location(m, n)
            prev = (loc.file, loc.line) if loc else None
            break
    out = []
    for inst, loc in locations(m, max(first, 0), last):
        if _is_debug(m, inst):
            continue
        key = (loc.file, loc.line) if loc else None
        if key != prev and loc is not None and loc.line > 0:
            out.append((inst.line, len(inst.src.text.rstrip()), f"{Path(loc.file).name}:{loc.line}"))
        prev = key
    return out
