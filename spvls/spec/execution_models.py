"""Which execution modes and builtins belong to which execution model.

The grammar JSON tells most of it through capabilities: a mode that needs Geometry is for the
Geometry model, one that needs Tessellation for the tessellation stages, Kernel for kernels, and so
on (each ExecutionModel enumerant names the capability it needs). It cannot tell apart the models
that all need Shader (Vertex, Fragment, GLCompute), nor say where a mode with no capability or an
unrelated one (LocalSize, Xfb) goes: for those the tables below carry the SPIR-V spec's words
(section 3.6 Execution Mode, 3.21 BuiltIn; SPIRV-Tools' validate_mode_setting and
validate_builtins agree). tests/unit/test_execution_models.py holds them to the JSON: they speak only where
its capabilities cannot."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .grammar import Grammar

_FRAGMENT = ("Fragment",)
_WORKGROUP = ("GLCompute", "Kernel", "TaskNV", "MeshNV", "TaskEXT", "MeshEXT")
_PRE_RASTER = ("Vertex", "TessellationControl", "TessellationEvaluation", "Geometry", "MeshNV", "MeshEXT")

MODES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "PixelCenterInteger",
            "OriginUpperLeft",
            "OriginLowerLeft",
            "EarlyFragmentTests",
            "DepthReplacing",
            "DepthGreater",
            "DepthLess",
            "DepthUnchanged",
            "EarlyAndLateFragmentTestsAMD",
            "PostDepthCoverage",
            "StencilRefReplacingEXT",
            "StencilRefUnchangedFrontAMD",
            "StencilRefGreaterFrontAMD",
            "StencilRefLessFrontAMD",
            "StencilRefUnchangedBackAMD",
            "StencilRefGreaterBackAMD",
            "StencilRefLessBackAMD",
            "PixelInterlockOrderedEXT",
            "PixelInterlockUnorderedEXT",
            "SampleInterlockOrderedEXT",
            "SampleInterlockUnorderedEXT",
            "ShadingRateInterlockOrderedEXT",
            "ShadingRateInterlockUnorderedEXT",
            "NonCoherentColorAttachmentReadEXT",
            "NonCoherentDepthAttachmentReadEXT",
            "NonCoherentStencilAttachmentReadEXT",
            "RequireFullQuadsKHR",
        ),
        _FRAGMENT,
    ),
    "LocalSize": _WORKGROUP,
    "LocalSizeId": _WORKGROUP,
    "Xfb": ("Vertex", "TessellationEvaluation", "Geometry"),
    "DerivativeGroupQuadsKHR": ("GLCompute", "TaskNV", "MeshNV", "TaskEXT", "MeshEXT"),
    "DerivativeGroupLinearKHR": ("GLCompute", "TaskNV", "MeshNV", "TaskEXT", "MeshEXT"),
    "QuadDerivativesKHR": ("Fragment", "GLCompute"),
}

BUILTINS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "FragCoord",
            "PointCoord",
            "FrontFacing",
            "SampleMask",
            "FragDepth",
            "HelperInvocation",
            "SampleId",
            "SamplePosition",
            "FragStencilRefEXT",
            "FullyCoveredEXT",
            "BaryCoordKHR",
            "BaryCoordNoPerspKHR",
            "FragSizeEXT",
            "FragInvocationCountEXT",
            "ShadingRateKHR",
        ),
        _FRAGMENT,
    ),
    **dict.fromkeys(
        (
            "NumWorkgroups",
            "WorkgroupSize",
            "WorkgroupId",
            "LocalInvocationId",
            "GlobalInvocationId",
            "LocalInvocationIndex",
        ),
        _WORKGROUP,
    ),
    **dict.fromkeys(
        ("VertexId", "InstanceId", "VertexIndex", "InstanceIndex", "BaseVertex", "BaseInstance"), ("Vertex",)
    ),
    **dict.fromkeys(("Position", "PointSize"), _PRE_RASTER),
    **dict.fromkeys(("ClipDistance", "CullDistance"), (*_PRE_RASTER, "Fragment")),
}


def fits(g: Grammar, kind: str, name: str, model: str) -> bool:
    """Whether the ExecutionMode or BuiltIn `name` is for the execution model `model`."""
    table = MODES if kind == "ExecutionMode" else BUILTINS
    if name in table:
        return model in table[name]
    e, m = g.enumerant(kind, name), g.enumerant("ExecutionModel", model)
    if e is None or m is None:
        return True
    # The capabilities are alternatives: one that no model needs (GroupNonUniform for SubgroupSize)
    # enables the name in any model.
    own = [c for c in e.capabilities if c in model_capabilities(g)]
    if len(own) < len(e.capabilities) or not own:
        return True
    return bool(set(own) & g.implied_capabilities(m.capabilities))


@lru_cache(maxsize=4)
def model_capabilities(g: Grammar) -> frozenset[str]:
    """The capabilities some execution model needs (Shader, Geometry, Tessellation, Kernel, …)."""
    return frozenset(c for e in g.kinds["ExecutionModel"].canonical() for c in e.capabilities)


# SPIR-V's two client kinds (2.16.1): a Shader module (Vulkan, OpenGL) never declares Kernel nor a
# capability that implies it, a Kernel module (OpenCL) never Shader nor what implies it.
_SIDES = ("Shader", "Kernel")


def _side_of_env(env: str | None) -> str | None:
    if env and env.startswith(("vulkan", "opengl")):
        return "Shader"
    if env and env.startswith("opencl"):
        return "Kernel"
    return None


def capability_fits(g: Grammar, cap: str, models: Iterable[str], env: str | None) -> bool:
    """Whether declaring `cap` suits a module with entry points of these execution models, in this
    target env (None: any): not Kernel in a Vulkan compute shader, not Shader in an OpenCL kernel."""
    needed = {_side_of_env(env)} - {None}
    for model in models:
        e = g.enumerant("ExecutionModel", model)
        if e is not None:
            needed |= g.implied_capabilities(e.capabilities) & set(_SIDES)
    sides = g.implied_capabilities([cap]) & set(_SIDES)
    return not any(other in sides for side in needed for other in _SIDES if other != side)
