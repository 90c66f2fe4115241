"""Between LSP's types and spvls' positions (the columns' arithmetic and the diagnostics' JSON:
server.wire)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as T

from ..syntax.document import Document
from .wire import from_cp, line_text, position, to_cp


class Positions:
    """One document's positions in the client's units."""

    __slots__ = ("doc", "encoding")

    def __init__(self, doc: Document, encoding: str) -> None:
        self.doc, self.encoding = doc, encoding

    def line_text(self, n: int) -> str:
        return line_text(self.doc, n)

    def from_cp(self, text: str, col: int) -> int:
        return from_cp(text, col, self.encoding)

    def pos(self, line: int, col: int) -> T.Position:
        """A position from (instruction line, offset), mapped to the physical line."""
        return T.Position(*position(self.doc, self.encoding, line, col))

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
