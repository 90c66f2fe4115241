"""A module's interface as JSON, in the shape and with the meanings of `spirv-cross --reflect`:
entry points (with compute workgroup sizes), the block types with member offsets and strides, each
kind of resource with its set, binding, location, block size and qualifiers, and the
specialization constants with their ids and defaults.

Ids are named `_N` by their number: the module is read from text whose ids are numbers (a
binary's disassembly with raw ids), as spirv-cross numbers them from the binary."""

from __future__ import annotations

import json
import struct
from typing import Any

from ..model.blocks import declared_size
from ..model.module import EntryPoint, Module
from ..model.resources import KINDS, Resource, default_entry, resources, storage
from ..model.shapes import Shape, decoration_int, decorations, member_decorations, member_names, members, shape
from ..syntax.parser import int_value
from .interface import number, type_name

# spirv-cross's names of the execution models it knows.
_MODES = {
    "Vertex": "vert",
    "TessellationControl": "tesc",
    "TessellationEvaluation": "tese",
    "Geometry": "geom",
    "Fragment": "frag",
    "GLCompute": "comp",
    "RayGenerationKHR": "rgen",
    "IntersectionKHR": "rint",
    "AnyHitKHR": "rahit",
    "ClosestHitKHR": "rchit",
    "MissKHR": "rmiss",
    "CallableKHR": "rcall",
    "TaskNV": "task",
    "MeshNV": "mesh",
    "TaskEXT": "task",
    "MeshEXT": "mesh",
}
STAGES = tuple(dict.fromkeys(_MODES.values()))

# GLSL's image format qualifiers, by ImageFormat enumerant (the ones GLSL has).
_FORMATS = {
    "Rgba32f": "rgba32f",
    "Rgba16f": "rgba16f",
    "R32f": "r32f",
    "Rgba8": "rgba8",
    "Rgba8Snorm": "rgba8_snorm",
    "Rg32f": "rg32f",
    "Rg16f": "rg16f",
    "Rgba32i": "rgba32i",
    "Rgba16i": "rgba16i",
    "R32i": "r32i",
    "Rgba8i": "rgba8i",
    "Rg32i": "rg32i",
    "Rg16i": "rg16i",
    "Rgba32ui": "rgba32ui",
    "Rgba16ui": "rgba16ui",
    "R32ui": "r32ui",
    "Rgba8ui": "rgba8ui",
    "Rg32ui": "rg32ui",
    "Rg16ui": "rg16ui",
    "R11fG11fB10f": "r11f_g11f_b10f",
    "R16f": "r16f",
    "Rgb10A2": "rgb10_a2",
    "R8": "r8",
    "Rg8": "rg8",
    "R16": "r16",
    "Rg16": "rg16",
    "Rgba16": "rgba16",
    "R16Snorm": "r16_snorm",
    "Rg16Snorm": "rg16_snorm",
    "Rgba16Snorm": "rgba16_snorm",
    "R8Snorm": "r8_snorm",
    "Rg8Snorm": "rg8_snorm",
    "R8ui": "r8ui",
    "Rg8ui": "rg8ui",
    "R16ui": "r16ui",
    "Rgb10a2ui": "rgb10_a2ui",
    "R8i": "r8i",
    "Rg8i": "rg8i",
    "R16i": "r16i",
}


def _ref(id_: str) -> str:
    return "_" + number(id_)


def _arrays(s: Shape) -> dict[str, Any]:
    if not s.array or s.physical_pointer:
        return {}
    return {
        "array": [v if lit else int(number(str(v))) for v, lit in s.array],
        "array_size_is_literal": [lit for _, lit in s.array],
    }


def _reference(m: Module, s: Shape) -> bool:
    """A physical pointer, or an array of them: reflection names the pointee's type instead."""
    if s.physical_pointer:
        return True
    # spirv-cross's test, whose types carry their arrays through pointers: a pointer to a
    # physical pointer to an array counts too.
    parent = shape(m, s.parent) if s.array else None
    return parent is not None and parent.physical_pointer


def _members(m: Module, struct_id: str) -> list[dict[str, Any]]:
    out = []
    decs = member_decorations(m, struct_id)
    names_ = member_names(m, struct_id)
    for i, t in enumerate(members(m, struct_id)):
        s = shape(m, t)
        if s is None:
            continue
        d = decs.get(i, {})
        entry: dict[str, Any] = {"name": names_.get(i) or f"_m{i}"}
        if _reference(m, s):
            entry["type"] = _ref(s.parent)
        elif s.base == "struct":
            entry["type"] = _ref(s.self)
        else:
            entry["type"] = type_name(m, s)
        entry.update(_arrays(s))
        for key, decoration in (("location", "Location"), ("offset", "Offset")):
            if decoration in d:
                entry[key] = decoration_int(d, decoration)
        stride = decoration_int(decorations(m, t), "ArrayStride")
        if stride is not None:
            entry["array_stride"] = stride
        if "MatrixStride" in d:
            entry["matrix_stride"] = decoration_int(d, "MatrixStride")
        if "RowMajor" in d:
            entry["row_major"] = True
        if s.physical_pointer:
            entry["physical_pointer"] = True
        out.append(entry)
    return out


