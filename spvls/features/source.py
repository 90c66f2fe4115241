"""From an instruction back to the shader source it came from: the definition target and the
source-line inlay hints (finding the files: sourcefiles.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..model.module import Inst, Module
from ..model.sourcemap import debug_op, location, locations
from .sourcefiles import target


def definition(m: Module, line: int, col: int, folders: Sequence[Path] = ()) -> tuple[Path, int, int] | None:
    """On an instruction's opcode: where in the source it came from (a relative name is also looked
    for in the workspace `folders`)."""
    src = m.doc.line(line)
    tok = src.token_at(col) if src else None
    if tok is None or tok.kind != "OPNAME" or line not in m.inst_at:
        return None
    loc = location(m, line)
    return target(m, loc, folders) if loc is not None else None


def _is_debug(m: Module, inst: Inst) -> bool:
    return inst.opname in ("OpLine", "OpNoLine") or debug_op(m, inst) is not None


def source_hints(m: Module, first: int, last: int) -> list[tuple[int, int, str]]:
    """(line, column, label): `a.comp:7` after the first instruction of each run of instructions
    mapped to one source line (debug instructions themselves are passed over)."""
    prev = None
    for n in range(first - 1, -1, -1):  # the run the range starts in, from the instruction before it
        inst = m.inst_at.get(n)
        if inst is not None and not _is_debug(m, inst):
            loc = location(m, n)
            prev = (loc.file, loc.line) if loc else None
            break
    out = []
    for inst, loc in locations(m, max(first, 0), last):
        if _is_debug(m, inst):
            continue
        key = (loc.file, loc.line) if loc else None
        if key != prev and loc is not None and loc.line > 0:
            out.append((inst.line, len(inst.src.text.rstrip()), f"{Path(loc.file).name}:{loc.line}"))
        prev = key
    return out
