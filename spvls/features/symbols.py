"""Document symbols, workspace symbols and folding ranges."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.facts import module_fact
from ..model.module import Inst, Module
from ..model.sourcemap import function_names
from ..model.typeinfo import describe
from .interface import outline


@dataclass(slots=True)
class Symbol:
    name: str
    kind: str  # entry-point, function, block, type, variable, constant
    detail: str
    line: int  # the whole symbol: start and end lines
    end_line: int
    sel: tuple[int, int]  # (start, end) columns of its name on `line`
    children: list[Symbol] = field(default_factory=list)


def _sel(inst: Inst) -> tuple[int, int]:
    tok = inst.src.result or inst.opcode
    return tok.start, tok.end


def _name_sel(inst: Inst) -> tuple[int, int]:
    """An entry point's name string (its symbol's name), else the opcode."""
    tok = next((o.token for o in inst.operands if o.grammar_operand.kind == "LiteralString"), None)
    return (tok.start, tok.end) if tok else _sel(inst)


@module_fact
def document_symbols(m: Module) -> list[Symbol]:
    return _document_symbols(m)


# An outline of every block of a 100k-line module is megabytes of JSON for each request an editor
# makes while the user types; past this many blocks, functions are listed without them.
MAX_BLOCK_SYMBOLS = 5000


def _document_symbols(m: Module) -> list[Symbol]:
    out = []
    for ep in m.entry_points.values():
        # Its resources as children; its range reaches down to their variables.
        children = [Symbol(e.name, "variable", e.detail, e.line, e.line, e.selection) for e in outline(m, ep)]
        end = max([ep.inst.line, *(c.line for c in children)])
        out.append(
            Symbol(ep.name, "entry-point", f"{ep.model} {ep.id}", ep.inst.line, end, _name_sel(ep.inst), children)
        )
    for inst in m.outside_functions():
        if not inst.result:
            continue
        op = inst.opname
        if inst.is_type:
            kind = "type"
        elif op == "OpVariable":
            kind = "variable"
        elif inst.grammar_inst and inst.grammar_inst.cls == "Constant-Creation":
            kind = "constant"
        else:
            continue
        detail = describe(m, inst) if kind == "type" else describe(m, m.definition(inst.result_type))
        out.append(
            Symbol(
                m.name_of(inst.result) if kind == "variable" else inst.result,
                kind,
                detail,
                inst.line,
                inst.line,
                _sel(inst),
            )
        )
    with_blocks = sum(len(f.blocks) for f in m.functions) <= MAX_BLOCK_SYMBOLS
    # Functions known only by a number (spirv-dis --raw-id, or no OpName) take their DebugFunction's name.
    source_names = function_names(m) if any(m.name_of(f.id)[1:].isdigit() for f in m.functions) else {}
    for f in m.functions:
        detail = describe(m, m.definition(f.inst.result_type)) if f.inst.result_type else ""
        if not with_blocks:
            detail += f" · {len(f.blocks)} block" + ("" if len(f.blocks) == 1 else "s")
        name = m.name_of(f.id)
        sym = Symbol(
            source_names.get(f.id, name) if name[1:].isdigit() else name,
            "function",
            detail,
            f.line,
            f.end_line,
            _sel(f.inst),
        )
        if not with_blocks:
            out.append(sym)
            continue
        for i, b in enumerate(f.blocks):
            end = f.blocks[i + 1].line - 1 if i + 1 < len(f.blocks) else f.end_line
            if b.label_inst is not None:
                sym.children.append(Symbol(b.label, "block", "", b.line, max(b.line, end), _sel(b.label_inst)))
        out.append(sym)
    return out


MAX_WORKSPACE_SYMBOLS = 1000


def workspace_symbols(modules: dict[str, Module], query: str) -> list[tuple[str, Symbol]]:
    q = query.lower()
    out = []
    for uri, m in modules.items():
        for s in document_symbols(m):
            for x in [s, *s.children]:
                if q in x.name.lower():
                    out.append((uri, x))
                    if len(out) >= MAX_WORKSPACE_SYMBOLS:
                        return out
    return out


@module_fact
def folding_ranges(m: Module) -> list[tuple[int, int, str]]:
    """(start line, end line, kind) for functions, runs of declarations and long strings."""
    return _folding_ranges(m)


def _folding_ranges(m: Module) -> list[tuple[int, int, str]]:
    out = [(f.line, f.end_line, "region") for f in m.functions if f.end_line > f.line]
    run_start, run_kind, prev = -2, None, -2  # run_start is read only once a run has a kind
    for inst in m.insts:
        op = inst.opname
        group = (
            "decorations"
            if inst.grammar_inst and inst.grammar_inst.cls == "Annotation"
            else "names"
            if op in ("OpName", "OpMemberName")
            else "types"
            if (inst.is_type or (inst.grammar_inst and inst.grammar_inst.cls == "Constant-Creation"))
            else None
        )
        if group != run_kind or inst.line != prev + 1:
            if run_kind and prev - run_start >= 2:
                out.append((run_start, prev, "region"))
            run_start, run_kind = inst.line, group
        prev = inst.line
    if run_kind and prev - run_start >= 2:
        out.append((run_start, prev, "region"))
    for n, span in enumerate(m.doc.span):
        if span > 1:
            out.append((n, n + span - 1, "region"))
    return sorted(set(out))
