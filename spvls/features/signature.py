"""Signature help: the instruction's operands, the one being typed highlighted."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.module import Module
from ..spec.grammar import GrammarOperand
from .context import cursor
from .docs import instruction_md


@dataclass(slots=True)
class Signature:
    label: str
    parameters: list[str]
    active: int
    documentation: str


def _label(o: GrammarOperand) -> str:
    return f"<{o.name or o.kind}>{o.quantifier}"


def signature_help(m: Module, line: int, col: int) -> Signature | None:
    c = cursor(m, line, col)
    if c is None or c.inst is None or c.opcode_slot:
        return None
    inst = c.inst
    params = [o for o in inst.operands if o.kind != "IdResult"]
    labels = [_label(o) for o in params]
    doc = instruction_md(inst)
    if c.ext_inst is not None:
        # OpExtInst with a known set: the set's instruction replaces <Instruction> and the '*' after it.
        at = next(i for i, o in enumerate(params) if o.kind == "LiteralExtInstInteger")
        params = [*params[:at], GrammarOperand("LiteralExtInstInteger", "", ""), *c.ext_inst.operands]
        labels = [*labels[:at], c.ext_inst.name, *(_label(o) for o in c.ext_inst.operands)]
        doc = instruction_md(c.ext_inst, c.ext_set)
    head = f"%result = {inst.name}" if inst.has_result else inst.name
    active = len(params) - 1
    if c.expected is not None:
        # The pending operand is one of params itself: find it by identity (two may be equal in value).
        found = next((i for i, o in enumerate(params) if o is c.expected), None)
        if found is None:
            found = next((i for i, o in enumerate(params) if o == c.expected), None)
        if found is not None:
            active = found
        else:
            # An enumerant's own parameter (e.g. LocalSize x y z): show it after the signature.
            labels.append(_label(c.expected).removesuffix(c.expected.quantifier))
            active = len(labels) - 1
    return Signature(" ".join([head, *labels]), labels, max(active, 0), doc)
