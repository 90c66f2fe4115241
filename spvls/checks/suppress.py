"""Inline suppression, and choosing diagnostics by code or family.

    OpGroupNonUniformRotateKHR ...   ; spvls: ignore[rotate.cluster-size]   (this line)
    ; spvls: ignore[rotate]                                                  (the next line)
    ; spvls: ignore-file[capability.missing, layout]                         (the whole file)

A name is a code (`rotate.cluster-size`) or a family (`rotate`). A suppression that silences
nothing is itself reported (`suppression.unused`), so stale ones do not pile up."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..syntax.parser import parse_line
from .diagnostic import WARNING, Diagnostic

_MARK = re.compile(r"spvls:\s*(ignore|ignore-file)\s*\[([^\]]*)\]")


def may_hold(text: str) -> bool:
    """Whether a text (a line, or a whole document: the mark spans no line break) may hold a
    suppression comment; without one, applying suppressions changes nothing."""
    return "spvls:" in text


def matches(code: str, names: Iterable[str]) -> bool:
    """Whether `code` is one of `names` or in one of their families."""
    return any(code == n or code.startswith(n + ".") for n in names)


def split_names(values: list[str] | None) -> list[str]:
    """`--select a,b --select c` → [a, b, c]."""
    return [n.strip() for v in values or () for n in v.split(",") if n.strip()]


@dataclass
class _Mark:
    line: int  # where the comment is
    target: int | None  # the line it covers; None for the whole file
    start: int  # column of the name list in the comment
    names: list[str]
    used: set[str] = field(default_factory=set)


def _marks(texts: list[str]) -> list[_Mark]:
    out = []
    for n, text in enumerate(texts):
        if not may_hold(text):
            continue
        parsed = parse_line(text)
        comment = parsed.comment
        if comment is None:
            continue
        m = _MARK.search(comment.text)
        if not m:
            continue
        names = [x.strip() for x in m.group(2).split(",") if x.strip()]
        alone = parsed.opcode is None and parsed.result is None
        target = None if m.group(1) == "ignore-file" else (n + 1 if alone else n)
        out.append(_Mark(n, target, comment.start + m.start(2), names))
    return out


def apply(texts: list[str], diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics the file's suppressions leave, plus a warning for each unused name."""
    marks = _marks(texts)
    if not marks:
        return diags
    kept = []
    for d in diags:
        hit = [k for k in marks if k.target in (None, d.line) and matches(d.code, k.names)]
        for k in hit:
            k.used.update(n for n in k.names if matches(d.code, [n]))
        if not hit:
            kept.append(d)
    for k in marks:
        for name in k.names:
            if name not in k.used:
                col = k.start + texts[k.line][k.start :].find(name)
                where = "in this file" if k.target is None else f"on line {k.target + 1}"
                kept.append(
                    Diagnostic(
                        k.line,
                        col,
                        col + len(name),
                        WARNING,
                        "suppression.unused",
                        f"unused suppression: no '{name}' diagnostic {where}",
                    )
                )
    return sorted(kept, key=lambda d: (d.line, d.start, d.code))
