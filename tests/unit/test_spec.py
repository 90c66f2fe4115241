"""spec layer: facts come from the Khronos grammar JSON."""
from spvls.spec import env
from spvls.spec.grammar import load
from spvls.spec.names import suggest


def test_instructions_by_name_alias_and_opcode():
    g = load()
    assert g.instruction("OpGroupNonUniformRotateKHR").opcode == 4431
    assert g.instruction("OpSDotKHR") is g.instruction("OpSDot")  # alias
    assert g.by_opcode[4459].name == "OpCooperativeMatrixMulAddKHR"
    assert g.instruction("OpTypeCooperativeMatrixKHR").capabilities == ("CooperativeMatrixKHR",)


def test_enumerants_with_aliases_and_requirements():
    g = load()
    eq = g.enumerant("BuiltIn", "SubgroupEqMaskKHR")
    assert eq.name == "SubgroupEqMask" and eq.value == 4416
    assert set(eq.capabilities) == {"SubgroupBallotKHR", "GroupNonUniformBallot"}
    mode = g.enumerant("ExecutionMode", "MaximallyReconvergesKHR")
    assert mode.extensions == ("SPV_KHR_maximal_reconvergence",) and mode.version is None
    assert g.kinds["CooperativeMatrixUse"].by_value[2].name == "MatrixAccumulatorKHR"


def test_implied_capabilities_follow_the_grammar():
    g = load()
    caps = g.implied_capabilities(["GroupNonUniformRotateKHR"])
    assert {"GroupNonUniformRotateKHR", "GroupNonUniform"} <= caps
    assert "Matrix" in g.implied_capabilities(["Shader"])


def test_extended_instruction_sets_loaded():
    g = load()
    assert g.ext_sets["GLSL.std.450"].by_name["FMix"].opcode == 46
    assert "OpenCL.std" in g.ext_sets


def test_proposal_spellings_suggest_final_names():
    g = load()
    assert suggest("OpGroupNonUniformShuffleRotateKHR", g.instructions)[0] == "OpGroupNonUniformRotateKHR"
    caps = g.kinds["Capability"].enumerants
    assert suggest("GroupNonUniformShuffleRotateKHR", caps)[0] == "GroupNonUniformRotateKHR"


def test_target_envs():
    assert env.version_of("vulkan1.3") == (1, 6)
    assert env.version_of("spv1.3") == (1, 3)
    assert env.version_of("universal1.5") == (1, 5)
