"""glsl.*: the result and operand types of GLSL.std.450's arithmetic, as spirv-val checks them
(the instructions by name from the set's grammar JSON; which rule each follows is spirv-val's
grouping, kept consistent with the JSON by tests/unit/test_tables.py)."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.operands import Operand
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

SET = "GLSL.std.450"
LINK = "https://registry.khronos.org/SPIR-V/specs/unified1/GLSL.std.450.html"
# A floating-point scalar or vector Result Type, and every operand of that type.
FLOAT_SAME = frozenset(
    {
        "Round",
        "RoundEven",
        "Trunc",
        "FAbs",
        "FSign",
        "Floor",
        "Ceil",
        "Fract",
        "Radians",
        "Degrees",
        "Sin",
        "Cos",
        "Tan",
        "Asin",
        "Acos",
        "Atan",
        "Sinh",
        "Cosh",
        "Tanh",
        "Asinh",
        "Acosh",
        "Atanh",
        "Atan2",
        "Pow",
        "Exp",
        "Log",
        "Exp2",
        "Log2",
        "Sqrt",
        "InverseSqrt",
        "FMin",
        "FMax",
        "FClamp",
        "FMix",
        "Step",
        "SmoothStep",
        "Fma",
        "NMin",
        "NMax",
        "NClamp",
    }
)
# An integer scalar or vector Result Type, and every operand an integer scalar or vector of its
# component count and width (signedness aside).
INT_LIKE = frozenset({"SAbs", "SSign", "UMin", "UMax", "SMin", "SMax", "UClamp", "SClamp"})
# The types judged (others, such as cooperative vectors, some sets allow: left to spirv-val).
_KNOWN = {"OpTypeFloat", "OpTypeInt", "OpTypeBool", "OpTypeStruct", "OpTypePointer", "OpTypeArray", "OpTypeMatrix"}


def _shape(m: Module, type_id: str | None) -> tuple[str, int, int] | None:
    """A type's component opname, width and component count; None where not judged."""
    t = m.definition(type_id)
    count = 1
    if t is not None and t.opname == "OpTypeVector":
        ids, lits = t.ids(), [o.token.text for o in t.operands if not o.is_id]
        if not ids or not lits or not (lits[0].isascii() and lits[0].isdigit()):
            return None
        count = int(lits[0])
        t = m.definition(ids[0].token.text)
    if t is None or t.opname not in _KNOWN:
        return None
    lits = [o.token.text for o in t.operands if not o.is_id]
    if t.opname == "OpTypeFloat" and len(lits) > 1:
        return None  # a floating-point encoding (bfloat16, fp8): not judged here
    width = (
        int(lits[0])
        if t.opname in ("OpTypeFloat", "OpTypeInt") and lits and lits[0].isascii() and lits[0].isdigit()
        else 0
    )
    return t.opname, width, count


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    sets = {i for i, name in m.ext_imports.items() if name == SET}
    if not sets:
        return out
    for inst in with_op(m, ("OpExtInst",), scope):
        e = inst.ext_inst
        ids = inst.ids()
        if e is None or len(ids) < 2 or ids[1].token.text not in sets or ids[0].grammar_operand.kind != "IdResultType":
            continue
        if e.name in FLOAT_SAME:
            out.extend(_judge(m, inst, e.name, ids[0], ids[2:], "OpTypeFloat"))
        elif e.name in INT_LIKE:
            out.extend(_judge(m, inst, e.name, ids[0], ids[2:], "OpTypeInt"))
    return out


def _judge(m: Module, inst: Inst, name: str, rt: Operand, operands: list[Operand], kind: str) -> list[Diagnostic]:
    code = "glsl.float" if kind == "OpTypeFloat" else "glsl.int"
    what = "floating-point" if kind == "OpTypeFloat" else "integer"
    rs = _shape(m, rt.token.text)
    if rs is None:
        return []
    if rs[0] != kind:
        lead = f"the Result Type {rt.token.text} of {name} is no {what} scalar or vector"
        return [FAMILY.cite(inst.line, rt.token, code, lead)]
    out = []
    for o in operands:
        v = m.definition(o.token.text)
        vt = v.result_type if v is not None and v.grammar_inst is not None and v.grammar_inst.has_result_type else None
        vs = _shape(m, vt)
        if vt is None or vs is None or vt == rt.token.text:
            continue
        if kind == "OpTypeFloat" or vs[0] != kind:
            lead = f"{o.token.text} is of type {vt}, but {name}'s operands are of its Result Type {rt.token.text}"
        elif vs[2] != rs[2] or vs[1] != rs[1]:
            lead = f"{o.token.text} is of type {vt}, not of the Result Type's component count and width"
        else:
            continue
        out.append(FAMILY.cite(inst.line, o.token, code, lead))
    return out


FAMILY = Family(
    name="glsl",
    prefix="glsl",
    summary="the result and operand types of GLSL.std.450's arithmetic.",
    rules=(
        Rule(
            "glsl.float",
            "a GLSL.std.450 floating-point instruction whose result or operands are not of one floating-point type.",
            sentence="The operands must all be a scalar or vector whose component type is floating-point. Result "
            "Type and the type of all operands must be the same type.",
            link=LINK,
            where=SET,
        ),
        Rule(
            "glsl.int",
            "a GLSL.std.450 integer instruction whose result or operands are not integers of one shape.",
            sentence="The operands must all be a scalar or vector whose component type is integer. Result Type "
            "and the type of all operands must be the same type.",
            link=LINK,
            where=SET,
        ),
    ),
    check=check,
    linewise=True,
)
