"""composite.*: the types of OpCompositeConstruct, OpCompositeExtract and OpCompositeInsert: their
Result Type against their constituents and the type their indexes reach.

Cooperative matrices and vectors are coopmat.*'s; a type this family does not know (an array
whose length is a specialization constant, a runtime array) is judged no further.
"""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.operands import Operand
from ...model.typeinfo import is_scalar
from ...syntax.parser import int_value
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

_COOPERATIVE = ("OpTypeCooperativeMatrixKHR", "OpTypeCooperativeMatrixNV", "OpTypeCooperativeVectorNV")


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in with_op(m, _HANDLERS, scope):
        out.extend(_HANDLERS[inst.opname](m, inst))
    return out


def _type_of(m: Module, op: Operand) -> Inst | None:
    """The type of a value operand (None: unknown here, or no value)."""
    d = m.definition(op.token.text)
    if d is None or d.is_type:
        return None
    return m.definition(d.result_type)


def _parts(t: Inst) -> tuple[list[str], list[int]]:
    """A type declaration's id operands and its literal numbers."""
    ids = [o.token.text for o in t.ids(skip_type=True) if o.token.text != t.result]
    lits = [v for o in t.operands if not o.is_id and (v := int_value(o.token.text)) is not None]
    return ids, lits


def _construct(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.ids()
    if not ops or ops[0].grammar_operand.kind != "IdResultType":
        return []
    rt_tok, constituents = ops[0].token, ops[1:]
    t = m.definition(rt_tok.text)
    if t is None or not t.is_type or t.opname in _COOPERATIVE:
        return []
    ids, lits = _parts(t)
    types = [_type_of(m, o) for o in constituents]
    if t.opname == "OpTypeVector" and ids and lits:
        return _vector_constituents(m, inst, t, ids[0], lits[0], constituents, types)
    if t.opname == "OpTypeMatrix" and ids and lits:
        wanted: list[str] | None = [ids[0]] * lits[0]
    elif t.opname == "OpTypeArray" and len(ids) > 1:
        length = m.definition(ids[1])
        size = m.int_value(ids[1]) if length is not None and length.opname == "OpConstant" else None
        wanted = None if size is None else [ids[0]] * size
    elif t.opname == "OpTypeStruct":
        wanted = ids
    else:
        lead = f"the Result Type {rt_tok.text} is an {t.opname}, not a composite type"
        return [FAMILY.cite(inst.line, rt_tok, "composite.construct", lead)]
    if wanted is None:
        return []
    if len(wanted) != len(constituents):
        lead = f"{len(constituents)} Constituents for {rt_tok.text}, which has {len(wanted)}"
        return [FAMILY.cite(inst.line, inst.opcode, "composite.construct", lead)]
    for o, got, want in zip(constituents, types, wanted, strict=True):
        if got is not None and got.result != want:
            lead = f"Constituent {o.token.text} is of type {got.result}, {rt_tok.text} wants {want} there"
            return [FAMILY.cite(inst.line, o.token, "composite.construct", lead)]
    return []


def _vector_constituents(
    m: Module,
    inst: Inst,
    t: Inst,
    component: str,
    size: int,
    constituents: list[Operand],
    types: list[Inst | None],
) -> list[Diagnostic]:
    """A vector is made of scalars and vectors of its component type, as many components in all."""
    if len(constituents) < 2:
        lead = f"{t.result} is made of {len(constituents)} Constituent: a vector takes at least 2"
        return [FAMILY.cite(inst.line, inst.opcode, "composite.construct", lead)]
    given = 0
    for o, got in zip(constituents, types, strict=True):
        if got is None:
            return []  # not known here
        if got.result == component:
            given += 1
            continue
        ids, lits = _parts(got)
        if got.opname != "OpTypeVector" or not ids or ids[0] != component or not lits:
            lead = f"Constituent {o.token.text} is of type {got.result}, not {component} or a vector of it"
            return [FAMILY.cite(inst.line, o.token, "composite.construct", lead)]
        given += lits[0]
    if given != size:
        lead = f"the Constituents give {given} components, {t.result} has {size}"
        return [FAMILY.cite(inst.line, inst.opcode, "composite.construct", lead)]
    return []


def _reached(m: Module, type_id: str | None, indexes: list[Operand]) -> tuple[str | None, Operand | None]:
    """The type the literal indexes reach from `type_id` (None: not known here), or the index that
    no composite is left for or that is out of bounds."""
    for o in indexes:
        index = int_value(o.token.text)
        t = m.definition(type_id)
        if t is None or index is None:
            return None, None
        ids, lits = _parts(t)
        if t.opname in ("OpTypeVector", "OpTypeMatrix"):
            if not ids or not lits:
                return None, None
            if index >= lits[0]:
                return None, o
            type_id = ids[0]
        elif t.opname == "OpTypeArray" and len(ids) > 1:
            length = m.definition(ids[1])
            size = m.int_value(ids[1]) if length is not None and length.opname == "OpConstant" else None
            if size is not None and index >= size:
                return None, o
            type_id = ids[0]
        elif t.opname == "OpTypeStruct":
            if index >= len(ids):
                return None, o
            type_id = ids[index]
        elif (t.opname == "OpTypeRuntimeArray" or t.opname in _COOPERATIVE) and ids:  # no `*` here: mypyc fails on it
            type_id = ids[0]
        elif is_scalar(t):
            return None, o  # (vendors' composites this walk does not know are not judged)
        else:
            return None, None
    return type_id, None


def _extract(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.operands
    insert = inst.opname == "OpCompositeInsert"
    first_index = 3 if insert else 2
    if len(ops) <= first_index or not all(o.is_id for o in ops[:first_index]):
        return []
    rt = ops[0].token
    composite = ops[first_index - 1]
    ct = _type_of(m, composite)
    if ct is None or m.definition(rt.text) is None:
        return []
    out = []
    if insert and ct.result != rt.text:
        lead = f"the Result Type is {rt.text}, Composite {composite.token.text} is of type {ct.result}"
        out.append(FAMILY.cite(inst.line, rt, "composite.extract", lead))
    reached, bad = _reached(m, ct.result, list(ops[first_index:]))
    if bad is not None:
        lead = f"index {bad.token.text} reaches past what {composite.token.text} holds"
        return [*out, FAMILY.cite(inst.line, bad.token, "composite.extract", lead)]
    if reached is None:
        return out
    if insert:
        ot = _type_of(m, ops[1])
        if ot is not None and ot.result != reached:
            lead = f"Object {ops[1].token.text} is of type {ot.result}, the indexes reach {reached}"
            out.append(FAMILY.cite(inst.line, ops[1].token, "composite.extract", lead))
    elif reached != rt.text:
        lead = f"the Result Type is {rt.text}, the indexes reach {reached}"
        out.append(FAMILY.cite(inst.line, rt, "composite.extract", lead))
    return out


_HANDLERS = {"OpCompositeConstruct": _construct, "OpCompositeExtract": _extract, "OpCompositeInsert": _extract}


FAMILY = Family(
    name="composite",
    prefix="composite",
    summary="the types of OpCompositeConstruct, OpCompositeExtract and OpCompositeInsert.",
    rules=(
        Rule(
            "composite.construct",
            "an OpCompositeConstruct whose Result Type is no composite, or whose Constituents do not fill it "
            "with its members' types.",
            sentence="OpCompositeConstruct: Result Type must be a composite type, whose top-level members/"
            "elements/components/columns have the same type as the types of the operands, with one exception. "
            "The exception is that for constructing a vector, the operands may also be vectors with the same "
            "component type as the Result Type component type.",
        ),
        Rule(
            "composite.extract",
            "an OpCompositeExtract or OpCompositeInsert whose indexes reach past the composite, or whose Result "
            "Type (Object) is not the type they reach.",
            sentence="OpCompositeExtract: Result Type must be the type of the object selected by the last "
            "provided index. OpCompositeInsert: Result Type must be the same type as Composite. Object is the "
            "object to use as the modified part.",
        ),
    ),
    check=check,
    linewise=True,
)