def _types(m: Module) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pointees: list[str] = []
    for t in m.with_op(("OpTypeStruct", "OpTypePointer", "OpTypeArray", "OpTypeRuntimeArray")):
        s = shape(m, t.result)
        if s is None or t.result is None:
            continue
        if t.opname == "OpTypeStruct":
            out[_ref(t.result)] = {"name": type_name(m, s), "members": _members(m, t.result)}
        elif _reference(m, s):
            parent = m.definition(s.parent)
            if parent is not None and parent.opname != "OpTypeStruct" and s.parent not in pointees:
                pointees.append(s.parent)
    for p in pointees:
        s = shape(m, p)
        if s is None:
            continue
        entry: dict[str, Any] = {"name": type_name(m, s)}
        if s.physical_pointer:
            entry.update({"type": _ref(s.parent), "physical_pointer": True})
        elif s.array:
            entry.update(_arrays(s))
            entry.update(
                {"type": _ref(s.parent), "array_stride": decoration_int(decorations(m, p), "ArrayStride") or 0}
            )
        else:
            entry["members"] = []
        out[_ref(p)] = entry
    return out


def _entry_points(m: Module) -> list[dict[str, Any]]:
    models = m.grammar.kinds["ExecutionModel"].enumerants
    known = {models[name].value: mode for name, mode in _MODES.items() if name in models}

    def value(ep: EntryPoint) -> int:
        e = models.get(ep.model)
        return e.value if e is not None else 1 << 32

    spec = _workgroup_spec(m, default_entry(m))
    out = []
    for ep in sorted(m.entry_points.values(), key=lambda ep: (value(ep), ep.name.encode())):
        entry: dict[str, Any] = {"name": ep.name, "mode": known.get(value(ep), "???")}
        if ep.model == "GLCompute":
            size = _workgroup_size(m, ep)
            entry["workgroup_size"] = [sid if sid is not None else v for v, sid in zip(size, spec, strict=True)]
            entry["workgroup_size_is_spec_constant_id"] = [sid is not None for sid in spec]
        out.append(entry)
    return out


def _workgroup_constant(m: Module) -> str | None:
    for id_, decs in ((c.result, decorations(m, c.result or "")) for c in m.with_op(_COMPOSITES)):
        if decs.get("BuiltIn") == ("WorkgroupSize",):
            return id_
    return None


_COMPOSITES = ("OpConstantComposite", "OpSpecConstantComposite")
_SPEC = ("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantOp", "OpSpecConstantComposite")


def _workgroup_parts(m: Module, ep: EntryPoint | None, mode_name: str) -> list[str]:
    """The ids or literals giving the x, y, z sizes: the WorkgroupSize built-in constant's
    components (which take precedence), else the entry point's execution mode's operands."""
    c = m.definition(_workgroup_constant(m))
    if c is not None:
        return [o.token.text for o in c.ids(skip_type=True)][:3]
    for mode in ep.modes if ep is not None else ():
        ops = mode.operands
        if len(ops) >= 5 and ops[1].token.text == mode_name:
            return [o.token.text for o in ops[2:5]]
    return []


def _workgroup_size(m: Module, ep: EntryPoint) -> list[int]:
    parts = _workgroup_parts(m, ep, "LocalSize")
    if _workgroup_constant(m) is not None:
        values = [m.int_value(p) or 0 for p in parts]
    else:
        values = [int_value(p) or 0 for p in parts]
    return (values + [0, 0, 0])[:3]


def _workgroup_spec(m: Module, ep: EntryPoint | None) -> list[int | None]:
    """Each dimension's SpecId when a specialization constant gives it (the default entry point's)."""
    out: list[int | None] = []
    for p in (_workgroup_parts(m, ep, "LocalSizeId") + ["", "", ""])[:3]:
        d = m.definition(p)
        spec = d is not None and d.opname in _SPEC
        out.append((decoration_int(decorations(m, p), "SpecId") or 0) if spec else None)
    return out


