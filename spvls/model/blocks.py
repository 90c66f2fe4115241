"""Block layout: the offsets, strides and sizes a module declares for its blocks (Offset,
ArrayStride, MatrixStride decorations), and which standard layout — std140, std430, scalar
(Vulkan 15.6.4 "Offset and Stride Assignment") — those declarations follow."""

from __future__ import annotations

from dataclasses import dataclass

from .facts import module_fact
from .module import Module
from .shapes import Shape, decoration_int, decorations, member_decorations, member_names, members, shape

RULES = ("std140", "std430", "scalar")


@dataclass(frozen=True, slots=True)
class Member:
    index: int
    name: str
    type_id: str
    offset: int | None  # declared
    size: int | None  # declared (None where it cannot be known: opaque types, a missing stride)
    array_stride: int | None
    matrix_stride: int | None
    row_major: bool


def array_length(m: Module, s: Shape, at: int) -> int | None:
    """A dimension's length; a specialization constant's default value; None when unknown."""
    value, literal = s.array[at]
    if literal:
        return int(value)
    return m.int_value(str(value))


def declared_members(m: Module, struct_id: str) -> list[Member]:
    decs = member_decorations(m, struct_id)
    names = member_names(m, struct_id)
    out = []
    for i, t in enumerate(members(m, struct_id)):
        d = decs.get(i, {})
        out.append(
            Member(
                i,
                names.get(i, ""),
                t,
                decoration_int(d, "Offset"),
                declared_member_size(m, struct_id, i),
                decoration_int(decorations(m, t), "ArrayStride"),
                decoration_int(d, "MatrixStride"),
                "RowMajor" in d,
            )
        )
    return out


def declared_size(m: Module, struct_id: str, depth: int = 0) -> int | None:
    """The size a struct's declarations give: its highest member offset plus that member's size
    (offsets may be declared out of order). None when a member's size is unknown."""
    best, index = 0, 0
    decs = member_decorations(m, struct_id)
    count = len(members(m, struct_id))
    if not count or depth > 16:
        return None
    for i in range(count):
        offset = decoration_int(decs.get(i, {}), "Offset") or 0
        if offset > best:
            best, index = offset, i
    size = declared_member_size(m, struct_id, index, depth)
    return None if size is None else best + size


def declared_member_size(m: Module, struct_id: str, index: int, depth: int = 0) -> int | None:
    ids = members(m, struct_id)
    s = shape(m, ids[index]) if index < len(ids) else None
    if s is None or s.base in ("void", "bool", "image", "sampled_image", "sampler", "other"):
        return None
    decs = member_decorations(m, struct_id).get(index, {})
    if s.physical_pointer:
        return 8
    if s.array:
        stride = decoration_int(decorations(m, ids[index]), "ArrayStride")
        length = array_length(m, s, len(s.array) - 1)
        return None if stride is None or length is None else stride * length
    if s.base == "struct":
        return declared_size(m, s.self, depth + 1)
    if s.columns == 1:
        return s.vecsize * s.width // 8
    stride = decoration_int(decs, "MatrixStride")
    if stride is None:
        return None
    return stride * (s.vecsize if "RowMajor" in decs else s.columns)


# -- the standard layouts ----------------------------------------------------
def _round(n: int, to: int) -> int:
    return (n + to - 1) // to * to if to > 0 else n


def align_size(m: Module, type_id: str, rule: str, row_major: bool = False, depth: int = 0) -> tuple[int, int] | None:
    """(alignment, size) of a type under a standard layout; None for what has none."""
    s = shape(m, type_id)
    if s is None or depth > 16:
        return None
    return _align_size(m, s, rule, row_major, depth)


