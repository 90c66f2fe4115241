"""Each diagnostic on an instruction that carries a source location (OpLine, DebugLine) says where
in the shader source that instruction came from."""

from __future__ import annotations

from dataclasses import replace

from ..model.module import Module
from ..model.sourcemap import line_states, location_of
from .diagnostic import Diagnostic


def attach_sources(m: Module, diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics, each with its instruction's source location when it has one. The cost follows
    the diagnostics, not the module: a keystroke's re-check passes one function's."""
    if not diags:
        return diags
    found = {}
    for line, li in line_states(m, (d.line for d in diags)).items():
        loc = location_of(m, li)
        if loc is not None:
            found[line] = loc
    if not found:
        return diags
    return [replace(d, source=found[d.line]) if d.line in found else d for d in diags]
