"""A shared helper of the features that show a module's interface (reflection, hover, the outline,
code lenses): type names as GLSL writes them, what to call each kind of resource, and the
one-line and tabular descriptions of a resource and of an entry point's resources."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.blocks import declared_members, declared_size, layouts
from ..model.module import EntryPoint, Module
from ..model.resources import Resource, resources
from ..model.shapes import Shape, decoration_int, decorations, shape
from .docs import code

# What each kind of resource is called, one and many.
KIND_NAMES = {
    "ubos": ("UBO", "UBOs"),
    "ssbos": ("SSBO", "SSBOs"),
    "textures": ("texture", "textures"),
    "separate_images": ("sampled image", "sampled images"),
    "separate_samplers": ("sampler", "samplers"),
    "images": ("storage image", "storage images"),
    "subpass_inputs": ("subpass input", "subpass inputs"),
    "acceleration_structures": ("acceleration structure", "acceleration structures"),
    "counters": ("atomic counter", "atomic counters"),
    "push_constants": ("push constants", "push constants"),
    "inputs": ("input", "inputs"),
    "outputs": ("output", "outputs"),
}

_SCALARS = {
    ("bool", 32): "bool",
    ("int", 8): "int8_t",
    ("uint", 8): "uint8_t",
    ("int", 16): "int16_t",
    ("uint", 16): "uint16_t",
    ("int", 32): "int",
    ("uint", 32): "uint",
    ("float", 16): "float16_t",
    ("float", 32): "float",
    ("float", 64): "double",
    ("int", 64): "int64_t",
    ("uint", 64): "uint64_t",
}
_VECTORS = {
    ("bool", 32): "bvec",
    ("int", 8): "i8vec",
    ("uint", 8): "u8vec",
    ("int", 16): "i16vec",
    ("uint", 16): "u16vec",
    ("int", 32): "ivec",
    ("uint", 32): "uvec",
    ("float", 16): "f16vec",
    ("float", 32): "vec",
    ("float", 64): "dvec",
    ("int", 64): "i64vec",
    ("uint", 64): "u64vec",
}
_MATRICES = {
    ("bool", 32): "bmat",
    ("int", 32): "imat",
    ("uint", 32): "umat",
    ("float", 16): "f16mat",
    ("float", 32): "mat",
    ("float", 64): "dmat",
}
_DIMS = {"1D": "1D", "2D": "2D", "3D": "3D", "Cube": "Cube", "Rect": "2DRect", "Buffer": "Buffer"}
# The ray capabilities under which GLSL names the KHR acceleration structure type.
_KHR_RAYS = ("RayTracingKHR", "RayQueryKHR", "RayTraversalPrimitiveCullingKHR")


def number(id_: str) -> str:
    return id_.lstrip("%")


def type_name(m: Module, s: Shape) -> str:
    """The type as GLSL (Vulkan) writes it, without its arrays; a struct by its OpName or `_N`."""
    if s.pointer and s.storage == "PhysicalStorageBuffer" and s.base != "struct":
        pointee = shape(m, s.parent)
        name = type_name(m, pointee) if pointee else "???"
        return name + "".join(f"{v}_" if lit else f"id{number(str(v))}_" for v, lit in s.array) + "Pointer"
    if s.base == "struct":
        return m.names.get(s.self) or "_" + number(s.self)
    if s.base in ("image", "sampled_image"):
        return _image_name(s)
    if s.base == "sampler":
        return "sampler"
    if s.base == "acceleration_structure":
        khr = any(c in m.capabilities for c in _KHR_RAYS)
        return "accelerationStructureEXT" if khr else "accelerationStructureNV"
    if s.base == "ray_query":
        return "rayQueryEXT"
    if s.base == "void":
        return "void"
    key = (s.base, s.width)
    if s.vecsize == 1 and s.columns == 1:
        return _SCALARS.get(key, "???")
    if s.columns == 1:
        return _VECTORS[key] + str(s.vecsize) if key in _VECTORS else "???"
    if key not in _MATRICES:
        return "???"
    return _MATRICES[key] + (str(s.vecsize) if s.vecsize == s.columns else f"{s.columns}x{s.vecsize}")


def _image_name(s: Shape) -> str:
    image = s.image
    if image is None:
        return "???"
    component = image.component
    prefix = {"int": "i", "uint": "u"}.get(component.base, "") if component else ""
    if image.dim == "SubpassData":
        return prefix + "subpassInput" + ("MS" if image.ms else "")
    if s.base == "sampled_image" or (image.dim == "Buffer" and image.sampled == 1):
        kind = "sampler"
    else:
        kind = "image" if image.sampled == 2 else "texture"
    out = prefix + kind + _DIMS.get(image.dim, "?") + ("MS" if image.ms else "") + ("Array" if image.arrayed else "")
    if s.base == "sampled_image" and image.depth == 1 and image.format == "Unknown":
        out += "Shadow"
    return out


def full_type(m: Module, s: Shape) -> str:
    """The type with its array dimensions, outermost first as GLSL writes them (`vec4[3][]`)."""
    dims = "".join(f"[{v or ''}]" if lit else f"[{m.name_of(str(v))}]" for v, lit in reversed(s.array))
    return type_name(m, s) + dims


def resource_of(m: Module, var_id: str) -> Resource | None:
    """The resource a module-level variable is, for whichever entry point has it."""
    for ep in [None, *m.entry_points.values()]:
        for r in resources(m, ep):
            if r.id == var_id:
                return r
    return None


def display_name(m: Module, r: Resource) -> str:
    return r.name or m.name_of(r.id)


def binding_text(m: Module, r: Resource) -> str:
    """`set 0 · binding 1`, `location 2`, or ''."""
    d = decorations(m, r.id)
    parts = []
    for key in ("DescriptorSet", "Binding", "Location", "InputAttachmentIndex"):
        value = decoration_int(d, key)
        if value is not None:
            label = {"DescriptorSet": "set", "InputAttachmentIndex": "attachment"}.get(key, key.lower())
            parts.append(f"{label} {value}")
    return " · ".join(parts)


def block_size(m: Module, r: Resource) -> int | None:
    return declared_size(m, r.type.self) if r.type.base == "struct" else None


def size_text(m: Module, r: Resource) -> str | None:
    """A block's size: `112 B`, or with a runtime array last, `16 B + 8 B × n`."""
    size = block_size(m, r)
    if size is None:
        return None
    last = max(declared_members(m, r.type.self), key=lambda mb: mb.offset or 0, default=None)
    s = shape(m, last.type_id) if last is not None else None
    if last is None or s is None or not s.array or s.array[-1] != (0, True) or last.array_stride is None:
        return f"{size} B"
    return (f"{last.offset} B + " if last.offset else "") + f"{last.array_stride} B × n"


