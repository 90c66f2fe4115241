"""What a type id is, flattened the way reflection tools see it: the innermost type with its array
dimensions (innermost first), vector size and columns, pointer storage and image properties; and
the decorations on ids and struct members as plain values."""

from __future__ import annotations

from dataclasses import dataclass

from ..syntax.parser import int_value, string_value
from .facts import module_fact
from .module import Inst, Module

# A dimension: (the literal length, True), or (the id of a specialization constant, False).
Dimension = tuple[int | str, bool]


@dataclass(frozen=True, slots=True)
class Image:
    dim: str  # the Dim enumerant: 1D, 2D, 3D, Cube, Rect, Buffer, SubpassData
    depth: int
    arrayed: bool
    ms: bool
    sampled: int  # 1: with a sampler, 2: storage
    format: str  # the ImageFormat enumerant
    component: Shape | None  # the sampled type


@dataclass(frozen=True, slots=True)
class Shape:
    """A type as seen from outside: `base` is one of bool, int, uint, float, struct, image,
    sampled_image, sampler, acceleration_structure, ray_query, void, other."""

    base: str
    self: str  # the id of the innermost type (a struct's id for an array of structs)
    width: int = 0
    vecsize: int = 1
    columns: int = 1
    array: tuple[Dimension, ...] = ()
    outer: str = ""  # "pointer" or "array" when the type is made by one
    pointer: int = 0  # pointer depth
    storage: str = ""  # a pointer's storage class
    image: Image | None = None
    parent: str = ""  # for an array its element type's id, for a pointer its pointee's

    @property
    def physical_pointer(self) -> bool:
        """A pointer into PhysicalStorageBuffer itself, not an array of such pointers."""
        return self.outer == "pointer" and self.storage == "PhysicalStorageBuffer"


def _lits(t: Inst) -> list[str]:
    return [o.token.text for o in t.operands if not o.is_id and not o.enumerants]


def _enum(t: Inst, index: int) -> str:
    enums = [o.token.text for o in t.operands if o.enumerants]
    return enums[index] if index < len(enums) else ""


def shape(m: Module, type_id: str | None) -> Shape | None:
    """The shape of a type id; None for an id that is not a type (or a cycle)."""
    return _shape(m, type_id, 0)


def _shape(m: Module, type_id: str | None, depth: int) -> Shape | None:
    t = m.definition(type_id)
    if t is None or not t.is_type or depth > 32:
        return None
    op, ids = t.opname, [o.token.text for o in t.ids(skip_type=True)]
    ids = ids[1:] if t.result and ids and ids[0] == t.result else ids
    own = t.result or ""
    if op == "OpTypeVoid":
        return Shape("void", own)
    if op == "OpTypeBool":
        return Shape("bool", own, 32)
    if op == "OpTypeInt":
        lits = _lits(t)
        width = int_value(lits[0]) if lits else None
        signed = len(lits) > 1 and lits[1] == "1"
        return Shape("int" if signed else "uint", own, width or 32)
    if op == "OpTypeFloat":
        lits = _lits(t)
        return Shape("float", own, (int_value(lits[0]) if lits else None) or 32)
    if op in ("OpTypeVector", "OpTypeMatrix"):
        inner = _shape(m, ids[0] if ids else None, depth + 1)
        n = int_value(_lits(t)[0]) if _lits(t) else None
        if inner is None or n is None:
            return None
        if op == "OpTypeVector":
            return Shape(inner.base, own, inner.width, n, 1)
        return Shape(inner.base, own, inner.width, inner.vecsize, n)
    if op in ("OpTypeArray", "OpTypeRuntimeArray"):
        inner = _shape(m, ids[0] if ids else None, depth + 1)
        if inner is None:
            return None
        dim: Dimension = (0, True)
        if op == "OpTypeArray":
            length = ids[1] if len(ids) > 1 else ""
            c = m.definition(length)
            value = m.int_value(length)
            dim = (value, True) if c is not None and c.opname == "OpConstant" and value is not None else (length, False)
        return _with(inner, array=(*inner.array, dim), parent=ids[0], outer="array")
    if op == "OpTypePointer":
        inner = _shape(m, ids[0] if ids else None, depth + 1)
        if inner is None:
            return None
        return _with(inner, pointer=inner.pointer + 1, storage=_enum(t, 0), parent=ids[0], outer="pointer")
    if op == "OpTypeForwardPointer":
        return None
    if op == "OpTypeStruct":
        return Shape("struct", own)
    if op == "OpTypeImage":
        nums = [int_value(x) or 0 for x in _lits(t)]
        nums += [0] * (5 - len(nums))
        return Shape(
            "image",
            own,
            image=Image(
                _enum(t, 0),
                nums[0],
                bool(nums[1]),
                bool(nums[2]),
                nums[3],
                _enum(t, 1),
                _shape(m, ids[0] if ids else None, depth + 1),
            ),
        )
    if op == "OpTypeSampledImage":
        inner = _shape(m, ids[0] if ids else None, depth + 1)
        return Shape("sampled_image", own, image=inner.image if inner else None)
    if op == "OpTypeSampler":
        return Shape("sampler", own)
    if op in ("OpTypeAccelerationStructureKHR",):
        return Shape("acceleration_structure", own)
    if op == "OpTypeRayQueryKHR":
        return Shape("ray_query", own)
    return Shape("other", own)


