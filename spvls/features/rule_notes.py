"""Hover's notes on diagnostics: the rule and spec sentence of each diagnostic under the cursor (the
code's whole page, with its example, is docs.code_doc: `spvls doc CODE`)."""

from __future__ import annotations

from collections.abc import Iterable

from ..checks import codes
from ..checks.diagnostic import Diagnostic
from .docs import Found


def rule_md(code: str) -> str | None:
    """Hover's note on a diagnostic: its rule and spec sentence, without the example."""
    rule = codes.rule(code)
    if rule is None:
        return None
    md = f"**{code}** — {rule.summary}"
    if rule.sentence:
        md += f"\n\n> {rule.sentence}"
    family = codes.family_of(code)
    ext = family.extension if family is not None else None
    return md + f"\n\nMore: `spvls doc {code}`" + (f" · {ext}" if ext else "")


def diagnostic_notes(diagnostics: Iterable[Diagnostic], line: int, col: int) -> Found:
    """The rules of the diagnostics under the cursor, and the columns the first one covers."""
    here = [d for d in diagnostics if d.line == line and d.start <= col <= max(d.end, d.start + 1)]
    notes = [md for md in dict.fromkeys(rule_md(d.code) for d in here) if md]
    return ("\n\n---\n\n".join(notes), (here[0].start, here[0].end)) if notes else None


def with_rules(found: Found, diagnostics: Iterable[Diagnostic], line: int, col: int) -> Found:
    """A hover's (markdown, span) with the rules of the diagnostics under the cursor added."""
    notes = diagnostic_notes(diagnostics, line, col)
    if notes is None:
        return found
    if found is None:
        return notes
    return f"{found[0]}\n\n---\n\n{notes[0]}", found[1]