def _resource(m: Module, r: Resource) -> dict[str, Any]:
    s, var_id = r.type, r.id
    push = r.type.storage == "PushConstant"
    fallback = s.self if r.block and not push else var_id
    entry: dict[str, Any] = {
        "type": _ref(s.self) if s.base == "struct" else type_name(m, s),
        "name": r.name or _ref(fallback),
    }
    var_decs = decorations(m, var_id)
    ssbo = s.storage == "StorageBuffer" or (s.storage == "Uniform" and "BufferBlock" in decorations(m, s.self))
    qualifiers = set(var_decs)
    if ssbo:
        per_member = [
            set(d) for d in (member_decorations(m, s.self).get(i, {}) for i in range(len(members(m, s.self))))
        ]
        if per_member:
            qualifiers |= set.intersection(*per_member)
    for key, decoration in (
        ("writeonly", "NonReadable"),
        ("readonly", "NonWritable"),
        ("restrict", "Restrict"),
        ("coherent", "Coherent"),
        ("volatile", "Volatile"),
    ):
        if decoration in qualifiers:
            entry[key] = True
    entry.update(_arrays(s))
    if r.block and storage(r.var) in ("Uniform", "UniformConstant", "StorageBuffer"):
        entry["block_size"] = declared_size(m, s.self) or 0
    if push:
        entry["push_constant"] = True
    for key, decoration, flag in (
        ("location", "Location", False),
        ("row_major", "RowMajor", True),
        ("column_major", "ColMajor", True),
        ("index", "Index", False),
        ("set", "DescriptorSet", False),
        ("binding", "Binding", False),
        ("input_attachment_index", "InputAttachmentIndex", False),
        ("offset", "Offset", False),
    ):
        if decoration in var_decs and not (push and key == "set"):
            entry[key] = True if flag else decoration_int(var_decs, decoration)
    if s.base == "image" and s.image is not None and s.image.sampled == 2 and s.image.format in _FORMATS:
        entry["format"] = _FORMATS[s.image.format]
    return entry


def _spec_constants(m: Module) -> list[dict[str, Any]]:
    out = []
    for c in m.with_op(("OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantComposite")):
        spec_id = decoration_int(decorations(m, c.result or ""), "SpecId")
        if spec_id is None or c.result is None:
            continue
        s = shape(m, c.result_type)
        entry: dict[str, Any] = {
            "name": m.names.get(c.result, ""),
            "id": spec_id,
            "type": type_name(m, s) if s else "???",
            "variable_id": int(number(c.result))
            if number(c.result).isascii() and number(c.result).isdigit()
            else c.result,
        }
        value = _default(c.opname, c.literal(0), s)
        if value is not None:
            entry["default_value"] = value
        out.append(entry)
    return out


def _default(opname: str, text: str | None, s: Shape | None) -> int | float | bool | None:
    if s is None or s.vecsize != 1 or s.columns != 1 or s.array:
        return None
    if s.base == "bool":
        return opname == "OpSpecConstantTrue"
    if opname != "OpSpecConstant" or text is None or s.width != 32:
        return None
    try:
        if s.base == "float":
            value = float.fromhex(text) if "0x" in text.lower() else float(text)
            return struct.unpack("<f", struct.pack("<f", value))[0]
        value = int(text, 0)
    except (ValueError, OverflowError):
        return None
    if s.base == "uint":
        return value & 0xFFFFFFFF
    return struct.unpack("<i", struct.pack("<I", value & 0xFFFFFFFF))[0] if s.base == "int" else None


def _mode(m: Module, ep: EntryPoint) -> str:
    models = m.grammar.kinds["ExecutionModel"].enumerants
    e = models.get(ep.model)
    return next((mode for name, mode in _MODES.items() if e is not None and models.get(name) is e), "???")


def entry_point(m: Module, name: str | None, stage: str | None = None) -> EntryPoint | None:
    """The entry point named so (of that stage: `vert`, `frag`, `comp`, …, as spirv-cross's
    --stage), the first when no name is given; LookupError when there is none."""
    if name is None and stage is None:
        return default_entry(m)
    for ep in m.entry_points.values():
        if (name is None or ep.name == name) and (stage is None or _mode(m, ep) == stage):
            return ep
    what = " ".join(x for x in (f"named {name!r}" if name else "", f"of stage {stage}" if stage else "") if x)
    raise LookupError(f"no entry point {what}")


def reflect(m: Module, entry: str | None = None, stage: str | None = None) -> dict[str, Any]:
    """The interface of the module (of the named entry point's resources; default: the first)."""
    ep = entry_point(m, entry, stage)
    out: dict[str, Any] = {}
    eps = _entry_points(m)
    if eps:
        out["entryPoints"] = eps
    types = _types(m)
    if types:
        out["types"] = types
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for r in resources(m, ep):
        by_kind.setdefault(r.kind, []).append(_resource(m, r))
    for kind in KINDS:
        if kind in by_kind:
            out[kind] = by_kind[kind]
    specs = _spec_constants(m)
    if specs:
        out["specialization_constants"] = specs
    return out


def to_json(data: dict[str, Any]) -> str:
    """spirv-cross's layout: four-space indents, ` : ` between key and value."""
    return json.dumps(data, indent=4, separators=(",", " : "), ensure_ascii=False)


__all__ = ["reflect", "to_json"]
