"""Call hierarchy: who calls a function, and what it calls (OpFunctionCall edges of the model)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.module import Function, Inst, Module
from ..model.typeinfo import type_text
from .context import Span, id_at


@dataclass(frozen=True, slots=True)
class CallItem:
    id: str
    name: str  # the OpName, else the id
    detail: str  # its type, and the entry point it is
    first_line: int
    last_line: int
    selection: Span  # the function's result id on its OpFunction line


def _item(m: Module, fn: Function) -> CallItem:
    ep = m.entry_points.get(fn.id)
    detail = type_text(m, fn.id) or ""
    if ep is not None:
        detail = f'{detail} · entry point {ep.model} "{ep.name}"'
    res = fn.inst.src.result or fn.inst.opcode  # an OpFunction missing its '%id =' still has callees
    return CallItem(fn.id, m.name_of(fn.id), detail, fn.line, fn.end_line, (fn.line, res.start, res.end))


def function_at(m: Module, line: int, col: int) -> CallItem | None:
    """The function named by the id under the cursor, or the one whose OpFunction line it is on."""
    tok = id_at(m, line, col)
    fn = m.function_of.get(tok.text) if tok else None
    return _item(m, fn) if fn is not None else None


def incoming(m: Module, fn_id: str) -> list[tuple[CallItem, list[Span]]]:
    """Each function that calls fn_id, with its call sites (the callee operand)."""
    out = []
    for caller in m.functions:
        sites = [_callee_span(inst) for callee, inst in caller.calls if callee == fn_id]
        if sites:
            out.append((_item(m, caller), sites))
    return out


def outgoing(m: Module, fn_id: str) -> list[tuple[CallItem, list[Span]]]:
    """Each function fn_id calls, with the call sites in fn_id, in order of first call."""
    fn = m.function_of.get(fn_id)
    if fn is None:
        return []
    by_callee: dict[str, list[Span]] = {}
    for callee, inst in fn.calls:
        if callee in m.function_of:
            by_callee.setdefault(callee, []).append(_callee_span(inst))
    return [(_item(m, m.function_of[c]), sites) for c, sites in by_callee.items()]


def _callee_span(inst: Inst) -> Span:
    op = inst.operand("Function")
    tok = op.token if op is not None else inst.opcode
    return inst.line, tok.start, tok.end
