"""Between LSP's types and spvls': positions (LSP columns count UTF-16 code units, UTF-8 bytes or
code points, as negotiated; spvls' count code points) and diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types as T

from ..checks import codes, validator
from ..checks.diagnostic import ERROR, HINT, INFO, WARNING, Diagnostic
from ..features import sourcefiles
from ..model.module import Module
from ..syntax.document import Document

SEVERITY = {
    ERROR: T.DiagnosticSeverity.Error,
    WARNING: T.DiagnosticSeverity.Warning,
    INFO: T.DiagnosticSeverity.Information,
    HINT: T.DiagnosticSeverity.Hint,
}


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


class Positions:
    """One document's positions in the client's units."""

    __slots__ = ("doc", "encoding")

    def __init__(self, doc: Document, encoding: str) -> None:
        self.doc, self.encoding = doc, encoding

    def line_text(self, n: int) -> str:
        texts = self.doc.texts
        return texts[n] if 0 <= n < len(texts) else ""

    def from_cp(self, text: str, col: int) -> int:
        return from_cp(text, col, self.encoding)

    def pos(self, line: int, col: int) -> T.Position:
        """A position from (instruction line, offset), mapped to the physical line."""
        line, col = self.doc.position(line, col)
        return T.Position(line, from_cp(self.line_text(line), col, self.encoding))

    def range(self, line: int, start: int, end: int) -> T.Range:
        return T.Range(self.pos(line, start), self.pos(line, end))

    def location(self, uri: str, span: tuple[int, int, int]) -> T.Location:
        return T.Location(uri, self.range(*span))

    def cursor(self, p: T.Position) -> tuple[int, int]:
        """A request's position, clamped into the document, in code points."""
        line = max(0, min(p.line, len(self.doc.texts) - 1))
        return line, to_cp(self.line_text(line), p.character, self.encoding)

    def edit_point(self, p: T.Position) -> tuple[int, int]:
        """An edit's position: past the end of the document means the end."""
        if p.line >= len(self.doc.texts):
            return len(self.doc.texts), 0
        return p.line, to_cp(self.doc.texts[p.line], p.character, self.encoding)

    def whole_lines(self, first: int, last: int) -> T.Range:
        return T.Range(self.pos(first, 0), self.pos(last, len(self.line_text(last))))


def point(path: Path, line: int, col: int) -> T.Location:
    """A place in a file on disk (a shader source line)."""
    return T.Location(path.as_uri(), T.Range(T.Position(line, col), T.Position(line, col)))


def plain_range(r: T.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _source_related(
    m: Module | None, at: Positions, uri: str, d: Diagnostic, folders: Sequence[Path]
) -> list[T.DiagnosticRelatedInformation]:
    """Where the instruction came from: the source file (or its embedded copy), else the diagnostic's own place."""
    if d.source is None or m is None:
        return []
    found = sourcefiles.target(m, d.source, folders)
    where = T.Location(uri, at.range(d.line, d.start, d.end)) if found is None else point(*found)
    return [T.DiagnosticRelatedInformation(where, f"source: {d.source}")]


def diagnostic(
    at: Positions, uri: str, d: Diagnostic, m: Module | None = None, folders: Sequence[Path] = ()
) -> T.Diagnostic:
    family = d.code.split(".")[0]
    origin = family if family in (validator.SOURCE, validator.ASSEMBLER) else "spvls"
    related = [
        T.DiagnosticRelatedInformation(T.Location(uri, at.range(r.line, r.start, r.end)), r.message) for r in d.related
    ] + _source_related(m, at, uri, d, folders)
    return T.Diagnostic(
        range=at.range(d.line, d.start, d.end),
        message=d.message,
        severity=SEVERITY[d.severity],
        code=d.code,
        source=origin,
        code_description=T.CodeDescription(href=codes.link(d.code)),
        related_information=related or None,
        data={"fixes": len(d.fixes)},
    )


def note(code: str, message: str, severity: T.DiagnosticSeverity) -> T.Diagnostic:
    """A diagnostic about the document as a whole, at its start."""
    return T.Diagnostic(
        range=T.Range(T.Position(0, 0), T.Position(0, 0)), severity=severity, source="spvls", code=code, message=message
    )
