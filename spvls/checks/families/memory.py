"""memory.*: OpVariable's storage class and place, and the pointee types of OpLoad, OpStore and OpAccessChain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ...model.cfg import function_holding
from ...model.facts import module_fact
from ...model.module import Inst, Module
from ...model.operands import Operand
from ...syntax.parser import Token
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

_Pointer = tuple[str, str | None]  # (storage class, pointee id) of an OpTypePointer
_Pointers = dict[str, _Pointer]


@module_fact
def _pointers(m: Module) -> _Pointers:
    """(storage class, pointee id) of each OpTypePointer, by id."""
    found: dict[str, _Pointer] = {}
    for t in m.outside_functions():
        if t.opname == "OpTypePointer" and t.result:
            storage = next((o for o in t.operands if o.enumerants), None)
            ids = t.ids()
            found[t.result] = ((storage.enumerants[0].name if storage else ""), (ids[0].token.text if ids else None))
    return found


def _pointer(pointers: _Pointers, type_id: str | None) -> _Pointer | None:
    """(storage class, pointee id) of an OpTypePointer; None for anything else."""
    return pointers.get(type_id) if type_id else None


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    pointers = _pointers(m)  # once per check: a module fact costs more to look up than a dictionary
    for inst in with_op(m, _HANDLERS, scope):
        found = _HANDLERS[inst.opname](m, inst, pointers)
        if found:
            out.extend(found)
    return out


def _variable(m: Module, inst: Inst, pointers: _Pointers) -> list[Diagnostic]:
    ops = inst.operands
    storage = next((o for o in ops if o.enumerants), None)
    if not ops or storage is None:
        return []
    rt = ops[0].token
    t = m.definition(rt.text)
    out = []
    sc = storage.enumerants[0].name
    if t is not None and t.grammar_inst is not None and t.is_type:
        if t.opname != "OpTypePointer":
            out.append(
                FAMILY.cite(
                    inst.line, rt, "memory.variable-type", f"the Result Type {rt.text} is {t.opname}, not a pointer"
                )
            )
        else:
            ptr = _pointer(pointers, rt.text)
            out.extend(_initializer(m, inst, ops, ptr))
            if ptr is not None and ptr[0] and ptr[0] != sc:
                out.append(
                    FAMILY.cite(
                        inst.line,
                        storage.token,
                        "memory.storage-class",
                        f"the variable's Storage Class is {sc}, its pointer type {rt.text} says {ptr[0]}",
                    )
                )
    inside = function_holding(m, inst.line) is not None
    if inside and sc != "Function":
        out.append(
            FAMILY.cite(
                inst.line,
                storage.token,
                "memory.function-storage",
                f"a variable inside a function must have the Function storage class, not {sc}",
            )
        )
    elif not inside and sc == "Function":
        out.append(
            FAMILY.cite(
                inst.line,
                storage.token,
                "memory.function-storage",
                "a Function variable must be declared inside a function, at the start of its first block",
            )
        )
    return out


def _initializer(m: Module, inst: Inst, ops: Sequence[Operand], ptr: _Pointer | None) -> list[Diagnostic]:
    """An OpVariable's Initializer is of the type the variable holds."""
    init = ops[2] if len(ops) > 2 and ops[2].is_id else None
    d = m.definition(init.token.text) if init is not None else None
    if init is None or d is None or ptr is None or ptr[1] is None or d.result_type is None:
        return []
    if d.result_type == ptr[1]:
        return []
    lead = f"the Initializer {init.token.text} is of type {d.result_type}, the variable holds {ptr[1]}"
    return [FAMILY.cite(inst.line, init.token, "memory.initializer", lead)]


def _value_type(m: Module, id_: str) -> str | None:
    d = m.defs.get(id_)
    if d is None:
        return None
    grammar_inst = d.inst  # (Inst.grammar_inst, without the property)
    if grammar_inst is None or not grammar_inst.has_result_type or not d.operands:
        return None
    return d.operands[0][0].text  # (see _load)


def _pointed(
    m: Module, inst: Inst, tok: Token, role: str, pointers: _Pointers
) -> tuple[_Pointer | None, list[Diagnostic]]:
    """(storage class, pointee) of the pointer operand `tok`, or None with what to report: nothing where its type
    is unknown here or an untyped pointer, memory.pointer where it is no pointer at all."""
    pt = _value_type(m, tok.text)
    if pt is None:
        return None, []
    ptr = _pointer(pointers, pt)
    if ptr is None and not _untyped(m, pt):
        return None, [
            FAMILY.cite(inst.line, tok, "memory.pointer", f"{role} {tok.text} is of type {pt}, not a pointer")
        ]
    return ptr, []