def _align_size(m: Module, s: Shape, rule: str, row_major: bool, depth: int) -> tuple[int, int] | None:
    if s.physical_pointer:
        return 8, 8
    if s.array:
        element = align_size(m, s.parent, rule, row_major, depth + 1)
        length = array_length(m, s, len(s.array) - 1)
        if element is None or length is None:
            return None
        align = _round(element[0], 16) if rule == "std140" else element[0]
        stride = _round(element[1], align)
        return align, stride * length
    if s.base == "struct":
        return _struct_align_size(m, s.self, rule, depth + 1)
    if s.base not in ("int", "uint", "float", "bool"):
        return None
    scalar = s.width // 8
    if s.columns > 1:  # an array of columns (rows when row-major)
        count, vec = (s.vecsize, s.columns) if row_major else (s.columns, s.vecsize)
        col = _vector(scalar, vec, rule)
        align = _round(col[0], 16) if rule == "std140" else col[0]
        return align, _round(col[1], align) * count
    return _vector(scalar, s.vecsize, rule)


def _vector(scalar: int, n: int, rule: str) -> tuple[int, int]:
    if rule == "scalar" or n == 1:
        return scalar, scalar * n
    return scalar * (2 if n == 2 else 4), scalar * n


def _struct_align_size(m: Module, struct_id: str, rule: str, depth: int) -> tuple[int, int] | None:
    offsets = standard_offsets(m, struct_id, rule, depth)
    if offsets is None:
        return None
    align, end = offsets[1], offsets[2]
    if rule == "std140":
        align = _round(align, 16)
    return align, _round(end, align)


def standard_offsets(m: Module, struct_id: str, rule: str, depth: int = 0) -> tuple[list[int], int, int] | None:
    """The member offsets a standard layout gives a struct, its alignment and its end."""
    offsets, align, at = [], 1, 0
    decs = member_decorations(m, struct_id)
    for i, t in enumerate(members(m, struct_id)):
        r = align_size(m, t, rule, "RowMajor" in decs.get(i, {}), depth + 1)
        if r is None:
            return None
        at = _round(at, r[0])
        offsets.append(at)
        at += r[1]
        align = max(align, r[0])
    return offsets, align, at


def _standard_stride(m: Module, type_id: str, rule: str) -> int | None:
    s = shape(m, type_id)
    if s is None or not s.array:
        return None
    element = align_size(m, s.parent, rule)
    if element is None:
        return None
    align = _round(element[0], 16) if rule == "std140" else element[0]
    return _round(element[1], align)


def follows(m: Module, struct_id: str, rule: str, depth: int = 0) -> bool:
    """Whether every declared offset and stride in the block (nested structs too) is what the rule gives."""
    want = standard_offsets(m, struct_id, rule)
    if want is None or depth > 16:
        return False
    for member, offset in zip(declared_members(m, struct_id), want[0], strict=False):
        if member.offset is not None and member.offset != offset:
            return False
        if member.array_stride is not None and member.array_stride != _standard_stride(m, member.type_id, rule):
            return False
        s = shape(m, member.type_id)
        if s is not None and s.columns > 1 and member.matrix_stride is not None:
            scalar = s.width // 8
            col = _vector(scalar, s.columns if member.row_major else s.vecsize, rule)
            if member.matrix_stride != _round(col[1], _round(col[0], 16) if rule == "std140" else col[0]):
                return False
        if s is not None and s.base == "struct" and not s.pointer and not follows(m, s.self, rule, depth + 1):
            return False
    return True


def layouts(m: Module, struct_id: str) -> list[str]:
    """The standard layouts a block's declarations follow (possibly several, possibly none)."""
    return [rule for rule in RULES if follows(m, struct_id, rule)]


# -- which structs must be laid out explicitly --------------------------------
# Storage classes whose Block (for Uniform also BufferBlock) structs are laid out explicitly; Workgroup
# only with WorkgroupMemoryExplicitLayoutKHR.
_EXPLICIT = ("Uniform", "PushConstant", "StorageBuffer", "PhysicalStorageBuffer")


