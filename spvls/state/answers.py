"""Answers that combine features (no feature imports another): hover with the rules of the
diagnostics under the cursor, go-to-definition that falls back on the shader source an instruction
came from, and the quick fixes of a range. The server converts these answers to LSP; the feature
tests call these same functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..checks import Analysis
from ..checks import fixes as check_fixes
from ..checks.diagnostic import Diagnostic, Fix
from ..features import hover as hovers
from ..features import navigation, rule_notes, source


def hover(a: Analysis, line: int, col: int, folders: Sequence[Path] = ()) -> tuple[str, tuple[int, int]] | None:
    """Markdown and the columns it covers: what is under the cursor, then the rules of the
    diagnostics there."""
    return rule_notes.with_rules(hovers.hover(a.module, line, col, folders), a.diagnostics, line, col)


@dataclass(frozen=True)
class Definition:
    """Where a name is defined in the document (`span`), or the shader source an instruction came
    from (`path`, `line`, `col`)."""

    span: tuple[int, int, int] | None = None
    path: Path | None = None
    line: int = 0
    col: int = 0


def definition(a: Analysis, line: int, col: int, folders: Sequence[Path] = ()) -> Definition | None:
    span = navigation.definition(a.module, line, col)
    if span:
        return Definition(span=span)
    found = source.definition(a.module, line, col, folders)  # on an opcode: the shader source it came from
    if found is None:
        return None
    path, sl, sc = found
    return Definition(path=path, line=sl, col=sc)


def code_actions(a: Analysis, first: int, last: int) -> list[tuple[Fix, list[Diagnostic], bool]]:
    """The fixes of the diagnostics starting on a physical line first..last, each once with every
    diagnostic it fixes, and whether it is preferred (its first diagnostic's first fix)."""
    doc = a.module.doc
    here = [d for d in a.diagnostics if first <= doc.position(d.line, d.start)[0] <= last]
    return check_fixes.grouped(a.module, here)
