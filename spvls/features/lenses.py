"""Code lenses: on each OpEntryPoint, what the entry point uses (`2 UBOs, 1 SSBO, 3 textures ·
push constants 64 B · 2 inputs`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.facts import module_fact
from ..model.module import Module
from .interface import summary


@dataclass(frozen=True)
class Lens:
    line: int
    start: int  # the columns of the entry point's name
    end: int
    title: str


@module_fact
def lenses(m: Module) -> list[Lens]:
    out = []
    for ep in m.entry_points.values():
        tok = next((o.token for o in ep.inst.operands if o.grammar_operand.kind == "LiteralString"), ep.inst.opcode)
        out.append(Lens(ep.inst.line, tok.start, tok.end, summary(m, ep)))
    return out
