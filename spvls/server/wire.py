"""Positions and diagnostics as the wire has them (JSON values), with no protocol library: the
first diagnostics go out before pygls and lsprotocol are imported (server.early), and every
publication after them is written the same way.

LSP columns count UTF-16 code units, UTF-8 bytes or code points, as negotiated; spvls' count code
points."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..checks import codes
from ..checks.codes import ASSEMBLER, VALIDATOR
from ..checks.diagnostic import ERROR, HINT, INFO, WARNING, Diagnostic
from ..features import sourcefiles
from ..model.module import Module
from ..syntax.document import Document

SEVERITY = {ERROR: 1, WARNING: 2, INFO: 3, HINT: 4}  # LSP's DiagnosticSeverity

Json = dict[str, Any]


class Raw:
    """A request's answer already written as JSON (the result alone), sent as it is: a large answer
    is never held as protocol objects and their unstructured copy at once (server.app)."""

    __slots__ = ("json",)

    def __init__(self, json: bytes) -> None:
        self.json = json


def _width(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    return 2 if encoding == "utf-16" and ord(ch) > 0xFFFF else 1


def to_cp(text: str, col: int, encoding: str) -> int:
    """A column in the negotiated units -> code points."""
    if text.isascii() or encoding == "utf-32":
        return max(0, min(col, len(text)))
    units = 0
    for i, ch in enumerate(text):
        if units >= col:
            return i
        units += _width(ch, encoding)
    return len(text)


def from_cp(text: str, col: int, encoding: str) -> int:
    """A column in code points -> the negotiated units."""
    if text.isascii() or encoding == "utf-32":
        return col
    head = text[:col]
    if encoding == "utf-8":
        return len(head.encode("utf-8", "surrogatepass"))
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def line_text(doc: Document, n: int) -> str:
    texts = doc.texts
    return texts[n] if 0 <= n < len(texts) else ""


def position(doc: Document, encoding: str, line: int, col: int) -> tuple[int, int]:
    """(line, column in the client's units) of (instruction line, offset), on the physical line."""
    line, col = doc.position(line, col)
    return line, from_cp(line_text(doc, line), col, encoding)


def span(doc: Document, encoding: str, line: int, start: int, end: int) -> Json:
    """An LSP Range of columns start..end of the instruction at `line`."""
    a, b = position(doc, encoding, line, start), position(doc, encoding, line, end)
    return {"start": {"line": a[0], "character": a[1]}, "end": {"line": b[0], "character": b[1]}}


def _point(path: Path, line: int, col: int) -> Json:
    p = {"line": line, "character": col}
    return {"uri": path.as_uri(), "range": {"start": p, "end": p}}


def _source_related(
    m: Module | None, doc: Document, encoding: str, uri: str, d: Diagnostic, folders: Sequence[Path]
) -> list[Json]:
    """Where the instruction came from: the source file (or its embedded copy), else the diagnostic's own place."""
    if d.source is None or m is None:
        return []
    found = sourcefiles.target(m, d.source, folders)
    here = {"uri": uri, "range": span(doc, encoding, d.line, d.start, d.end)}
    return [{"location": here if found is None else _point(*found), "message": f"source: {d.source}"}]


def diagnostic(
    doc: Document, encoding: str, uri: str, d: Diagnostic, m: Module | None = None, folders: Sequence[Path] = ()
) -> Json:
    """An LSP Diagnostic, as the wire has it."""
    family = d.code.split(".")[0]
    related = [
        {"location": {"uri": uri, "range": span(doc, encoding, r.line, r.start, r.end)}, "message": r.message}
        for r in d.related
    ] + _source_related(m, doc, encoding, uri, d, folders)
    out: Json = {
        "range": span(doc, encoding, d.line, d.start, d.end),
        "message": d.message,
        "severity": SEVERITY[d.severity],
        "code": d.code,
        "source": family if family in (VALIDATOR, ASSEMBLER) else "spvls",
        "codeDescription": {"href": codes.link(d.code)},
    }
    if related:
        out["relatedInformation"] = related
    out["data"] = {"fixes": len(d.fixes)}
    return out


def note(code: str, message: str, severity: int) -> Json:
    """A diagnostic about the document as a whole, at its start."""
    at = {"line": 0, "character": 0}
    return {
        "range": {"start": at, "end": at},
        "message": message,
        "severity": severity,
        "code": code,
        "source": "spvls",
    }