def _load(m: Module, inst: Inst, pointers: _Pointers) -> list[Diagnostic]:
    # An operand's token read as its first item (`o[0]`): the compiled build reads a tuple item, where
    # `o.token` (and `o.is_id`) is looked up on a class it does not compile, for every load and store.
    ops = inst.operands
    if len(ops) < 2 or ops[1][0].kind != "ID":
        return []
    rt, ptr_op = ops[0][0].text, ops[1][0]
    ptr, problem = _pointed(m, inst, ptr_op, "Pointer", pointers)
    if ptr is None:
        return problem
    if ptr[1] != rt and m.definition(rt) is not None:
        return [
            FAMILY.cite(
                inst.line,
                ops[0][0],
                "memory.load-type",
                f"the Result Type is {rt}, but {ptr_op.text} points to {ptr[1]}",
            )
        ]
    return []


def _store(m: Module, inst: Inst, pointers: _Pointers) -> list[Diagnostic]:
    ops = inst.operands
    if len(ops) < 2 or ops[0][0].kind != "ID" or ops[1][0].kind != "ID":  # (see _load)
        return []
    ptr_op, obj = ops[0][0], ops[1][0]
    ptr, problem = _pointed(m, inst, ptr_op, "Pointer", pointers)
    if ptr is None:
        return problem
    ot = _value_type(m, obj.text)
    if ot is not None and ot != ptr[1] and not _both_structs(m, ot, ptr[1]):
        return [
            FAMILY.cite(
                inst.line,
                obj,
                "memory.store-type",
                f"Object {obj.text} is of type {ot}, but {ptr_op.text} points to {ptr[1]}",
            )
        ]
    return []


def _both_structs(m: Module, a: str, b: str | None) -> bool:
    """A store between two struct types is left to spirv-val: its --relax-struct-store accepts one whose
    layouts match, and this check cannot see the validator's options."""
    ta, tb = m.definition(a), m.definition(b)
    return ta is not None and tb is not None and ta.opname == tb.opname == "OpTypeStruct"


def _untyped(m: Module, type_id: str) -> bool:
    t = m.definition(type_id)
    return t is not None and t.opname == "OpTypeUntypedPointerKHR"


def _chain(m: Module, inst: Inst, pointers: _Pointers) -> list[Diagnostic]:
    ops = [o for o in inst.operands if o[0].kind == "ID"]  # (see _load)
    if len(ops) < 2:
        return []
    rt_tok, base = ops[0][0], ops[1][0]
    bptr, problem = _pointed(m, inst, base, "Base", pointers)
    if bptr is None:
        return problem
    rptr = _pointer(pointers, rt_tok.text)
    if rptr is None:
        t = m.definition(rt_tok.text)
        if t is None or t.opname == "OpTypeUntypedPointerKHR":
            return []
        return [
            FAMILY.cite(
                inst.line, rt_tok, "memory.access-chain", f"the Result Type {rt_tok.text} is {t.opname}, not a pointer"
            )
        ]
    out = []
    if rptr[0] != bptr[0]:
        out.append(
            FAMILY.cite(
                inst.line,
                rt_tok,
                "memory.access-chain",
                f"the Result Type points into {rptr[0]}, but Base {base.text} points into {bptr[0]}",
            )
        )
    out.extend(_indexes(m, inst, bptr[1], ops[2:]))
    reached = _walk(m, bptr[1], ops[2:])
    if reached is not None and reached != rptr[1]:
        out.append(
            FAMILY.cite(
                inst.line,
                rt_tok,
                "memory.access-chain",
                f"the indexes reach {reached}, but the Result Type points to {rptr[1]}",
            )
        )
    return out


# Types an index steps into, reaching their one element type.
_ELEMENTS: Final = (
    "OpTypeVector",
    "OpTypeMatrix",
    "OpTypeArray",
    "OpTypeRuntimeArray",
    "OpTypeCooperativeMatrixKHR",
    "OpTypeCooperativeMatrixNV",
)
# Types no index steps into. Only these are judged "not a composite": vendors add composites (a
# cooperative vector, a node payload array) that spirv-val walks and this family need not know.
_SCALARS: Final = ("OpTypeBool", "OpTypeInt", "OpTypeFloat")


