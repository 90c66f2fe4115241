"""Signature help: the instruction's operands, the one being typed highlighted."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.module import Module
from .context import cursor
from .docs import instruction_md


@dataclass(slots=True)
class Signature:
    label: str
    parameters: list[str]
    active: int
    documentation: str


def signature_help(m: Module, line: int, col: int) -> Signature | None:
    c = cursor(m, line, col)
    if c is None or c.inst is None or c.opcode_slot:
        return None
    inst = c.inst
    params = [o for o in inst.operands if o.kind != "IdResult"]
    labels = [f"<{o.name or o.kind}>{o.quantifier}" for o in params]
    head = f"%result = {inst.name}" if inst.has_result else inst.name
    active = len(params) - 1
    if c.expected is not None:
        for i, o in enumerate(params):
            if o == c.expected:
                active = i
                break
        else:
            # An enumerant's own parameter (e.g. LocalSize x y z): show it after the signature.
            labels.append(f"<{c.expected.name or c.expected.kind}>")
            active = len(labels) - 1
    return Signature(" ".join([head, *labels]), labels, max(active, 0), instruction_md(inst))
