"""arith.*: the operand and result types of arithmetic and comparison instructions.

Only scalars and vectors are judged here: cooperative-matrix (and vector) arithmetic is coopmat.*'s.
"""

from __future__ import annotations

from typing import Any, Final

from ...model.facts import module_fact
from ...model.module import Inst, Module
from ...syntax.parser import Token
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

_INT = {"OpIAdd", "OpISub", "OpIMul", "OpSDiv", "OpSMod", "OpSRem", "OpSNegate"}
_UNSIGNED = {"OpUDiv", "OpUMod"}
_FLOAT = {"OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFRem", "OpFMod", "OpFNegate"}
_INT_COMPARE = {
    "OpIEqual",
    "OpINotEqual",
    "OpUGreaterThan",
    "OpUGreaterThanEqual",
    "OpULessThan",
    "OpULessThanEqual",
    "OpSGreaterThan",
    "OpSGreaterThanEqual",
    "OpSLessThan",
    "OpSLessThanEqual",
}
_FLOAT_COMPARE = {
    "OpFOrdEqual",
    "OpFUnordEqual",
    "OpFOrdNotEqual",
    "OpFUnordNotEqual",
    "OpFOrdLessThan",
    "OpFUnordLessThan",
    "OpFOrdGreaterThan",
    "OpFUnordGreaterThan",
    "OpFOrdLessThanEqual",
    "OpFUnordLessThanEqual",
    "OpFOrdGreaterThanEqual",
    "OpFUnordGreaterThanEqual",
    "OpLessOrGreater",
    "OpOrdered",
    "OpUnordered",
}
_CODE: Final = {
    **dict.fromkeys(_INT, "arith.int"),
    **dict.fromkeys(_UNSIGNED, "arith.unsigned"),
    **dict.fromkeys(_FLOAT, "arith.float"),
    **dict.fromkeys(_INT_COMPARE, "arith.int-compare"),
    **dict.fromkeys(_FLOAT_COMPARE, "arith.float-compare"),
}
_OPS = sorted(_CODE)
# Conversions: (the Result Type's component kind, the operand's).
_CONVERT: Final = {
    "OpConvertFToU": ("OpTypeInt", "OpTypeFloat"),
    "OpConvertFToS": ("OpTypeInt", "OpTypeFloat"),
    "OpConvertSToF": ("OpTypeFloat", "OpTypeInt"),
    "OpConvertUToF": ("OpTypeFloat", "OpTypeInt"),
}
_TO_UNSIGNED = "OpConvertFToU: Result Type must be a scalar or vector of integer type, whose Signedness operand is 0."
_KIND = {"OpTypeInt": "integer", "OpTypeFloat": "floating-point"}
_SCALARS = {"OpTypeInt", "OpTypeFloat", "OpTypeBool"}


class _Shape:
    """A scalar or vector type: its component opname, width, signedness and component count."""

    __slots__ = ("count", "id", "kind", "signed", "width")

    def __init__(self, id_: str, kind: str, width: int, signed: bool, count: int):
        self.id, self.kind, self.width, self.signed, self.count = id_, kind, width, signed, count

    def text(self) -> str:
        base = {
            "OpTypeInt": ("i" if self.signed else "u") + str(self.width),
            "OpTypeFloat": f"f{self.width}",
            "OpTypeBool": "bool",
        }[self.kind]
        return base if self.count == 1 else f"vec{self.count}<{base}>"


_SKIP: Final = "skip"  # floats with an FP encoding (bfloat16, fp8), and their vectors: not judged here
# _shapes as the judges read it: they compare with _SKIP before reading a _Shape's fields.
_Shapes = dict[str, Any]


@module_fact
def _shapes(m: Module) -> dict[str, _Shape | str | None]:
    """Each type id's shape (None for types that are not scalars or vectors)."""
    shapes: dict[str, _Shape | str | None] = {}
    for inst in m.outside_functions():
        if inst.result and inst.is_type:
            shapes[inst.result] = _scalar(inst)
    for inst in m.outside_functions():
        if inst.opname == "OpTypeVector" and inst.result:
            ids = inst.ids()
            lits = [o.token.text for o in inst.operands if not o.is_id]
            comp = shapes.get(ids[0].token.text) if ids else None
            if comp == _SKIP:
                shapes[inst.result] = _SKIP
            elif isinstance(comp, _Shape) and comp.count == 1 and lits and _decimal(lits[0]):
                shapes[inst.result] = _Shape(inst.result, comp.kind, comp.width, comp.signed, int(lits[0]))
    return shapes


