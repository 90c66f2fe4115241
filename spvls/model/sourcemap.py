"""Where each instruction came from in the shader source.

Read from OpLine/OpNoLine (file names in OpString) and from the DebugInfo extended sets
(NonSemantic.Shader.DebugInfo.100, OpenCL.DebugInfo.100 and the older DebugInfo): DebugLine,
DebugNoLine, DebugScope, DebugInlinedAt, DebugFunction, DebugFunctionDefinition, DebugSource;
and the source text the module embeds (OpSource/OpSourceContinued, DebugSource/DebugSourceContinued).
Operands are read by the names the grammar JSONs give them.

Nothing is computed until asked, and nothing kept can go stale: the module-level facts (embedded
texts, the state entering each function) are memoized because the edits a model takes in place
only touch function bodies; a location inside a body is found by walking back to its block's start.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..syntax.parser import int_value, string_value
from .facts import module_fact
from .module import TERMINATORS, Inst, Module

DEBUG_SETS = ("NonSemantic.Shader.DebugInfo.100", "OpenCL.DebugInfo.100", "DebugInfo")
_EXT_OPS = ("OpExtInst", "OpExtInstWithForwardRefsKHR")
# Instructions after which no line or scope is in effect: SPIR-V 2.4's "end of block" for OpLine, and
# the DebugInfo sets' same rule for DebugLine and DebugScope; a function's end closes a module-level OpLine.
_ENDS = TERMINATORS | {"OpFunctionEnd"}


@dataclass(frozen=True, slots=True)
class SourceLoc:
    file: str  # as the module writes it
    line: int  # 1-based; 0 when unknown
    column: int  # 1-based; 0 when unknown

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column > 0 else "")


@dataclass(frozen=True, slots=True)
class Inlining:
    """One step of an inlining chain: the code was inlined into `function` at `at`."""

    function: str
    at: SourceLoc | None


def debug_op(m: Module, inst: Inst) -> str | None:
    """The DebugInfo instruction an OpExtInst is (e.g. 'DebugLine'), or None."""
    if inst.opname not in _EXT_OPS or inst.match.ext_inst is None:
        return None
    ids = inst.ids(skip_type=True)
    if len(ids) < 1 or m.ext_imports.get(ids[0].token.text) not in DEBUG_SETS:
        return None
    return inst.match.ext_inst.name


def _kind(m: Module, inst: Inst) -> str | None:
    """'line', 'noline', 'scope', 'noscope', or 'end' for an instruction that closes both."""
    op = inst.opname
    if op == "OpLine":
        return "line"
    if op == "OpNoLine":
        return "noline"
    if op in _ENDS:
        return "end"
    d = debug_op(m, inst) if op in _EXT_OPS else None
    if d is None:
        return None
    return {"DebugLine": "line", "DebugNoLine": "noline", "DebugScope": "scope", "DebugNoScope": "noscope"}.get(d)


# -- reading operands ---------------------------------------------------------------------------
def _value(m: Module, inst: Inst, name: str) -> int | None:
    """A number operand: a literal (OpLine, OpenCL.DebugInfo.100) or the <id> of an integer
    constant (NonSemantic.Shader.DebugInfo.100)."""
    op = inst.operand(name)
    if op is None:
        return None
    return m.int_value(op.token.text) if op.is_id else int_value(op.token.text)


def _ref(m: Module, inst: Inst, name: str) -> Inst | None:
    op = inst.operand(name)
    return m.definition(op.token.text) if op is not None and op.is_id else None


def string_of(m: Module, d: Inst | None) -> str | None:
    """The text of an OpString."""
    if d is None or d.opname != "OpString":
        return None
    lit = d.literal(0)
    return string_value(lit) if lit is not None else None


def _source_file(m: Module, source: Inst | None) -> str | None:
    """A file name from an OpString or a DebugSource."""
    if source is None:
        return None
    if source.opname == "OpString":
        return string_of(m, source)
    if debug_op(m, source) == "DebugSource":
        return string_of(m, _ref(m, source, "File"))
    return None


def location_of(m: Module, line_inst: Inst | None) -> SourceLoc | None:
    """The location an OpLine or DebugLine names."""
    if line_inst is None:
        return None
    if line_inst.opname == "OpLine":
        file = string_of(m, _ref(m, line_inst, "File"))
        line, col = _value(m, line_inst, "Line"), _value(m, line_inst, "Column")
    else:
        file = _source_file(m, _ref(m, line_inst, "Source"))
        line, col = _value(m, line_inst, "Line Start"), _value(m, line_inst, "Column Start")
    if file is None:
        return None
    return SourceLoc(file, max(line or 0, 0), max(col or 0, 0))


# -- what is in effect where ---------------------------------------------------------------------
def _index(m: Module, line: int) -> int:
    return bisect_left(m.insts, line, key=lambda i: i.line)


@module_fact
def _entry_line(m: Module, fn_line: int, k: int) -> Inst | None:
    """The OpLine in effect at the OpFunction at m.insts[k] (read from module-level lines)."""
    found = None
    for i in range(k - 1, -1, -1):
        kind = _kind(m, m.insts[i])
        if kind == "line":
            found = m.insts[i]
            break
        if kind in ("noline", "end"):
            break
    return found


def in_effect(m: Module, line: int) -> tuple[Inst | None, Inst | None]:
    """The OpLine/DebugLine and the DebugScope that apply to the instruction on `line`
    (a line or scope instruction applies to itself)."""
    k = _index(m, line)
    if k >= len(m.insts) or m.insts[k].line != line:
        return None, None
    found_line = found_scope = None
    done_line = done_scope = False
    for i in range(k, -1, -1):
        inst = m.insts[i]
        kind = _kind(m, inst)
        if kind == "end" and i < k:
            break
        if not done_line and kind in ("line", "noline"):
            found_line, done_line = (inst if kind == "line" else None), True
        if not done_scope and kind in ("scope", "noscope"):
            found_scope, done_scope = (inst if kind == "scope" else None), True
        if done_line and done_scope:
            break
        if inst.opname == "OpFunction":
            if not done_line:
                found_line = _entry_line(m, inst.line, i)
            break
    return found_line, found_scope


def line_states(m: Module, lines: Iterable[int]) -> dict[int, Inst]:
    """The OpLine/DebugLine in effect on each of these instruction lines (those with none left out).
    Each walk back stops at the previous line asked about, so the cost follows the gaps between
    them, never the module's size (a keystroke's re-check asks for one function's diagnostics)."""
    out: dict[int, Inst] = {}
    floor, floor_after = -1, None  # the previous line's index, and the state after it
    for line in sorted(set(lines)):
        k = _index(m, line)
        if k >= len(m.insts) or m.insts[k].line != line:
            continue
        state = None
        for i in range(k, -1, -1):
            if i == floor:
                state = floor_after
                break
            inst = m.insts[i]
            kind = _kind(m, inst)
            if kind == "end" and i < k:
                break
            if kind in ("line", "noline"):
                state = inst if kind == "line" else None
                break
            if inst.opname == "OpFunction":
                state = _entry_line(m, inst.line, i)
                break
        if state is not None:
            out[line] = state
        floor, floor_after = k, None if _kind(m, m.insts[k]) in ("end", "noline") else state
    return out