def _indexes(m: Module, inst: Inst, type_id: str | None, indexes: list[Operand]) -> list[Diagnostic]:
    """Each index a scalar integer; none left once a type that is not a composite is reached."""
    out = []
    for o in indexes:
        tok = o[0]  # (see _load)
        t = m.type_of(tok.text)
        d = m.definition(tok.text)
        if t is not None and d is not None and not d.is_type and t.opname != "OpTypeInt":
            lead = f"the index {tok.text} is of type {t.result} ({t.opname}), not a scalar integer"
            out.append(FAMILY.cite(inst.line, tok, "memory.access-chain-index", lead))
    for k, o in enumerate(indexes):
        t = m.definition(type_id)
        if t is None or not t.is_type:
            break
        if t.opname in _SCALARS:
            lead = f"{len(indexes) - k} index(es) left after reaching {type_id}, which is not a composite"
            out.append(FAMILY.cite(inst.line, o.token, "memory.access-chain-index", lead))
            break
        reached = _walk(m, type_id, [o])
        if reached is None:
            break
        type_id = reached
    return out


def _walk(m: Module, type_id: str | None, indexes: list[Operand]) -> str | None:
    """The type the indexes reach from `type_id`; None where that is not known here (a struct index that is
    not a constant, a type this walk does not know)."""
    for o in indexes:
        t = m.definition(type_id)
        if t is None:
            return None
        op = t.opname
        ids = t.ids()
        if op in _ELEMENTS:
            type_id = ids[0][0].text if ids else None  # (see _load)
        elif op == "OpTypeStruct":
            k = m.int_value(o[0].text)
            if k is None or not 0 <= k < len(ids):
                return None  # spirv-val requires a constant in range; not judged here
            type_id = ids[k][0].text
        else:
            return None
    return type_id


_HANDLERS: Final = {
    "OpLoad": _load,
    "OpStore": _store,
    "OpAccessChain": _chain,
    "OpInBoundsAccessChain": _chain,
    "OpVariable": _variable,
}


FAMILY = Family(
    name="memory",
    prefix="memory",
    summary="OpVariable's storage class and place, and the pointee types of OpLoad, OpStore and OpAccessChain.",
    rules=(
        Rule(
            "memory.variable-type",
            "an OpVariable whose Result Type is not a pointer.",
            sentence="OpVariable: Result Type must be an OpTypePointer. Its Type operand is the type of "
            "object in memory.",
        ),
        Rule(
            "memory.storage-class",
            "an OpVariable whose storage class is Generic or not its pointer type's.",
            sentence="OpVariable: Storage Class is the Storage Class of the memory holding the object. It "
            "must not be Generic. It must be the same as the Storage Class operand of the Result "
            "Type.",
        ),
        Rule(
            "memory.function-storage",
            "a Function variable outside a function, or another storage class inside one.",
            sentence="All type declarations (OpTypeXXX instructions), all constant instructions, and all "
            "global variable declarations (all OpVariable instructions whose Storage Class is "
            "not Function).",
        ),
        Rule(
            "memory.initializer",
            "an OpVariable whose Initializer is not of the type the variable holds.",
            sentence="OpVariable: Initializer is optional. If Initializer is present, it will be the initial value "
            "of the variable's memory content. Initializer must be an <id> from a constant instruction or a global "
            "(module scope) OpVariable instruction. Initializer must have the same type as the type pointed to by "
            "Result Type.",
        ),
        Rule(
            "memory.pointer",
            "a Pointer or Base operand that is not a pointer.",
            sentence="OpLoad, OpStore: Pointer is the pointer to load (store) through. OpAccessChain: Base must be "
            "a pointer, pointing to the base of a composite object.",
        ),
        Rule(
            "memory.load-type",
            "an OpLoad whose Result Type is not the pointer's pointee.",
            sentence="OpLoad: Pointer is the pointer to load through. Its type must be an OpTypePointer whose "
            "Type operand is the same as Result Type.",
        ),
        Rule(
            "memory.store-type",
            "an OpStore whose Object is not of the pointer's pointee type.",
            sentence="OpStore: Pointer is the pointer to store through. Its type must be an OpTypePointer whose "
            "Type operand is the same as the type of Object.",
        ),
        Rule(
            "memory.access-chain",
            "an access chain whose result is not a pointer to the type its indexes reach, in Base's storage class.",
            sentence="OpAccessChain: Result Type must be an OpTypePointer. Its Type operand must be the type "
            "reached by walking the Base’s type hierarchy down to the last provided index in Indexes, "
            "and its Storage Class operand must be the same as the Storage Class of Base.",
        ),
        Rule(
            "memory.access-chain-index",
            "an access chain index that is not a scalar integer, or one left after a non-composite type.",
            sentence="OpAccessChain: Once any non-composite type is reached, there must be no remaining (unused) "
            "indexes. Each index in Indexes must have a scalar integer type.",
        ),
    ),
    check=check,
    linewise=True,
)
