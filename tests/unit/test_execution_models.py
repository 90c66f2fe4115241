"""Execution modes and builtins by execution model: the tables agree with the grammar JSON, and
completion ranks what fits the entry point first and modes already declared on it last."""
import pytest

from spvls.checks import analyze
from spvls.features.completion import complete
from spvls.spec import execution_models
from spvls.spec.grammar import load
from spvls.syntax.document import Document


@pytest.mark.parametrize("kind,table", [("ExecutionMode", execution_models.MODES), ("BuiltIn", execution_models.BUILTINS)])
def test_tables_speak_only_where_the_json_cannot(kind, table):
    g = load()
    shared = {"Shader"}  # the capability Vertex, Fragment and GLCompute all need
    for name, where in table.items():
        e = g.enumerant(kind, name)
        assert e is not None and e.name == name, name
        assert all(g.enumerant("ExecutionModel", m) for m in where), name
        # Only names the JSON cannot place: no capability, Shader, or capabilities no model needs.
        assert not (set(e.capabilities) & execution_models.model_capabilities(g)) - shared, name


def test_the_json_places_the_rest():
    g = load()
    assert execution_models.fits(g, "ExecutionMode", "Invocations", "Geometry")
    assert not execution_models.fits(g, "ExecutionMode", "Invocations", "Fragment")
    assert execution_models.fits(g, "ExecutionMode", "SpacingEqual", "TessellationEvaluation")
    assert not execution_models.fits(g, "ExecutionMode", "SpacingEqual", "GLCompute")
    assert execution_models.fits(g, "ExecutionMode", "OutputVertices", "MeshEXT")
    assert execution_models.fits(g, "ExecutionMode", "MaximallyReconvergesKHR", "Fragment")
    assert execution_models.fits(g, "BuiltIn", "SubgroupSize", "GLCompute")  # GroupNonUniform enables it anywhere
    assert not execution_models.fits(g, "BuiltIn", "TessCoord", "Vertex")


MODULE = """OpCapability Shader
OpExtension "SPV_KHR_maximal_reconvergence"
OpMemoryModel Logical GLSL450
OpEntryPoint {model} %main "main" %v
{modes}
{line}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%v4 = OpTypeVector %f32 4
%ptr = OpTypePointer Input %v4
%v = OpVariable %ptr Input
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
"""


def ranked(model: str, modes: str, line: str) -> list:
    text = MODULE.format(model=model, modes=modes, line=line)
    n = text.split("\n").index(line)
    m = analyze(Document(text)).module
    return sorted(complete(m, n, len(line)), key=lambda i: i.sort_text)


def test_modes_for_a_glcompute_entry_point():
    items = ranked("GLCompute", "OpExecutionMode %main MaximallyReconvergesKHR", "OpExecutionMode %main ")
    labels = [i.label for i in items]
    assert labels[-1] == "MaximallyReconvergesKHR"  # already declared: last
    assert "already declared on %main" in items[-1].detail
    assert labels.index("LocalSize") < labels.index("OriginUpperLeft")
    assert labels.index("LocalSize") < labels.index("Invocations")
    assert next(i for i in items if i.label == "OriginUpperLeft").detail.endswith("not for GLCompute")


def test_modes_for_a_fragment_entry_point():
    labels = [i.label for i in ranked("Fragment", "", "OpExecutionMode %main ")]
    assert labels[0] == "MaximallyReconvergesKHR"  # fits, not declared, the extension's own
    assert labels.index("OriginUpperLeft") < labels.index("LocalSize")
    assert labels.index("DepthReplacing") < labels.index("SpacingEqual")


def test_builtins_follow_the_entry_point_that_lists_the_variable():
    frag = [i.label for i in ranked("Fragment", "", "OpDecorate %v BuiltIn ")]
    assert frag.index("FragCoord") < frag.index("GlobalInvocationId")
    comp = [i.label for i in ranked("GLCompute", "", "OpDecorate %v BuiltIn ")]
    assert comp.index("GlobalInvocationId") < comp.index("FragCoord")
    assert comp.index("LocalInvocationId") < comp.index("Position")


def test_capabilities_fit_the_models_and_env():
    g = load()
    fits = execution_models.capability_fits
    assert not fits(g, "Kernel", ["GLCompute"], None)  # a compute shader
    assert not fits(g, "Vector16", ["Fragment"], None)  # implies Kernel
    assert not fits(g, "Kernel", [], "vulkan1.2") and not fits(g, "Float16Buffer", [], "opengl4.5")
    assert not fits(g, "Shader", ["Kernel"], None) and not fits(g, "Geometry", [], "opencl2.0")
    assert fits(g, "ImageQuery", ["GLCompute"], "vulkan1.3") and fits(g, "Addresses", ["Kernel"], "opencl1.2")
    assert fits(g, "Kernel", [], None) and fits(g, "Shader", [], "spv1.6")
