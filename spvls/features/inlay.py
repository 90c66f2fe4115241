"""Inlay hints: the type of each result id."""
from __future__ import annotations

from ..model.module import Module
from ..model.types import describe


def inlay_hints(m: Module, first: int, last: int) -> list[tuple[int, int, str]]:
    """(line, column after the result id, label)."""
    out = []
    for n in range(max(first, 0), min(last, len(m.doc.lines) - 1) + 1):
        inst = m.inst_at.get(n)
        if inst is None or not inst.result or not inst.result_type:
            continue
        t = m.definition(inst.result_type)
        if t is not None:
            out.append((n, inst.src.result.end, f": {describe(m, t)}"))
    return out
