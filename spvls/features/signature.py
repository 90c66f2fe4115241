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


# The operand kinds that name another instruction, whose operands follow.
_NAMED_INSTRUCTION = ("LiteralExtInstInteger", "LiteralSpecConstantOpInteger")


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
    slot = next((i for i, o in enumerate(params) if o.kind in _NAMED_INSTRUCTION), None)
    if c.ext_inst is not None and slot is not None:
        # OpExtInst with a known set, or OpSpecConstantOp with a known opcode: the named instruction's
        # operands replace the slot that names it and what follows (the spec-constant opcode's own
        # result type and id are OpSpecConstantOp's).
        inner = [o for o in c.ext_inst.operands if o.kind not in ("IdResultType", "IdResult")]
        params = [*params[:slot], GrammarOperand(params[slot].kind, "", ""), *inner]
        named = c.ext_inst.name
        if params[slot].kind == "LiteralSpecConstantOpInteger":
            named = named.removeprefix("Op")  # spelt as OpSpecConstantOp takes it
        labels = [*labels[:slot], named, *(_label(o) for o in inner)]
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