@module_fact
def explicit_blocks(m: Module) -> dict[str, str]:
    """The structs a module-level variable's type makes a laid-out block (through one level of
    arrays, except in Workgroup), each with its block decoration (Block or BufferBlock), in the
    order of the variables."""
    workgroup = "WorkgroupMemoryExplicitLayoutKHR" in m.declared_caps
    out: dict[str, str] = {}
    for var in m.outside_functions():
        if var.opname != "OpVariable" or len(var.operands) < 2:
            continue
        storage = var.operands[1].enumerants[0].name if var.operands[1].enumerants else ""
        ptr = shape(m, var.operands[0].token.text)
        if (
            ptr is None
            or ptr.outer != "pointer"
            or not (storage in _EXPLICIT or (storage == "Workgroup" and workgroup))
        ):
            continue
        t = m.definition(ptr.parent)
        if t is not None and t.opname in ("OpTypeArray", "OpTypeRuntimeArray") and storage != "Workgroup":
            t = m.definition(_element(m, t.result or ""))
        if t is None or t.opname != "OpTypeStruct" or t.result is None:
            continue
        decs = decorations(m, t.result)
        if "Block" in decs:
            out.setdefault(t.result, "Block")
        elif "BufferBlock" in decs and storage == "Uniform":
            out.setdefault(t.result, "BufferBlock")
    return out


def _element(m: Module, array_id: str) -> str:
    t = m.definition(array_id)
    ids = t.ids(skip_type=True) if t is not None else []
    return ids[0].token.text if ids and ids[0].token.text != array_id else ""


# (the struct, its member index) holding what is missing; the struct is the block or one inside it.
Place = tuple[str, int]


def missing_offset(m: Module, struct_id: str, depth: int = 0, seen: set[str] | None = None) -> Place | None:
    """The first member without an Offset, in the struct or (through structs and arrays) inside it.
    `seen`: the types already walked (each answers the same wherever it is met, so a struct shared by
    many paths is walked once: the paths grow exponentially with the nesting)."""
    seen = set() if seen is None else seen
    t = m.definition(struct_id)
    if t is None or depth > 32 or struct_id in seen:
        return None
    seen.add(struct_id)
    if t.opname in ("OpTypeArray", "OpTypeRuntimeArray"):
        return missing_offset(m, _element(m, struct_id), depth + 1, seen)
    if t.opname != "OpTypeStruct":
        return None
    decs = member_decorations(m, struct_id)
    for i in range(len(members(m, struct_id))):
        offset = decoration_int(decs.get(i, {}), "Offset")
        if offset is None or offset == 0xFFFFFFFF:
            return struct_id, i
    for member in members(m, struct_id):
        inner = missing_offset(m, member, depth + 1, seen)
        if inner is not None:
            return inner
    return None


def missing_stride(
    m: Module, struct_id: str, wanted: str, depth: int = 0, seen: set[str] | None = None
) -> Place | None:
    """The first member lacking what `wanted` names: "ArrayStride" (a member that is a fixed-size
    array), "MatrixStride" or "RowMajor" (RowMajor or ColMajor) (a member that is a matrix or an
    array of them); in the struct, then in its members that are structs (each struct once, as in
    missing_offset)."""
    seen = set() if seen is None else seen
    if depth > 32 or struct_id in seen:
        return None
    seen.add(struct_id)
    decs = member_decorations(m, struct_id)
    ids = members(m, struct_id)
    for i, member in enumerate(ids):
        t = m.definition(member)
        if wanted != "ArrayStride":
            while t is not None and t.opname in ("OpTypeArray", "OpTypeRuntimeArray"):
                t = m.definition(_element(m, t.result or ""))
        kind = "OpTypeArray" if wanted == "ArrayStride" else "OpTypeMatrix"
        if t is None or t.opname != kind or t.result is None:
            continue
        own, on_member = decorations(m, t.result), decs.get(i, {})
        names = ("RowMajor", "ColMajor") if wanted == "RowMajor" else (wanted,)
        if not any(n in own or n in on_member for n in names):
            return struct_id, i
    for member in ids:
        t = m.definition(member)
        if t is not None and t.opname == "OpTypeStruct":
            inner = missing_stride(m, member, wanted, depth + 1, seen)
            if inner is not None:
                return inner
    return None