def sweep(
    m: Module, insts: Iterable[Inst], line: Inst | None = None, scope: Inst | None = None
) -> Iterator[tuple[Inst, Inst | None, Inst | None]]:
    """(instruction, OpLine/DebugLine in effect, DebugScope in effect) for consecutive
    instructions, starting from the given state."""
    for inst in insts:
        kind = _kind(m, inst)
        if kind == "line":
            line = inst
        elif kind == "noline":
            line = None
        elif kind == "scope":
            scope = inst
        elif kind == "noscope":
            scope = None
        yield inst, line, scope
        if kind == "end":
            line = scope = None


def location(m: Module, line: int) -> SourceLoc | None:
    return location_of(m, in_effect(m, line)[0])


def locations(m: Module, first: int, last: int) -> Iterator[tuple[Inst, SourceLoc | None]]:
    """(instruction, location) for the instructions on lines first..last, in order."""
    k = _index(m, first)
    if k >= len(m.insts):
        return
    # The sweep re-reads the first instruction, so its own line or scope instruction overrides this.
    line, scope = in_effect(m, m.insts[k].line)
    hi = _index(m, last + 1)
    cache: dict[int, SourceLoc | None] = {}
    for inst, li, _ in sweep(m, m.insts[k:hi], line, scope):
        if li is None:
            yield inst, None
            continue
        if id(li) not in cache:
            cache[id(li)] = location_of(m, li)
        yield inst, cache[id(li)]


