"""ballot.*: SPV_KHR_shader_ballot."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.typeinfo import describe, int_info, vector_of
from ...spec.env import is_vulkan
from ..diagnostic import ERROR, WARNING, Diagnostic, related_at
from ..family import Family, Rule
from ..scope import Scope, with_op

# The mask builtins the extension adds (by the grammar's canonical names; a test checks they exist).
MASKS = {"SubgroupEqMask", "SubgroupGeMask", "SubgroupGtMask", "SubgroupLeMask", "SubgroupLtMask"}


def _is_u32x4(m: Module, t: Inst | None) -> bool:
    v = vector_of(m, t)
    return v is not None and v[1] == 4 and (int_info(v[0]) or (0,))[0] == 32


_OPS = (
    "OpDecorate",
    "OpMemberDecorate",
    "OpSubgroupBallotKHR",
    "OpSubgroupReadInvocationKHR",
    "OpSubgroupFirstInvocationKHR",
)


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in with_op(m, _OPS, scope):
        op = inst.opname
        if op in ("OpDecorate", "OpMemberDecorate"):
            out.extend(_builtin(m, inst))
        elif op == "OpSubgroupBallotKHR":
            out.extend(_ballot(m, inst))
        elif op in ("OpSubgroupReadInvocationKHR", "OpSubgroupFirstInvocationKHR"):
            out.extend(_read(m, inst))
    return out


def _builtin(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.operands
    mask = next(
        (o for o in ops if o.enumerants and o.enumerants[0].kind == "BuiltIn" and o.enumerants[0].name in MASKS), None
    )
    if mask is None:
        return []
    name = mask.token.text
    if inst.opname == "OpMemberDecorate":
        return [
            FAMILY.cite(
                inst.line,
                mask.token,
                "ballot.member-decoration",
                f"BuiltIn {name} cannot be used as a member decoration",
            )
        ]
    var = m.definition(ops[0].token.text)
    if var is None or var.opname != "OpVariable":
        return []
    out = []
    # Vulkan makes these rules (VUID-SubgroupEqMask-SubgroupEqMask-04371/04372); elsewhere the
    # extension only describes the type, so we warn.
    sev = ERROR if is_vulkan(m.env) else WARNING
    ptr = m.definition(var.result_type)
    rel = (related_at(var.line, var.src.result, f"{var.result} is declared here"),)
    sc = next((o for o in var.operands if o.enumerants), None)
    if sc is not None and sc.enumerants[0].name != "Input":
        out.append(
            FAMILY.cite(
                inst.line,
                mask.token,
                "ballot.mask-storage",
                f"{name} decorates {var.result}, a {sc.enumerants[0].name} variable; it must be Input",
                severity=sev,
                related=rel,
            )
        )
    pointee = m.strip_pointer(ptr)
    if pointee is not None and not _is_u32x4(m, pointee):
        out.append(
            FAMILY.cite(
                inst.line,
                mask.token,
                "ballot.mask-type",
                f"{name} decorates {var.result} of type {describe(m, pointee)}; "
                "it must be a 4-component vector of 32-bit integers",
                severity=sev,
                related=rel,
            )
        )
    return out


def _ballot(m: Module, inst: Inst) -> list[Diagnostic]:
    out = []
    rt = m.definition(inst.result_type)
    if rt is not None and not _is_u32x4(m, rt):
        out.append(
            FAMILY.cite(
                inst.line,
                inst.operands[0].token,
                "ballot.result-type",
                f"the result is {describe(m, rt)}",
                severity=WARNING,
            )
        )
    pred = inst.operand("Predicate")
    pt = m.type_of(pred.token.text) if pred else None
    if pred and pt is not None and pt.opname != "OpTypeBool":
        out.append(
            FAMILY.cite(inst.line, pred.token, "ballot.predicate", f"Predicate is {describe(m, pt)}", severity=WARNING)
        )
    return out


def _read(m: Module, inst: Inst) -> list[Diagnostic]:
    out = []
    rt = m.definition(inst.result_type)
    value = inst.operand("Value")
    vt = m.type_of(value.token.text) if value else None
    if value and rt is not None and vt is not None and rt is not vt:
        out.append(
            FAMILY.cite(
                inst.line,
                value.token,
                "ballot.value-type",
                f"Value is {describe(m, vt)}, the result {describe(m, rt)}",
                severity=WARNING,
            )
        )
    index = inst.operand("Index")
    it = m.type_of(index.token.text) if index else None
    if index and it is not None and int_info(it) is None:
        out.append(FAMILY.cite(inst.line, index.token, "ballot.index", f"Index is {describe(m, it)}", severity=WARNING))
    return out


FAMILY = Family(
    name="ballot",
    prefix="ballot",
    summary="SPV_KHR_shader_ballot: the mask builtins' type, storage and placement; the ballot instructions' types.",
    rules=(
        Rule(
            "ballot.mask-type",
            "a subgroup mask builtin variable that is not a vector of four 32-bit integers.",
            sentence="Provides a 4 component 32 bit integer vector bitmask for all invocations.",
        ),
        Rule(
            "ballot.mask-storage",
            "a subgroup mask builtin variable that is not Input.",
            sentence="Builtin variables provide a bitmask for invocations (an Input variable).",
        ),
        Rule(
            "ballot.member-decoration",
            "a subgroup mask builtin on a structure member.",
            sentence="The mask builtins decorate a variable, never a structure member.",
        ),
        Rule(
            "ballot.result-type",
            "OpSubgroupBallotKHR whose result is not a vector of four 32-bit integers.",
            sentence="Result Type must be a 4 component vector of 32 bit integer types.",
        ),
        Rule(
            "ballot.predicate",
            "OpSubgroupBallotKHR whose Predicate is not a Boolean.",
            sentence="Predicate must be a Boolean type.",
        ),
        Rule(
            "ballot.value-type",
            "a subgroup read whose result is not of Value's type.",
            sentence="The type of Value must be the same as Result Type.",
        ),
        Rule(
            "ballot.index",
            "OpSubgroupReadInvocationKHR whose Index is not a scalar integer.",
            sentence="Index is a scalar integer.",
        ),
    ),
    check=check,
    extension="SPV_KHR_shader_ballot",
    linewise=True,
)
