"""The layout family: the logical layout of a module (SPIR-V 2.4)."""

from __future__ import annotations

from bisect import bisect_right

from ...model.module import Inst, Module
from ...spec.grammar import TYPE_CLASS
from ...spec.sections import SECTIONS as _SECTIONS
from ..diagnostic import ERROR, Diagnostic, at
from ..family import Family, Rule
from ..scope import Lines, Scope

_RANK = {op: i for i, (_, ops) in enumerate(_SECTIONS) for op in ops}
_ANNOTATIONS = len(_SECTIONS)
_GLOBALS = _ANNOTATIONS + 1
_FUNCTIONS = _GLOBALS + 1
_NAMES = [s for s, _ in _SECTIONS] + ["annotations", "types, constants and global variables", "functions"]
# Allowed wherever they are: line info and (non-semantic) extended instructions.
_ANYWHERE = {"OpLine", "OpNoLine", "OpExtInst", "OpExtInstWithForwardRefsKHR", "OpNop", "OpUndef"}


def _rank(inst: Inst) -> int | None:
    op = inst.opname
    if op in _RANK:
        return _RANK[op]
    if op in _ANYWHERE or inst.grammar_inst is None:
        return None
    # By class alone, not is_type: spirv-val places the unclassed vendor types (UNCLASSED) in functions.
    cls = inst.grammar_inst.cls
    if cls == "Annotation":
        return _ANNOTATIONS
    if cls in (TYPE_CLASS, "Constant-Creation") or op == "OpVariable" or op.startswith("OpUntypedVariable"):
        return _GLOBALS
    return _FUNCTIONS


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if scope is not None:  # an edit inside a function body cannot change the module's layout
        assert not isinstance(scope, Lines)  # not line-wise: given the module or a function
        return [d for d in _missing_model(m) if scope.line <= d.line <= scope.end_line]
    out: list[Diagnostic] = []
    highest, where = -1, 0  # where: the line that set highest (read only once highest >= 0)
    insts = m.insts
    ends = [i.line for i in m.with_op(("OpFunctionEnd",))]
    k = 0
    while k < len(insts):
        inst = insts[k]
        if inst.opname == "OpFunction":
            # Jump over the body, to just after the next OpFunctionEnd (or to the end).
            if highest < _FUNCTIONS:  # the first function: later module-level lines point here
                highest, where = _FUNCTIONS, inst.line
            e = bisect_right(ends, inst.line)
            after = len(insts)
            if e < len(ends):
                # A walk over the body (short beside the module): compiled, a bisection's calls of
                # its key cost more than the steps it saves.
                after, stop = k + 1, ends[e]
                while after < len(insts) and insts[after].line <= stop:
                    after += 1
            fn = m.function_of.get(inst.result or "")
            if fn is not None and fn.foreign and fn.blocks:  # it holds a module-level line (Function.foreign)
                # Before the first label, structure.outside-block speaks for the first line.
                out.extend(_in_function([i for i in insts[k + 1 : after] if i.line > fn.blocks[0].line]))
            k = after
            continue
        k += 1
        r = _rank(inst)
        if r is None:
            continue
        if r == _FUNCTIONS:
            out.append(_misplaced(inst, "layout.outside-function", "must be inside a function"))
            continue
        if r < highest:
            placed = f"belongs with {_NAMES[r]}, which must come before {_NAMES[highest]} (line {where + 1})"
            out.append(_misplaced(inst, "layout.order", placed))
            continue
        if r > highest:
            highest, where = r, inst.line
    out.extend(_missing_model(m))
    return out


def _in_function(body: list[Inst]) -> list[Diagnostic]:
    """Module-level instructions inside a function body (a variable's storage class is memory's)."""
    out = []
    for inst in body:
        r = _rank(inst)
        if r is not None and r != _FUNCTIONS and inst.opname != "OpVariable" and not _is_untyped_variable(inst):
            placed = f"belongs with {_NAMES[r]}, outside every function"
            out.append(_misplaced(inst, "layout.in-function", placed))
    return out


def _is_untyped_variable(inst: Inst) -> bool:
    return inst.opname.startswith("OpUntypedVariable")


def _missing_model(m: Module) -> list[Diagnostic]:
    """On the module's first instruction, which may be a function's when the lines above it do not parse."""
    if not m.insts or m.with_op(("OpMemoryModel",)):
        return []
    first = m.insts[0]
    message = "the module has no OpMemoryModel: exactly one is required (SPIR-V 2.4)"
    return [at(first.line, first.opcode, ERROR, "layout.missing-memory-model", message)]


def _misplaced(inst: Inst, code: str, what: str) -> Diagnostic:
    return at(inst.line, inst.opcode, ERROR, code, f"{inst.opname} {what} (SPIR-V 2.4 Logical Layout)")


FAMILY = Family(
    name="layout",
    prefix="layout",
    summary="the logical layout of a module (SPIR-V 2.4).",
    rules=(
        Rule("layout.order", "an instruction in a section after the one it belongs to."),
        Rule("layout.outside-function", "an instruction that belongs inside a function, outside every function."),
        Rule("layout.in-function", "a module-level instruction (header, annotation, type, constant) in a function."),
        Rule("layout.missing-memory-model", "a module without its one OpMemoryModel."),
    ),
    check=check,
)