def _decimal(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes '²' and '①', which int() refuses."""
    return text.isascii() and text.isdigit()


def _scalar(t: Inst) -> _Shape | str | None:
    op, rid = t.opname, t.result
    if op not in _SCALARS or rid is None:
        return None
    lits = [o.token.text for o in t.operands if not o.is_id]
    if op == "OpTypeBool":
        return _Shape(rid, op, 1, False, 1)
    if op == "OpTypeFloat" and len(lits) > 1:
        return _SKIP
    if not lits or not _decimal(lits[0]):
        return None
    return _Shape(rid, op, int(lits[0]), op == "OpTypeInt" and len(lits) > 1 and lits[1] == "1", 1)


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    shapes = None
    codes = _CODE
    defs = m.defs
    for inst in with_op(m, _OPS, scope):
        code = codes[inst.opname]
        if shapes is None:
            shapes = _shapes(m)
        if _plainly_right(defs, inst, code, shapes):
            continue
        out.extend(_judge(m, inst, code, shapes))
    for inst in with_op(m, _CONVERT, scope):
        out.extend(_convert(m, inst, _shapes(m)))
    return out


def _convert(m: Module, inst: Inst, shapes: _Shapes) -> list[Diagnostic]:
    """A conversion's Result Type and operand: scalars or vectors of the kinds it converts between,
    with as many components."""
    ids = inst.ids()
    if len(ids) < 2 or ids[0].grammar_operand.kind != "IdResultType":
        return []
    want, given = _CONVERT[inst.opname]
    rt_tok, value = ids[0].token, ids[1].token
    rt = shapes.get(rt_tok.text)
    if not isinstance(rt, _Shape):
        return []  # not a scalar or vector (a cooperative matrix: coopmat.*), or not judged here
    if rt.kind != want:
        lead = f"the Result Type of {inst.opname} is {rt.text()}, not a scalar or vector of {_KIND[want]} type"
        return [FAMILY.cite(inst.line, rt_tok, "arith.convert", lead)]
    if inst.opname == "OpConvertFToU" and rt.signed:
        lead = f"the Result Type of OpConvertFToU is {rt.text()}, a signed integer type"
        return [FAMILY.cite(inst.line, rt_tok, "arith.convert", lead, sentence=_TO_UNSIGNED)]
    v = m.definition(value.text)
    vt = (
        shapes.get(v.result_type or "") if v is not None and v.grammar_inst and v.grammar_inst.has_result_type else None
    )
    if not isinstance(vt, _Shape):
        return []
    if vt.kind != given:
        lead = f"{value.text} is {vt.text()}, not a scalar or vector of {_KIND[given]} type"
        return [FAMILY.cite(inst.line, value, "arith.convert", lead)]
    if vt.count != rt.count:
        lead = f"{value.text} has {vt.count} component(s), the Result Type {rt.count}"
        return [FAMILY.cite(inst.line, value, "arith.convert", lead)]
    return []


def _plainly_right(defs: dict[str, Inst], inst: Inst, code: str, shapes: _Shapes) -> bool:
    """The common case, decided fast: every operand's type is the Result Type (or, for a comparison,
    both operands share a type of the right kind and size)."""
    # Operands' tokens read as their first items (`o[0]`): the compiled build reads a tuple item, where
    # `o.token` is looked up on a class it does not compile, for every operand of every instruction here.
    ops = inst.operands
    if len(ops) < 2:
        return False
    rt = ops[0][0].text
    types = []
    for k in range(1, len(ops)):
        d = defs.get(ops[k][0].text)
        if d is None or not d.operands:
            return False
        types.append(d.operands[0][0].text)
    # A shape read as a _Shape once it is one (not None, not _SKIP): its fields are then read natively.
    rs = shapes.get(rt)
    if not isinstance(rs, _Shape):
        return False
    if code in _SAME_AS_RESULT:
        return (
            rs.kind == _RESULT_KIND[code]
            and not (code == "arith.unsigned" and rs.signed)
            and all(t == rt for t in types)
        )
    if len(types) != 2 or types[0] != types[1]:
        return False
    os_ = shapes.get(types[0])
    return (
        isinstance(os_, _Shape)
        and rs.kind == "OpTypeBool"
        and os_.kind == ("OpTypeFloat" if code == "arith.float-compare" else "OpTypeInt")
        and rs.count == os_.count
    )


_SAME_AS_RESULT: Final = {"arith.int", "arith.unsigned", "arith.float"}
_RESULT_KIND: Final = {"arith.int": "OpTypeInt", "arith.unsigned": "OpTypeInt", "arith.float": "OpTypeFloat"}


def _judge(m: Module, inst: Inst, code: str, shapes: _Shapes) -> list[Diagnostic]:
    ops = inst.operands
    if not ops or ops[0].grammar_operand.kind != "IdResultType" or not ops[0].is_id:
        return []
    rt_tok = ops[0].token
    if rt_tok.text not in shapes:
        return []  # not a type at all (types.result-type), or undefined (id.undefined)
    rt = shapes[rt_tok.text]
    if rt == _SKIP:
        return []

    def d(tok: Token, lead: str) -> Diagnostic:
        return FAMILY.cite(inst.line, tok, code, lead)

    compare = code.endswith("compare")
    want = "OpTypeBool" if compare else "OpTypeFloat" if code == "arith.float" else "OpTypeInt"
    if rt is None:
        t = m.definition(rt_tok.text)
        if t is not None and t.opname in (
            "OpTypeCooperativeMatrixKHR",
            "OpTypeCooperativeMatrixNV",
            "OpTypeCooperativeVectorNV",
        ):
            return []  # coopmat.* judges these
        return [d(rt_tok, f"the Result Type {rt_tok.text} of {inst.opname} is not a scalar or vector")]
    if rt.kind != want or (code == "arith.unsigned" and rt.signed):
        return [d(rt_tok, f"the Result Type of {inst.opname} is {rt.text()}")]
    out = []
    operand_types: list[_Shape | None] = []
    for o in ops[1:]:
        if not o.is_id:
            continue
        v = m.definition(o.token.text)
        if v is None or not v.grammar_inst or not v.grammar_inst.has_result_type:
            operand_types.append(None)
            continue  # undefined, or not a value: id.* and types.* say so
        vt_id = v.result_type
        vt = shapes.get(vt_id) if vt_id else None
        if vt == _SKIP:
            operand_types.append(None)
            continue
        operand_types.append(vt)
        if code in ("arith.float", "arith.unsigned"):
            if vt_id != rt_tok.text and vt_id in shapes:
                out.append(d(o.token, f"{o.token.text} is {_text(vt, vt_id)}, the Result Type is {rt.text()}"))
            continue
        operand_kind = "OpTypeFloat" if code == "arith.float-compare" else "OpTypeInt"
        if vt_id not in shapes:
            continue
        if vt is None or vt.kind != operand_kind:
            out.append(
                d(
                    o.token,
                    f"{o.token.text} is {_text(vt, vt_id)}, not a scalar or vector of "
                    f"{'floating-point' if operand_kind == 'OpTypeFloat' else 'integer'} type",
                )
            )
        elif vt.count != rt.count:
            out.append(d(o.token, f"{o.token.text} has {vt.count} component(s), the Result Type {rt.count}"))
        elif not compare and vt.width != rt.width:
            out.append(d(o.token, f"{o.token.text} is {vt.width}-bit, the Result Type {rt.width}-bit"))
    present = [s for s in operand_types if s is not None]
    if compare and not out and len(operand_types) == 2 and len(present) == 2:
        a, b = present
        second = [o for o in ops[1:] if o.is_id][1]
        if code == "arith.int-compare" and a.width != b.width:
            out.append(d(second.token, f"the operands are {a.width}-bit and {b.width}-bit"))
        elif code == "arith.float-compare" and a.id != b.id:
            out.append(d(second.token, f"the operands are {a.text()} ({a.id}) and {b.text()} ({b.id})"))
    return out


def _text(shape: _Shape | None, type_id: str | None) -> str:
    return shape.text() if shape is not None else f"of type {type_id}"


FAMILY = Family(
    name="arith",
    prefix="arith",
    summary="the operand and result types of integer and floating-point arithmetic and comparisons.",
    rules=(
        Rule(
            "arith.int",
            "integer arithmetic whose result or operands are not integers of one component width.",
            sentence="Result Type must be a scalar or vector of integer type. The type of Operand 1 and Operand 2 must "
            "be a scalar or vector of integer type. They must have the same number of components as Result "
            "Type. They must have the same component width as Result Type.",
        ),
        Rule(
            "arith.unsigned",
            "unsigned division or modulo whose result is not an unsigned integer, or whose operands are not of its type.",
            sentence="Result Type must be a scalar or vector of integer type, whose Signedness operand is 0. The "
            "types of Operand 1 and Operand 2 both must be the same as Result Type.",
        ),
        Rule(
            "arith.float",
            "floating-point arithmetic whose result is not floating-point, or whose operands are not of its type.",
            sentence="Result Type must be a scalar or vector of floating-point type. The types of Operand 1 and "
            "Operand 2 both must be the same as Result Type.",
        ),
        Rule(
            "arith.int-compare",
            "an integer comparison whose result is not Boolean or whose operands are not integers.",
            sentence="Result Type must be a scalar or vector of Boolean type. The type of Operand 1 and Operand 2 "
            "must be a scalar or vector of integer type. They must have the same component width, and "
            "they must have the same number of components as Result Type.",
        ),
        Rule(
            "arith.float-compare",
            "a floating-point comparison whose result is not Boolean or whose operands are not floating-point.",
            sentence="Result Type must be a scalar or vector of Boolean type. The type of Operand 1 and "
            "Operand 2 must be a scalar or vector of floating-point type. They must have the same "
            "type, and they must have the same number of components as Result Type.",
        ),
        Rule(
            "arith.convert",
            "a conversion between floating-point and integer types whose result or operand is of the wrong kind.",
            sentence="OpConvertFToS: Result Type must be a scalar or vector of integer type. Float Value must be a "
            "scalar or vector of floating-point type. It must have the same number of components as Result Type. "
            "OpConvertSToF: Result Type must be a scalar or vector of floating-point type. Signed Value must be a "
            "scalar or vector of integer type. It must have the same number of components as Result Type.",
        ),
    ),
    check=check,
    linewise=True,
)
