"""vulkan.*: what the Vulkan environment asks of a module's resources and interfaces (the Vulkan
specification's standalone SPIR-V valid-usage rules), under a Vulkan target env only."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...spec.env import is_vulkan
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope

VUIDS = "https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#{}"
_RESOURCES = ("Uniform", "StorageBuffer", "UniformConstant")
_ARRAYS = ("OpTypeArray", "OpTypeRuntimeArray")


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if scope is not None or not is_vulkan(m.env):
        return []  # both rules read declarations and decorations only: judged whole
    out: list[Diagnostic] = []
    # Decorated through a decoration group: not judged here (spirv-val applies the group's).
    grouped = {o.token.text for g in m.with_op(("OpGroupDecorate", "OpGroupMemberDecorate")) for o in g.operands}
    for var in m.with_op(("OpVariable",)):
        if m.function_at(var.line) is None and var.result not in grouped:
            out.extend(_bound(m, var))
    seen: set[str] = set()
    for ep in m.with_op(("OpEntryPoint",)):
        for op in ep.operands[3:]:
            name = op.token.text
            if op.is_id and name not in seen:
                seen.add(name)
                found = m.definition(name)
                if found is not None and found.opname == "OpVariable" and name not in grouped:
                    out.extend(_located(m, found))
    return out


def _decorations(m: Module, target: str) -> set[str]:
    return {
        d.operands[1].token.text
        for d in m.decorations.get(target, ())
        if d.opname == "OpDecorate" and len(d.operands) > 1
    }


def _storage(var: Inst) -> str | None:
    return var.operands[1].token.text if len(var.operands) > 1 else None


def _bound(m: Module, var: Inst) -> list[Diagnostic]:
    """A resource variable has a DescriptorSet and a Binding (a UniformConstant one when used)."""
    sc = _storage(var)
    if sc not in _RESOURCES or var.result is None:
        return []
    name = var.result
    if sc == "UniformConstant" and all(m.function_at(u.line) is None for u in m.uses.get(name, ())):
        return []
    have = _decorations(m, name)
    missing = [d for d in ("DescriptorSet", "Binding") if d not in have]
    if not missing:
        return []
    return [
        FAMILY.cite(
            var.line,
            var.src.result,
            "vulkan.descriptor-set",
            f"{name}, a variable in {sc}, has no {' and no '.join(missing)} decoration",
        )
    ]


def _located(m: Module, var: Inst) -> list[Diagnostic]:
    """An interface variable in Input or Output that is not a built-in has a Location (on itself,
    or on every member of its block)."""
    if _storage(var) not in ("Input", "Output") or var.result is None:
        return []
    have = _decorations(m, var.result)
    if "BuiltIn" in have or "Location" in have:
        return []
    ptr = m.definition(var.operands[0].token.text) if var.operands else None
    pointee = m.definition(ptr.operands[1].token.text) if ptr is not None and len(ptr.operands) > 1 else None
    while pointee is not None and pointee.opname in _ARRAYS and pointee.operands:
        pointee = m.definition(pointee.operands[0].token.text)
    if pointee is None:
        return []
    if pointee.opname == "OpTypeStruct" and pointee.result is not None:
        members = [d for d in m.decorations.get(pointee.result, ()) if d.opname == "OpMemberDecorate"]
        if any(len(d.operands) > 2 and d.operands[2].token.text == "BuiltIn" for d in members):
            return []
        located = {
            d.operands[1].token.text for d in members if len(d.operands) > 2 and d.operands[2].token.text == "Location"
        }
        if located and len(located) >= len(pointee.operands):
            return []
    return [
        FAMILY.cite(
            var.line,
            var.src.result,
            "vulkan.location",
            f"{var.result}, a user-defined {_storage(var)} variable of an entry point, has no Location",
        )
    ]


FAMILY = Family(
    name="vulkan",
    prefix="vulkan",
    summary="the Vulkan environment's rules for resources and interfaces (its standalone SPIR-V VUIDs).",
    rules=(
        Rule(
            "vulkan.descriptor-set",
            "a Uniform, StorageBuffer or used UniformConstant variable without DescriptorSet and Binding.",
            sentence="Any variable in the UniformConstant, StorageBuffer, or Uniform Storage Class must be "
            "decorated with DescriptorSet and Binding",
            link=VUIDS.format("VUID-StandaloneSpirv-UniformConstant-06677"),
            where="Vulkan (VUID-StandaloneSpirv-UniformConstant-06677)",
        ),
        Rule(
            "vulkan.location",
            "a user-defined Input or Output interface variable without a Location.",
            sentence="The Location decorations must be used on user-defined variables",
            link=VUIDS.format("VUID-StandaloneSpirv-Location-04916"),
            where="Vulkan (VUID-StandaloneSpirv-Location-04916)",
        ),
    ),
    check=check,
)
