"""Definition, references, highlights and rename of ids."""

from __future__ import annotations

from ..model.module import Module
from ..syntax.parser import VALID_ID
from .context import Span, id_at


def definition(m: Module, line: int, col: int) -> Span | None:
    tok = id_at(m, line, col)
    d = m.definition(tok.text) if tok else None
    if d is None or d.src.result is None:
        return None
    return d.line, d.src.result.start, d.src.result.end


def references(m: Module, line: int, col: int, include_declaration: bool = True) -> list[Span]:
    tok = id_at(m, line, col)
    if tok is None:
        return []
    out: list[Span] = []
    if include_declaration:
        out += [
            (d.line, d.src.result.start, d.src.result.end)
            for d in [m.defs.get(tok.text), *[x for x in m.duplicates if x.result == tok.text]]
            if d and d.src.result
        ]
    out += [(inst.line, op.token.start, op.token.end) for inst, op in m.references(tok.text)]
    return sorted(set(out))


def highlights(m: Module, line: int, col: int) -> list[tuple[Span, bool]]:
    """Each occurrence, and whether it is the definition (a write)."""
    tok = id_at(m, line, col)
    if tok is None:
        return []
    d = m.defs.get(tok.text)
    spans = references(m, line, col)
    res = d.src.result if d is not None else None
    return [(s, d is not None and res is not None and s == (d.line, res.start, res.end)) for s in spans]


def prepare_rename(m: Module, line: int, col: int) -> Span | None:
    tok = id_at(m, line, col)
    if tok is None or tok.text not in m.defs:
        return None
    return line, tok.start, tok.end


class RenameError(ValueError):
    pass


def rename(m: Module, line: int, col: int, new_name: str) -> list[tuple[Span, str]]:
    tok = id_at(m, line, col)
    if tok is None or tok.text not in m.defs:
        raise RenameError("place the cursor on a defined id (%name) to rename it")
    new = new_name if new_name.startswith("%") else "%" + new_name
    if not VALID_ID.fullmatch(new):
        raise RenameError(f"{new!r} is not a valid id: use '%' followed by letters, digits and '_'")
    if new in m.defs and new != tok.text:
        raise RenameError(f"{new} is already defined on line {m.defs[new].line + 1}")
    return [(s, new) for s in references(m, line, col)]