# -- scopes, functions, inlining ------------------------------------------------------------------
def _function_of_scope(m: Module, scope: Inst | None) -> Inst | None:
    """The DebugFunction a lexical scope belongs to (walking DebugLexicalBlock parents)."""
    for _ in range(64):  # scopes nest; a cycle in broken input must not loop forever
        if scope is None:
            return None
        op = debug_op(m, scope)
        if op == "DebugFunction":
            return scope
        if op not in ("DebugLexicalBlock", "DebugLexicalBlockDiscriminator"):
            return None
        scope = _ref(m, scope, "Parent") or _ref(m, scope, "Scope")
    return None


def _scope_source(m: Module, scope: Inst | None) -> str | None:
    for _ in range(64):
        if scope is None:
            return None
        file = _source_file(m, _ref(m, scope, "Source"))
        if file is not None:
            return file
        scope = _ref(m, scope, "Parent")
    return None


def scope_function_name(m: Module, scope: Inst | None) -> str | None:
    """The source name of the function a DebugScope's scope belongs to."""
    if scope is not None and debug_op(m, scope) == "DebugScope":
        scope = _ref(m, scope, "Scope")
    return string_of(m, _ref(m, _function_of_scope(m, scope) or scope, "Name")) if scope else None


def inlining(m: Module, scope: Inst | None) -> list[Inlining]:
    """Where the code under a DebugScope was inlined, innermost first."""
    out: list[Inlining] = []
    at = _ref(m, scope, "Inlined At") if scope is not None else None
    seen = set()
    while at is not None and debug_op(m, at) == "DebugInlinedAt" and at.line not in seen:
        seen.add(at.line)
        into = _ref(m, at, "Scope")
        name = scope_function_name(m, into) or "?"
        file, line = _scope_source(m, into), _value(m, at, "Line")
        out.append(Inlining(name, SourceLoc(file, line or 0, 0) if file else None))
        at = _ref(m, at, "Inlined")
    return out


def _debug_insts(m: Module) -> list[Inst]:
    """Every instruction of an imported DebugInfo set, in line order (they all use the set's id)."""
    out: list[Inst] = []
    for set_id, name in m.ext_imports.items():
        if name in DEBUG_SETS:
            out += [i for i, op in m.references(set_id) if op.grammar_operand.name == "Set"]
    return sorted(out, key=lambda i: i.line)


def function_names(m: Module) -> dict[str, str]:
    """OpFunction id -> its source name, from DebugFunction's 'Function' operand (OpenCL.DebugInfo.100)
    or DebugFunctionDefinition (NonSemantic.Shader.DebugInfo.100)."""
    out: dict[str, str] = {}
    for inst in _debug_insts(m):
        op = debug_op(m, inst)
        dfn: Inst | None
        if op == "DebugFunction":
            fn, dfn = inst.operand("Function"), inst
        elif op == "DebugFunctionDefinition":
            fn, dfn = inst.operand("Definition"), _ref(m, inst, "Function")
        else:
            continue
        name = string_of(m, _ref(m, dfn, "Name")) if dfn is not None else None
        if fn is not None and fn.is_id and name and fn.token.text in m.function_of:
            out.setdefault(fn.token.text, name)
    return out


# -- embedded source text ------------------------------------------------------------------------
@module_fact
def embedded_texts(m: Module) -> dict[str, str]:
    """File name -> the source text the module embeds (module-level)."""
    out: dict[str, list[str]] = {}
    last: list[str] | None = None
    for inst in m.outside_functions():
        op = inst.opname
        if op == "OpSource":
            file = string_of(m, _ref(m, inst, "File"))
            src = inst.operand("Source")
            last = None
            if file is not None and src is not None:
                last = out.setdefault(file, [])
                last.append(string_value(src.token.text))
        elif op == "OpSourceContinued" and last is not None:
            src = inst.operand("Continued Source")
            if src is not None:
                last.append(string_value(src.token.text))
        elif op in _EXT_OPS:
            d = debug_op(m, inst)
            if d == "DebugSource":
                file = _source_file(m, inst)
                text = string_of(m, _ref(m, inst, "Text"))
                last = None
                if file is not None and text is not None and file not in out:
                    last = out[file] = [text]
            elif d == "DebugSourceContinued" and last is not None:
                text = string_of(m, _ref(m, inst, "Text"))
                if text is not None:
                    last.append(text)
            else:
                last = None if d is not None else last
        elif op not in ("OpString",):
            last = None
    return {k: "".join(v) for k, v in out.items()}