def _with(s: Shape, **changes: object) -> Shape:
    fields = {f: getattr(s, f) for f in Shape.__slots__}  # type: ignore[attr-defined]
    fields.update(changes)
    return Shape(**fields)  # type: ignore[arg-type]


# -- decorations ------------------------------------------------------------
Decorations = dict[str, tuple[str, ...]]  # decoration name -> its operands' texts (the first one given)


@module_fact
def decorations(m: Module, id_: str) -> Decorations:
    """The decorations of an id (OpDecorate, OpDecorateId, OpDecorateString, and those of the
    decoration groups OpGroupDecorate applies to it), by name."""
    out: Decorations = {}
    for target in (id_, *_groups(m)[0].get(id_, ())):
        for inst in m.decorations.get(target, ()):
            if inst.opname in ("OpMemberDecorate", "OpMemberDecorateString"):
                continue
            name, values = _decoration(inst, 1)
            if name:
                out.setdefault(name, values)
    return out


@module_fact
def _groups(m: Module) -> tuple[dict[str, list[str]], dict[str, list[tuple[int, str]]]]:
    """The decoration groups applied to each id, and to each struct's members (index, group)."""
    whole: dict[str, list[str]] = {}
    parts: dict[str, list[tuple[int, str]]] = {}
    for inst in m.with_op(("OpGroupDecorate", "OpGroupMemberDecorate")):
        ops = [o.token.text for o in inst.operands]
        if not ops:
            continue
        if inst.opname == "OpGroupDecorate":
            for target in ops[1:]:
                whole.setdefault(target, []).append(ops[0])
        else:
            for target, index in zip(ops[1::2], ops[2::2], strict=False):
                n = int_value(index)
                if n is not None:
                    parts.setdefault(target, []).append((n, ops[0]))
    return whole, parts


@module_fact
def member_decorations(m: Module, struct_id: str) -> dict[int, Decorations]:
    """The decorations of each member of a struct, by member index."""
    out: dict[int, Decorations] = {}
    for inst in m.decorations.get(struct_id, ()):
        if inst.opname not in ("OpMemberDecorate", "OpMemberDecorateString") or len(inst.operands) < 3:
            continue
        index = int_value(inst.operands[1].token.text)
        name, values = _decoration(inst, 2)
        if index is not None and name:
            out.setdefault(index, {}).setdefault(name, values)
    for index, group in _groups(m)[1].get(struct_id, ()):
        for name, values in decorations(m, group).items():
            out.setdefault(index, {}).setdefault(name, values)
    return out


def _decoration(inst: Inst, at: int) -> tuple[str, tuple[str, ...]]:
    ops = inst.operands
    if len(ops) <= at or not ops[at].enumerants:
        return "", ()
    return ops[at].enumerants[0].name, tuple(o.token.text for o in ops[at + 1 :])


def decoration_int(decs: Decorations, name: str) -> int | None:
    values = decs.get(name)
    return int_value(values[0]) if values else None


def members(m: Module, struct_id: str) -> list[str]:
    """The member type ids of a struct."""
    t = m.definition(struct_id)
    if t is None or t.opname != "OpTypeStruct":
        return []
    return [o.token.text for o in t.ids(skip_type=True) if o.token.text != t.result]


@module_fact
def member_names(m: Module, struct_id: str) -> dict[int, str]:
    """A struct's OpMemberName strings by member index (the first one given); OpName's are `Module.names`."""
    out: dict[int, str] = {}
    for inst in m.with_op(("OpMemberName",)):
        ops = inst.operands
        if len(ops) >= 3 and ops[0].token.text == struct_id:
            index = int_value(ops[1].token.text)
            if index is not None:
                out.setdefault(index, string_value(ops[2].token.text))
    return out