def detail(m: Module, r: Resource) -> str:
    """One line: kind, where it is bound, its type or size."""
    parts = [KIND_NAMES[r.kind][0]]
    where = binding_text(m, r)
    if where:
        parts.append(where)
    size = size_text(m, r)
    if r.type.base == "struct" and size is not None:
        parts.append(size)
    else:
        parts.append(full_type(m, r.type))
    return " · ".join(parts)


def hover_md(m: Module, var_id: str) -> str:
    """A resource variable: its kind, binding, size and layout, and its members' table."""
    r = resource_of(m, var_id)
    if r is None:
        return ""
    head = f"**{KIND_NAMES[r.kind][0]}** {code(display_name(m, r))} · " + detail(m, r).split(" · ", 1)[1]
    if r.type.base != "struct":
        return head
    rules = layouts(m, r.type.self)
    if r.type.array:
        head += f" · {code(full_type(m, r.type))}"
    if rules:
        head += " · " + ", ".join(rules)
    rows = ["| offset | size | member | type |", "| ---: | ---: | --- | --- |"]
    for mb in declared_members(m, r.type.self):
        s = shape(m, mb.type_id)
        if s is None:
            continue
        notes = []
        if mb.array_stride is not None:
            notes.append(f"array stride {mb.array_stride}")
        if mb.matrix_stride is not None:
            notes.append(f"matrix stride {mb.matrix_stride}" + (", row-major" if mb.row_major else ""))
        kind = full_type(m, s) + (" · " + ", ".join(notes) if notes else "")
        offset = "" if mb.offset is None else str(mb.offset)
        size = "" if mb.size is None else str(mb.size)
        # A module's names as code; '|' escaped besides, or it would end the table's cell.
        name, kind = (code(x).replace("|", "\\|") for x in (mb.name or f"_m{mb.index}", kind))
        rows.append(f"| {offset} | {size} | {name} | {kind} |")
    return head + "\n\n" + "\n".join(rows)


@dataclass(frozen=True)
class Entry:
    """One resource of an entry point, as the outline shows it."""

    name: str
    detail: str
    line: int
    selection: tuple[int, int]


def outline(m: Module, ep: EntryPoint) -> list[Entry]:
    out = []
    for r in resources(m, ep):
        tok = r.var.src.result
        sel = (tok.start, tok.end) if tok is not None else (0, 0)
        out.append(Entry(display_name(m, r), detail(m, r), r.var.line, sel))
    return out


def summary(m: Module, ep: EntryPoint) -> str:
    """What an entry point uses, in a line: `2 UBOs, 1 SSBO, 3 textures · push constants 64 B · 2 inputs`."""
    counts: dict[str, int] = {}
    push: list[Resource] = []
    for r in resources(m, ep):
        if r.kind == "push_constants":
            push.append(r)
        else:
            counts[r.kind] = counts.get(r.kind, 0) + 1

    def listed(kinds: list[str]) -> str:
        return ", ".join(f"{counts[k]} {KIND_NAMES[k][counts[k] != 1]}" for k in kinds if counts.get(k))

    parts = [listed([k for k in KIND_NAMES if k not in ("inputs", "outputs", "push_constants")]) or "no resources"]
    for r in push:
        size = size_text(m, r)
        parts.append("push constants" + (f" {size}" if size is not None else ""))
    io = listed(["inputs", "outputs"])
    if io:
        parts.append(io)
    return " · ".join(parts)
