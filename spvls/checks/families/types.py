"""The types family: the parameters of type declarations (widths, signedness, component counts). The
two types.* rules about what an id names are judged by the id family, in its walk over every operand."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.operands import Operand
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

# Sizes some capability enables (capability.* says which one is missing).
_INT_WIDTHS = {8, 16, 32, 64}
_FLOAT_WIDTHS = {16, 32, 64}
_VECTOR_SIZES = {2, 3, 4, 8, 16}


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in with_op(m, (*_DECLS, *_TYPE_OPERANDS, "OpTypeForwardPointer"), scope):  # outside functions
        if inst.opname == "OpTypeForwardPointer":
            out.extend(_forward(m, inst))
        elif inst.opname in _DECLS:
            out.extend(_DECLS[inst.opname](inst))
        if inst.opname in _TYPE_OPERANDS:
            out.extend(_named_types(m, inst))
    return out


def _lits(inst: Inst) -> list[Operand]:
    return [o for o in inst.operands if not o.is_id and o.token.kind == "INT" and o.token.text.isdigit()]


def _int(inst: Inst) -> list[Diagnostic]:
    out = []
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _INT_WIDTHS:
        out.append(
            FAMILY.cite(
                inst.line, lits[0].token, "types.int-width", f"OpTypeInt has a Width of {lits[0].token.text} bits"
            )
        )
    if len(lits) > 1 and lits[1].grammar_operand.name == "Signedness" and int(lits[1].token.text) not in (0, 1):
        out.append(
            FAMILY.cite(
                inst.line, lits[1].token, "types.signedness", f"OpTypeInt has a Signedness of {lits[1].token.text}"
            )
        )
    return out


def _float(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if not lits:
        return []
    width = int(lits[0].token.text)
    encoded = any(o.enumerants for o in inst.operands)
    if width in _FLOAT_WIDTHS or (width == 8 and encoded):
        return []
    return [
        FAMILY.cite(
            inst.line,
            lits[0].token,
            "types.float-width",
            f"OpTypeFloat has a Width of {width} bits" + (" (8 bits need an FP encoding)" if width == 8 else ""),
        )
    ]


def _vector(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _VECTOR_SIZES:
        return [
            FAMILY.cite(
                inst.line, lits[0].token, "types.vector-size", f"OpTypeVector has {lits[0].token.text} components"
            )
        ]
    return []


_MEMBER_SENTENCE = "Member N type is the type of member N of the structure."
# Each type declaration's operands that name a type (None: all of them), with the sentence of the
# specification saying so.
_TYPE_OPERANDS: dict[str, tuple[tuple[str, ...] | None, str]] = {
    "OpTypePointer": (("Type",), "Type is the type of the object pointed to."),
    "OpTypeArray": (("Element Type",), "Element Type is the type of each element in the array."),
    "OpTypeRuntimeArray": (("Element Type",), "Element Type is the type of each element in the array."),
    "OpTypeVector": (
        ("Component Type",),
        "Component Type is the type of each component in the resulting type. It must be a scalar type.",
    ),
    "OpTypeMatrix": (
        ("Column Type",),
        "Column Type is the type of each column in the matrix. It must be vector type.",
    ),
    "OpTypeStruct": (None, _MEMBER_SENTENCE),
    "OpTypeFunction": (
        None,
        "Return Type is the type of the return value of functions of this type. Parameter N Type is the type "
        "of parameter N.",
    ),
}


def _named_types(m: Module, inst: Inst) -> list[Diagnostic]:
    names, sentence = _TYPE_OPERANDS[inst.opname]
    out = []
    for o in inst.operands:
        if not o.is_id or o.grammar_operand.kind == "IdResult":
            continue
        if names is not None and o.grammar_operand.name not in names:
            continue
        d = m.definition(o.token.text)
        if d is not None and not d.is_type:
            what = o.grammar_operand.name or "a member"
            out.append(
                FAMILY.cite(
                    inst.line,
                    o.token,
                    "types.not-a-type",
                    f"{inst.opname}'s {what} {o.token.text} is the result of {d.opname}, not a type",
                    sentence=sentence,
                )
            )
    return out


def _forward(m: Module, inst: Inst) -> list[Diagnostic]:
    """OpTypeForwardPointer names an OpTypePointer of the same storage class."""
    if len(inst.operands) < 2 or not inst.operands[0].is_id:
        return []
    target, storage = inst.operands[0].token, inst.operands[1].token
    d = m.definition(target.text)
    if d is None:
        return []
    if d.opname != "OpTypePointer":
        lead = f"the Pointer Type {target.text} is the result of {d.opname}, not of an OpTypePointer"
    elif d.operands and d.operands[0].token.text != storage.text:
        lead = f"{target.text} points into {d.operands[0].token.text}, the forward pointer says {storage.text}"
    else:
        return []
    return [FAMILY.cite(inst.line, target, "types.forward-pointer", lead)]


_DECLS = {"OpTypeInt": _int, "OpTypeFloat": _float, "OpTypeVector": _vector}


FAMILY = Family(
    name="types",
    prefix="types",
    summary="the parameters of type declarations (widths, signedness, component counts, the types they name).",
    rules=(
        Rule(
            "types.int-width",
            "an OpTypeInt Width no capability enables.",
            sentence="Scalar integer types must be parameterized only as 32 bit, plus any additional sizes "
            "enabled by capabilities.",
        ),
        Rule(
            "types.float-width",
            "an OpTypeFloat Width no capability enables.",
            sentence="Scalar floating-point types must be parameterized only as 32 bit, plus any additional "
            "sizes enabled by capabilities.",
        ),
        Rule(
            "types.signedness",
            "an OpTypeInt Signedness other than 0 or 1.",
            sentence="Signedness specifies whether there are signed semantics to preserve or validate. 0 "
            "indicates unsigned, or no signedness semantics. 1 indicates signed semantics.",
        ),
        Rule(
            "types.not-a-type",
            "a type declaration's operand that names a type (pointee, element, component, column, member, "
            "return or parameter type) naming something else.",
            sentence=_MEMBER_SENTENCE,
        ),
        Rule(
            "types.forward-pointer",
            "an OpTypeForwardPointer not naming an OpTypePointer of its storage class.",
            sentence="Pointer Type is a forward reference to the result of an OpTypePointer. The storage class "
            "of that OpTypePointer must be Storage Class.",
        ),
        Rule(
            "types.vector-size",
            "an OpTypeVector component count no capability enables.",
            sentence="Vector types must be parameterized only with 2, 3, or 4 components, plus any additional "
            "sizes enabled by capabilities.",
        ),
    ),
    check=check,
    linewise=True,
)
