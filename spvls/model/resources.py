"""A module's resources: its module-level variables sorted into the kinds a shader's interface
has (stage inputs and outputs, uniform and storage buffers, images, samplers, push constants, …),
as an entry point sees them, with the names reflection gives them (SPIRV-Cross' rules: a block's
type name first, then its variable's, then `_<type>_<variable>`)."""

from __future__ import annotations

from dataclasses import dataclass

from .module import EntryPoint, Inst, Module
from .shapes import Shape, decorations, member_decorations, shape

# The kinds, in the order reflection lists them, with spirv-cross --reflect's keys.
KINDS = (
    "subpass_inputs",
    "inputs",
    "outputs",
    "textures",
    "separate_images",
    "separate_samplers",
    "images",
    "ssbos",
    "ubos",
    "push_constants",
    "counters",
    "acceleration_structures",
)


@dataclass(frozen=True, slots=True)
class Resource:
    kind: str  # one of KINDS
    var: Inst  # the OpVariable
    type: Shape  # the variable's type (a pointer, with the pointee's arrays)
    name: str  # the name reflection gives it ("" when it has none: see fallback)
    block: bool  # its type is a Block or BufferBlock struct

    @property
    def id(self) -> str:
        return self.var.result or ""

    def fallback(self, number: str) -> str:
        """The name when it has none: `_` and the id's number (the block type's for a block)."""
        return self.name or "_" + number


def version(m: Module) -> tuple[int, int]:
    return m.doc.header_version() or m.version


def default_entry(m: Module) -> EntryPoint | None:
    return next(iter(m.entry_points.values()), None)


def interface(ep: EntryPoint | None) -> set[str]:
    if ep is None:
        return set()
    return {o.token.text for o in ep.inst.operands[3:] if o.is_id}


def storage(var: Inst) -> str:
    for o in var.operands:
        if o.enumerants:
            return o.token.text
    return ""


def is_builtin(m: Module, var: Inst, s: Shape) -> bool:
    if "BuiltIn" in decorations(m, var.result or ""):
        return True
    return s.base == "struct" and any("BuiltIn" in d for d in member_decorations(m, s.self).values())


def _has(m: Module, id_: str, decoration: str) -> bool:
    return decoration in decorations(m, id_)


def _block_name(m: Module, var: Inst, s: Shape, prefer_instance: bool) -> str:
    names_ = m.names
    var_name = names_.get(var.result or "", "")
    if prefer_instance:
        return var_name or "_" + _number(var.result or "")
    type_name = names_.get(s.self, "")
    if type_name:
        return type_name
    return var_name or f"_{_number(s.self)}_{_number(var.result or '')}"


def _number(id_: str) -> str:
    return id_.lstrip("%")


def ssbo_instance_names(m: Module) -> bool:
    """Whether a storage buffer is known by its variable's name, not its block's: in HLSL's output
    (by OpSource), or, with no OpSource, when two variables share a block type."""
    source = m.with_op(("OpSource",))
    if source:
        lang = source[0].operands[0].token.text if source[0].operands else ""
        if lang in ("GLSL", "ESSL", "HLSL"):
            return lang == "HLSL"
    seen: set[str] = set()
    for var in _globals(m):
        s = shape(m, var.result_type)
        if s is None or not s.pointer:
            continue
        if storage(var) == "StorageBuffer" or (storage(var) == "Uniform" and _has(m, s.self, "BufferBlock")):
            if s.self in seen:
                return True
            seen.add(s.self)
    return False


def _globals(m: Module) -> list[Inst]:
    return [v for v in m.with_op(("OpVariable",)) if m.function_at(v.line) is None and storage(v) != "Function"]


def resources(m: Module, ep: EntryPoint | None = None) -> list[Resource]:
    """The resources an entry point (default: the first) has, in declaration order; built-in
    variables are left out. Before SPIR-V 1.4 only inputs and outputs must be listed in an entry
    point's interface, and a module with one entry point is taken to use them all."""
    ep = ep or default_entry(m)
    listed = interface(ep)
    new = version(m) >= (1, 4)
    instance = ssbo_instance_names(m)
    out = []
    for var in _globals(m):
        s = shape(m, var.result_type)
        if s is None or not s.pointer:
            continue
        sc = storage(var)
        checked = new or (sc in ("Input", "Output") and len(m.entry_points) > 1)
        if checked and (var.result or "") not in listed:
            continue
        if is_builtin(m, var, s):
            continue
        kind, name = _classify(m, var, s, sc, instance)
        if kind:
            block = _has(m, s.self, "Block") or _has(m, s.self, "BufferBlock")
            out.append(Resource(kind, var, s, name, block))
    return out


def _classify(m: Module, var: Inst, s: Shape, sc: str, instance: bool) -> tuple[str, str]:
    own = m.names.get(var.result or "", "")
    image = s.image
    if sc == "Input":
        return "inputs", _block_name(m, var, s, False) if _has(m, s.self, "Block") else own
    if sc == "UniformConstant" and image is not None and image.dim == "SubpassData":
        return "subpass_inputs", own
    if sc == "Output":
        return "outputs", _block_name(m, var, s, False) if _has(m, s.self, "Block") else own
    if s.storage == "Uniform" and _has(m, s.self, "Block"):
        return "ubos", _block_name(m, var, s, False)
    if (s.storage == "Uniform" and _has(m, s.self, "BufferBlock")) or s.storage == "StorageBuffer":
        return "ssbos", _block_name(m, var, s, instance)
    if s.storage == "PushConstant":
        return "push_constants", own
    if s.storage == "UniformConstant" and s.base == "image" and image is not None:
        if image.sampled == 2:
            return "images", own
        if image.sampled == 1:
            return "separate_images", own
    if s.storage == "UniformConstant" and s.base == "sampler":
        return "separate_samplers", own
    if s.storage == "UniformConstant" and s.base == "sampled_image":
        return "textures", own
    if s.storage == "AtomicCounter":
        return "counters", own
    if s.storage == "UniformConstant" and s.base == "acceleration_structure":
        return "acceleration_structures", own
    return "", ""
