"""Inlay hints: the type of each result id, and what a Scope or Memory Semantics <id> stands for."""

from __future__ import annotations

from ..model.module import Module
from ..model.typeinfo import describe


def inlay_hints(m: Module, first: int, last: int) -> list[tuple[int, int, str, str]]:
    """(line, column, label, kind): kind "type" after a result id, "value" after a Scope or Memory
    Semantics operand whose constant's name does not already say it (`%uint_2` → `Workgroup`)."""
    out = []
    for n in range(max(first, 0), min(last, len(m.doc.lines) - 1) + 1):
        inst = m.inst_at.get(n)
        if inst is None:
            continue
        type_id = inst.result_type
        if inst.opname == "OpFunction":
            # Its Result Type is what it returns; its type is its Function Type operand.
            rest = inst.ids(skip_type=True)
            type_id = rest[0].token.text if rest else None
        if inst.src.result and type_id:
            t = m.definition(type_id)
            if t is not None:
                out.append((n, inst.src.result.end, f": {describe(m, t)}", "type"))
        for op in inst.match.operands:
            spelled = m.spelled(op)
            if spelled and spelled[2].lower().replace("|", "") not in op.token.text.lower().replace("_", ""):
                out.append((n, op.token.end, spelled[2], "value"))
    return out
