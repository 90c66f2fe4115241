"""spec layer: facts come from the Khronos grammar JSON."""
from spvls.spec import env
from spvls.spec.did_you_mean import suggest
from spvls.spec.grammar import load


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


def test_every_installed_extended_instruction_set_is_named_and_assembles(tmp_path):
    """Issue 13.3: the sets are found by globbing the grammar directory; the hand-typed import
    strings (the JSON lacks them) cover every installed file, and spirv-as accepts each one."""
    import subprocess
    from pathlib import Path

    from spvls.spec import grammar
    from tests.helpers import tool
    d = grammar.grammar_dir()
    installed = {p.name for p in Path(d).glob("extinst.*.grammar.json")}
    assert installed == set(grammar._EXTINST_FILES.values())
    assert set(grammar.extinst_files(d)) == set(grammar._EXTINST_FILES) == set(load().ext_sets)
    assert len(load().ext_sets["TOSA.001000.1"].by_name) > 50
    src = tmp_path / "sets.spvasm"
    src.write_text("OpCapability Shader\n" + "".join(
        f'%s{i} = OpExtInstImport "{name}"\n' for i, name in enumerate(sorted(grammar._EXTINST_FILES)))
        + "OpMemoryModel Logical GLSL450\n")
    r = subprocess.run([tool("spirv-as"), str(src), "-o", str(tmp_path / "s.spv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_four_extensions_are_the_checked_ones():
    """Issue 13.3: the docs' list of the four extensions and the families that check them agree."""
    from spvls.checks import FAMILIES
    from spvls.spec import extension_docs
    extension_of_family = {f.name: f.extension for f in FAMILIES if f.extension}
    assert extension_of_family == {"reconvergence": "SPV_KHR_maximal_reconvergence",
                                   "coopmat": "SPV_KHR_cooperative_matrix",
                                   "rotate": "SPV_KHR_subgroup_rotate", "ballot": "SPV_KHR_shader_ballot"}
    assert set(extension_docs.EXTENSIONS) == set(extension_of_family.values())
    assert set(extension_docs.EXTENSIONS) <= set(load().extensions)


def test_the_names_checks_type_by_hand_are_the_grammars():
    """Issue 13.3: tables that stay (spec prose names them) name what the grammar has."""
    from spvls.checks.families import ballot, rotate
    g = load()
    builtins = g.kinds["BuiltIn"]
    for name in ballot.MASKS:
        e = builtins.enumerants[name]
        assert e.name == name and f"{name}KHR" in e.aliases and "SubgroupBallotKHR" in e.capabilities
    scope = g.kinds["Scope"]
    assert [scope.enumerants[n].name for n in rotate._SCOPES] == list(rotate._SCOPES)


def test_is_type_follows_the_class_and_names_only_the_unclassed_vendor_types():
    """One predicate says whether an opcode declares a type: its grammar class. Exactly these opcodes,
    which the grammar leaves unclassed, need the OpType name; a new one shows up here."""
    from spvls.model.module import build
    from spvls.spec.grammar import is_type
    from spvls.syntax.document import Document

    g = load()
    insts = {i.name: i for i in g.instructions.values()}
    by_name = {n for n, i in insts.items() if i.is_type and i.cls != "Type-Declaration"}
    assert by_name == {
        "OpTypeNodePayloadArrayAMDX",  # class "Reserved"
        "OpTypeVmeImageINTEL",  # the rest: class "" (@exclude)
        "OpTypeAvcImePayloadINTEL",
        "OpTypeAvcRefPayloadINTEL",
        "OpTypeAvcSicPayloadINTEL",
        "OpTypeAvcMcePayloadINTEL",
        "OpTypeAvcMceResultINTEL",
        "OpTypeAvcImeResultINTEL",
        "OpTypeAvcImeResultSingleReferenceStreamoutINTEL",
        "OpTypeAvcImeResultDualReferenceStreamoutINTEL",
        "OpTypeAvcImeSingleReferenceStreaminINTEL",
        "OpTypeAvcImeDualReferenceStreaminINTEL",
        "OpTypeAvcRefResultINTEL",
        "OpTypeAvcSicResultINTEL",
        "OpTypeTaskSequenceALTERA",
    }
    # Every type declaration is named OpType*, and nothing else named so is one.
    assert {n for n, i in insts.items() if i.is_type} == {n for n in insts if n.startswith("OpType")}
    assert is_type(None, "OpTypeSomethingNew") and not is_type(None, "OpSomething")
    m = build(Document("%t = OpTypeAvcMcePayloadINTEL\n%f = OpTypeFloat 32\n%c = OpConstant %f 1\n"), g, (1, 6))
    assert [i.is_type for i in m.insts] == [True, True, False]


def test_the_context_dependent_literal_opcodes_are_the_grammars():
    """checks/families/operands._CONTEXT_DEPENDENT: the opcodes whose literal takes its form from a type. The
    grammar names them by the LiteralContextDependentNumber kind, except OpSwitch, whose Target
    literals are read with the Selector's type, which only OpSwitch's own description says."""
    from spvls.checks.families import operands

    g = load()
    by_kind = {i.name for i in g.instructions.values() if any(o.kind == "LiteralContextDependentNumber" for o in i.operands)}
    assert by_kind | {"OpSwitch"} == operands._CONTEXT_DEPENDENT
    assert [o.kind for o in g.instruction("OpSwitch").operands][-1] == "PairLiteralIntegerIdRef"


def test_the_layout_sections_name_the_grammars_opcodes():
    """spec/sections.py types the logical layout's sections by hand (SPIR-V 2.4, prose the JSON does
    not encode): each opcode it names is the grammar's, and none is in two sections."""
    from spvls.spec.sections import SECTIONS, before

    g = load()
    named = [op for _, ops in SECTIONS for op in ops]
    assert all(g.instruction(op) is not None and g.instruction(op).name == op for op in named)
    assert len(named) == len(set(named))
    assert before("the memory model") == ["OpCapability", "OpExtension", "OpExtInstImport"]


def test_the_operand_names_completion_reads_are_the_grammars():
    """Completion decides what an id operand takes by its name (the JSON says only "IdRef"): each name
    it lists is an id operand's name in the grammar, and each type it asks for a grammar type."""
    from spvls.features import completion as c

    g = load()
    id_names = {o.name for i in g.by_opcode.values() for o in i.operands if o.kind.startswith("Id") and o.name}
    listed = set(c._LABELS) | set(c._TYPE_OPERANDS) | set(c._TYPE_OF) | set(c._PREFER)
    assert listed <= id_names, listed - id_names
    types = set(c._TYPE_OF.values()) | {t for ts in c._PREFER.values() for t in ts}
    assert all(g.instruction(t) is not None and g.instruction(t).is_type for t in types), types


def test_equal_grammar_operands_are_one_object():
    # The built cache then holds each once (spec/grammar.py _grammar_operands).
    from spvls.spec import grammar

    add, sub = grammar.load().instruction("OpIAdd").operands, grammar.load().instruction("OpISub").operands
    assert add[2] == sub[2] and add[2] is sub[2]
