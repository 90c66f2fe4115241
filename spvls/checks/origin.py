"""Each diagnostic on an instruction that carries a source location (OpLine, DebugLine) says where
in the shader source that instruction came from."""
from __future__ import annotations

from dataclasses import replace

from ..model.module import Module
from ..model.sourcemap import locations
from .diagnostic import Diagnostic


def attach_sources(m: Module, diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics (sorted by line), each with its instruction's source location when it has one.
    One sweep over the lines they span: a keystroke's re-check passes one function's diagnostics."""
    if not diags:
        return diags
    lines = {d.line for d in diags}
    found = {inst.line: loc for inst, loc in locations(m, diags[0].line, diags[-1].line)
             if loc is not None and inst.line in lines}
    if not found:
        return diags
    return [replace(d, source=found[d.line]) if d.line in found else d for d in diags]
