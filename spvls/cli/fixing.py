"""`spvls check --fix`: apply the safe quick fixes and rewrite the file, only if it got better."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import fileio
from ..checks.diagnostic import ERROR, Diagnostic, Edit, Fix
from .inputs import raw_text, terminated_lines

_ROUNDS = 5  # a fix can reveal the next (an extension, then its capability)


@dataclass
class Result:
    text: str
    applied: list[tuple[Diagnostic, Fix]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    refused: str = ""  # why nothing was written


def apply_edits(text: str, edits: list[Edit]) -> str:
    """The text with the edits made; an edit's "\\n" becomes the file's own line ending."""
    m = re.search(r"\r\n|\r|\n", text)
    nl = m.group(0) if m else "\n"
    lines = terminated_lines(text)
    for e in sorted(edits, key=lambda e: (e.line, e.start), reverse=True):
        if e.line >= len(lines):
            if lines and not lines[-1].endswith(("\n", "\r")):
                lines[-1] += nl
            lines.append("")
        body = lines[e.line].rstrip("\r\n")
        term = lines[e.line][len(body) :]
        lines[e.line] = body[: e.start] + e.text.replace("\n", nl) + body[e.end :] + term
    return "".join(lines)


def _choose(diags: list[Diagnostic]) -> tuple[list[tuple[Diagnostic, Fix]], list[Edit]]:
    """Safe fixes whose edits neither overlap nor repeat one already taken."""
    taken: list[tuple[Diagnostic, Fix]] = []
    edits: list[Edit] = []
    for d in diags:
        fix = next((f for f in d.fixes if f.safe), None)
        if fix is None:
            continue
        new = [e for e in fix.edits if e not in edits]
        if not new:  # the same edit as another diagnostic's (two uses wanting one OpCapability)
            taken.append((d, fix))
            continue
        if any(e.line == o.line and e.start < o.end and o.start < e.end for e in new for o in edits):
            continue
        edits.extend(new)
        taken.append((d, fix))
    return taken, edits


def fix_file(path: Path, text: str, diags: list[Diagnostic], recheck: Callable[[str], list[Diagnostic]]) -> Result:
    """Fix rounds until nothing safe is left; the file is written only when it has fewer errors and
    no new syntax error."""
    raw = raw_text(path)  # keeps bytes that are not UTF-8 as they were
    read = raw.encode("utf-8", errors="surrogateescape")
    before = sum(d.severity == ERROR for d in diags)
    syntax_before = sum(d.code.startswith("syntax.") for d in diags)
    result = Result(raw, diagnostics=diags)
    if read.decode("utf-8", errors="replace") != text:
        result.refused = "the file changed on disk since it was checked; the file is unchanged"
        return result
    for _ in range(_ROUNDS):
        taken, edits = _choose(result.diagnostics)
        if not edits:
            break
        raw = apply_edits(raw, edits)
        text = apply_edits(text, edits)
        result.applied.extend(taken)
        result.diagnostics = recheck(text)
    if not result.applied:
        return result
    after = sum(d.severity == ERROR for d in result.diagnostics)
    if after >= before or sum(d.code.startswith("syntax.") for d in result.diagnostics) > syntax_before:
        result.refused = f"they would leave {after} error(s) where there were {before}"
        return result
    result.text = text
    try:
        fileio.write_atomic(path, raw.encode("utf-8", errors="surrogateescape"), expect=read)
    except fileio.WriteError as e:
        result.refused = f"{e.reason}; {'the file is unchanged' if e.existed else 'no file was created'}"
    return result
