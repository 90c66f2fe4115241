"""syntax.*: the text does not parse."""

from __future__ import annotations

import re

from ..model.module import Module
from ..syntax.parser import VALID_ID
from .diagnostic import ERROR, Diagnostic, at

# In a line with a shape (no strings or comments) every '%' starts an id: one search clears them all.
_BAD_ID = re.compile(r"%(?![A-Za-z0-9_])|%[A-Za-z0-9_]+[^\sA-Za-z0-9_=]")


def check(m: Module, scope=None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    lo, hi = (0, len(m.doc.lines) - 1) if scope is None else (scope.line, scope.end_line)
    for n in range(lo, hi + 1):
        line = m.doc.lines[n]
        if line.error:
            e = line.error
            out.append(at(n, e, ERROR, "syntax.parse", e.message))
        if line.shape is not None and not _BAD_ID.search(line.text):
            continue
        for tok in (line.result, *line.operands):
            if tok is not None and tok.kind == "ID" and not VALID_ID.fullmatch(tok.text):
                out.append(
                    at(
                        n,
                        tok,
                        ERROR,
                        "syntax.bad-id",
                        f"invalid id {tok.text!r}: an id is '%' followed by letters, "
                        "digits and '_' (spirv-as accepts no other characters)",
                    )
                )
    return out
