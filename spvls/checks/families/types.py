"""The types family: the parameters of type declarations (widths, signedness, component counts) and
the constituents of composite constants. The types.* rules about what an id names are judged by the
id family, in its walk over every operand."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.operands import Operand
from ...syntax.parser import Token
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

# Sizes some capability enables (capability.* says which one is missing).
_INT_WIDTHS = {8, 16, 32, 64}
_FLOAT_WIDTHS = {16, 32, 64}
_VECTOR_SIZES = {2, 3, 4, 8, 16}


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    wanted = (*_DECLS, *_TYPE_OPERANDS, "OpTypeForwardPointer", *_COMPOSITE_CONSTANTS)
    for inst in with_op(m, wanted, scope):  # outside functions
        if inst.opname in _COMPOSITE_CONSTANTS:
            out.extend(_composite_constant(m, inst))
        elif inst.opname == "OpTypeForwardPointer":
            out.extend(_forward(m, inst))
        elif inst.opname in _DECLS:
            out.extend(_DECLS[inst.opname](inst))
        if inst.opname in _TYPE_OPERANDS:
            out.extend(_named_types(m, inst))
        if inst.opname == "OpTypeArray":
            out.extend(_array(m, inst))
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


# The kind of type a vector's component and a matrix's column must be.
_KINDS = {
    "OpTypeVector": (frozenset({"OpTypeInt", "OpTypeFloat", "OpTypeBool"}), "a scalar type"),
    "OpTypeMatrix": (frozenset({"OpTypeVector"}), "a vector type"),
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
        kinds = _KINDS.get(inst.opname)
        # (A type named before its definition is id.forward-reference's.)
        if d is not None and d.is_type and kinds is not None and d.line < inst.line and d.opname not in kinds[0]:
            out.append(
                FAMILY.cite(
                    inst.line,
                    o.token,
                    "types.not-a-type",
                    f"{inst.opname}'s {o.grammar_operand.name} {o.token.text} is an {d.opname}, not {kinds[1]}",
                    sentence=sentence,
                )
            )
        elif d is not None and not d.is_type:
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


_ARRAY_SENTENCE = (
    "OpTypeArray: Element Type is the type of each element in the array. Length is the number of elements in "
    "the array. It must be at least 1. Length must come from a constant instruction of an integer-type scalar "
    "whose value is at least 1."
)


def _array(m: Module, inst: Inst) -> list[Diagnostic]:
    """An array's elements are not void; its Length is an integer constant."""
    element, length = inst.operand("Element Type"), inst.operand("Length")
    out = []
    e = m.definition(element.token.text) if element is not None else None
    if element is not None and e is not None and e.opname == "OpTypeVoid":
        lead = f"the Element Type {element.token.text} is void"
        out.append(FAMILY.cite(inst.line, element.token, "types.array", lead, sentence=_ARRAY_SENTENCE))
    d = m.definition(length.token.text) if length is not None else None
    if length is None or d is None or d.line > inst.line or d.is_type:
        return out  # undefined, later or a type: id.* and types.not-a-value say so
    t = m.definition(d.result_type)
    if not m.is_constant(length.token.text):
        lead = f"the Length {length.token.text} is the result of {d.opname}, not a constant"
    elif t is not None and t.opname != "OpTypeInt":
        lead = f"the Length {length.token.text} is a constant of type {t.result}, not an integer"
    else:
        return out
    out.append(FAMILY.cite(inst.line, length.token, "types.array", lead, sentence=_ARRAY_SENTENCE))
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


_COMPOSITE_CONSTANTS = ("OpConstantComposite", "OpSpecConstantComposite")
_COMPOSITE_SENTENCE = (
    "OpConstantComposite: Result Type must be a composite type, whose top-level members/elements/components/"
    "columns have the same type as the types of the Constituents."
)


def _composite_constant(m: Module, inst: Inst) -> list[Diagnostic]:
    """OpConstantComposite's Result Type is a vector, matrix, array or struct, and each Constituent a
    constant (or undef) of its member's type. Cooperative matrices and vectors are coopmat.*'s."""
    ops = inst.ids()
    if not ops or ops[0].grammar_operand.kind != "IdResultType":
        return []
    rt = ops[0].token
    t = m.definition(rt.text)
    if t is None or not t.is_type or t.opname.startswith("OpTypeCooperative"):
        return []
    constituents = ops[1:]
    wanted = _constituent_types(m, t, len(constituents))
    if wanted is None:
        return [_composite(inst, rt, f"the Result Type {rt.text} is an {t.opname}, not a composite type")]
    if isinstance(wanted, str):
        return [_composite(inst, rt, wanted)]
    for o, want in zip(constituents, wanted, strict=False):
        d = m.definition(o.token.text)
        if d is None:
            continue
        if not (m.is_constant(o.token.text) or d.opname == "OpUndef"):
            return [
                _composite(inst, o.token, f"Constituent {o.token.text} is the result of {d.opname}, not a constant")
            ]
        got = d.result_type
        if want is not None and got is not None and got != want:
            return [
                _composite(inst, o.token, f"Constituent {o.token.text} is of type {got}, the Result Type wants {want}")
            ]
    return []


def _constituent_types(m: Module, t: Inst, count: int) -> list[str | None] | str | None:
    """The type each Constituent must have (None: not judged here); a string saying why the count is
    wrong; None for a Result Type that is no composite."""
    ids = [o.token.text for o in t.ids(skip_type=True) if o.token.text != t.result]
    lits = _lits(t)
    if t.opname == "OpTypeVector" and ids and lits:
        n = int(lits[0].token.text)
        if n != count:
            return f"{count} Constituents for {t.result}, a vector of {n} components"
        return [ids[0]] * count
    if t.opname == "OpTypeMatrix" and lits:
        n = int(lits[0].token.text)
        if n != count:
            return f"{count} Constituents for {t.result}, a matrix of {n} columns"
        return [ids[0] if ids else None] * count
    if t.opname == "OpTypeArray" and len(ids) > 1:
        elements = m.int_value(ids[1])
        length = m.definition(ids[1])
        if elements is not None and length is not None and length.opname == "OpConstant" and elements != count:
            return f"{count} Constituents for {t.result}, an array of {elements} elements"
        return [ids[0]] * count
    if t.opname == "OpTypeStruct":
        if len(ids) != count:
            return f"{count} Constituents for {t.result}, a struct of {len(ids)} members"
        return list(ids)
    return None


def _composite(inst: Inst, tok: Token, lead: str) -> Diagnostic:
    return FAMILY.cite(inst.line, tok, "types.constant-composite", lead, sentence=_COMPOSITE_SENTENCE)


_DECLS = {"OpTypeInt": _int, "OpTypeFloat": _float, "OpTypeVector": _vector}


FAMILY = Family(
    name="types",
    prefix="types",
    summary="the parameters of type declarations (widths, signedness, component counts, the types they name), "
    "the constituents of composite constants.",
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
            "types.array",
            "an OpTypeArray of void elements, or whose Length is not an integer constant.",
            sentence=_ARRAY_SENTENCE,
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
        Rule(
            "types.constant-composite",
            "an OpConstantComposite whose Result Type is no composite, or whose Constituents are not constants of "
            "its members' types, or not as many.",
            sentence=_COMPOSITE_SENTENCE,
        ),
    ),
    check=check,
    linewise=True,
)
