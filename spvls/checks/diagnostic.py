"""The diagnostic every check produces; the CLI and the server only format it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..model.sourcemap import SourceLoc

ERROR, WARNING, INFO, HINT = "error", "warning", "information", "hint"

# What a diagnostic is put on: a token, an operand problem, anything with .start and .end columns.
# Any, not a Protocol: the families hand in a line's optional tokens (src.opcode, src.result), which
# an instruction always has.
Spanned = Any


@dataclass(frozen=True, slots=True)
class Related:
    line: int
    start: int
    end: int
    message: str


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace text in [start, end) of `line` (line == len(lines) appends)."""

    line: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    # Safe: the only way to meet the rule, changing nothing else (`spvls check --fix` applies it).
    safe: bool = False


@dataclass(frozen=True, slots=True)
class Diagnostic:
    line: int
    start: int
    end: int
    severity: str
    code: str
    message: str
    related: tuple[Related, ...] = field(default=())
    fixes: tuple[Fix, ...] = field(default=())
    source: SourceLoc | None = None  # where the instruction came from in the shader source (OpLine, DebugLine)

    @property
    def family(self) -> str:
        return self.code.split(".", 1)[0]


def at(
    line: int,
    tok: Spanned,
    severity: str,
    code: str,
    message: str,
    related: tuple[Related, ...] = (),
    fixes: tuple[Fix, ...] = (),
) -> Diagnostic:
    """A diagnostic on one token (anything with .start and .end)."""
    return Diagnostic(line, tok.start, tok.end, severity, code, message, related, fixes)


def related_at(line: int, tok: Spanned, message: str) -> Related:
    return Related(line, tok.start, tok.end, message)
