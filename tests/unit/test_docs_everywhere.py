"""Hover and `spvls doc` quote the SPIR-V Registry for every vendor and enumerant kind; completion
sends no documentation and resolve fills it in."""
import json
import re

import pytest

from spvls.checks import analyze
from spvls.cli import main
from spvls.features import completion, docs, hover, lookup, rule_notes
from spvls.syntax.document import Document

PAGE = "https://github.khronos.org/SPIRV-Registry/extensions/"
CORE = "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html"


def hover_at(text: str):
    """Hover at `$0` in a module."""
    line = next(n for n, ln in enumerate(text.split("\n")) if "$0" in ln)
    col = text.split("\n")[line].index("$0")
    m = analyze(Document(text.replace("$0", ""))).module
    return hover.hover(m, line, col)


# (line with the cursor, the document quoted, words of its text, its registry page)
VENDORS = [
    ("OpExecutionMode %main Quad$0DerivativesKHR", "SPV_KHR_quad_control",
     "The derivative group must be equivalent to the quad group.", PAGE + "KHR/SPV_KHR_quad_control.html"),
    ("OpDecorate %v BuiltIn PrimitivePoint$0IndicesEXT", "SPV_EXT_mesh_shader",
     "Output array of vertex index values in the **MeshEXT** Execution Model.", PAGE + "EXT/SPV_EXT_mesh_shader.html"),
    ("OpDecorate %v BuiltIn Viewport$0MaskNV", "SPV_NV_viewport_array2", "Output viewport mask in **Vertex**",
     PAGE + "NV/SPV_NV_viewport_array2.html"),
    ("OpDecorate %v BuiltIn Position$0PerViewNV", "SPV_NVX_multiview_per_view_attributes",
     "Output vertex position for each view", PAGE + "NVX/SPV_NVX_multiview_per_view_attributes.html"),
    ("%r = OpSubgroup$0ShuffleINTEL %u %a %b", "SPV_INTEL_subgroups",
     "Allows data to be arbitrarily transferred between invocations", PAGE + "INTEL/SPV_INTEL_subgroups.html"),
    ("OpCapability ArbitraryPrecision$0IntegersALTERA", "SPV_ALTERA_arbitrary_precision_integers",
     "Allows the use of the **OpTypeInt** to declare integers of any arbitrary width",
     PAGE + "ALTERA/SPV_ALTERA_arbitrary_precision_integers.html"),
    ("OpExecutionMode %main EarlyAndLate$0FragmentTestsAMD", "SPV_AMD_shader_early_and_late_fragment_tests",
     "Fragment tests can be performed both before and after fragment shader execution",
     PAGE + "AMD/SPV_AMD_shader_early_and_late_fragment_tests.html"),
    ("%t = OpType$0TensorARM %f %r", "SPV_ARM_tensors", "Declare a new tensor type.", PAGE + "ARM/SPV_ARM_tensors.html"),
    ("OpCapability TextureSample$0WeightedQCOM", "SPV_QCOM_image_processing", "Add weighted sample operation.",
     PAGE + "QCOM/SPV_QCOM_image_processing.html"),
    ('OpDecorate$0String %x UserSemantic "s"', "SPV_GOOGLE_decorate_string", "Add a string decoration to another",
     PAGE + "GOOGLE/SPV_GOOGLE_decorate_string.html"),
]


@pytest.mark.parametrize("line,doc,words,url", VENDORS, ids=[v[1] for v in VENDORS])
def test_hover_quotes_each_vendor(line, doc, words, url):
    md, _ = hover_at(line)
    assert f"**{doc}**" in md
    assert words in md
    assert f"[{doc}]({url})" in md


@pytest.mark.parametrize("line,doc,words,url", VENDORS, ids=[v[1] for v in VENDORS])
def test_doc_prints_each_vendor(capsys, line, doc, words, url):
    name = line.split("$0")[0].split()[-1] + line.split("$0")[1].split()[0]
    assert main(["doc", name]) == 0
    out = capsys.readouterr().out
    assert out.startswith((name, f"%result = {name}"))
    assert words.replace("**", "") in out and "**" not in out
    assert f"{doc} <{url}>" in out


# (kind, name, words of its text, document quoted)
KINDS = [
    ("Capability", "MeshShadingEXT", "SPV_EXT_mesh_shader"),
    ("BuiltIn", "LaunchIdKHR", "SPV_KHR_ray_tracing"),
    ("ExecutionMode", "SubgroupUniformControlFlowKHR", "SPV_KHR_subgroup_uniform_control_flow"),
    ("Decoration", "NoSignedWrap", "SPV_KHR_no_integer_wrap_decoration"),
    ("StorageClass", "TileImageEXT", "SPV_EXT_shader_tile_image"),
    ("ExecutionModel", "TaskEXT", "SPV_EXT_mesh_shader"),
    ("MemoryModel", "Vulkan", "SPV_KHR_vulkan_memory_model"),
    ("AddressingModel", "PhysicalStorageBuffer64", "SPV_KHR_physical_storage_buffer"),
    ("ImageOperands", "MakeTexelAvailable", "SPV_KHR_vulkan_memory_model"),
    ("MemoryAccess", "MakePointerAvailable", "SPV_KHR_vulkan_memory_model"),
    ("MemorySemantics", "OutputMemory", "SPV_KHR_vulkan_memory_model"),
    ("Scope", "ShaderCallKHR", "SPV_KHR_ray_tracing"),
    ("FunctionControl", "OptNoneEXT", "SPV_EXT_optnone"),
    ("LoopControl", "InitiationIntervalALTERA", "SPV_ALTERA_fpga_loop_controls"),
    ("GroupOperation", "PartitionedReduceNV", "SPV_NV_shader_subgroup_partitioned"),
    ("LinkageType", "LinkOnceODR", "SPV_KHR_linkonce_odr"),
    ("FPEncoding", "Float8E4M3EXT", "SPV_EXT_float8"),
    ("RayFlags", "ForceOpacityMicromap2StateEXT", "SPV_EXT_opacity_micromap"),
    ("CooperativeMatrixLayout", "RowBlockedInterleavedARM", "SPV_ARM_cooperative_matrix_layouts"),
    ("TensorClampMode", "Undefined", "SPV_NV_tensor_addressing"),
]


@pytest.mark.parametrize("kind,name,doc", KINDS, ids=[k[0] for k in KINDS])
def test_doc_json_for_each_enumerant_kind(capsys, kind, name, doc):
    assert main(["doc", "--format", "json", name]) == 0
    records = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == kind]
    assert len(records) == 1
    r = records[0]
    assert r["name"] == name and r["source"] == doc
    assert r["url"].endswith(f"/{doc}.html")
    assert f"\n\n{kind} " in r["text"]
    # The quoted paragraph, indented; "(as VulkanKHR)" when the text uses an alias the grammar gives.
    assert re.search(rf"\n\n{doc}( \(as \w+\))?:\n\n    \w", r["text"])


def test_a_generic_name_takes_the_text_of_its_kind():
    # "Undefined" and "NoneKHR" are values of several kinds; each quotes the document of its own.
    by_kind = {d.kind: d for d in lookup.find("NoneKHR")}
    assert by_kind["CooperativeMatrixOperands"].source == "SPV_KHR_cooperative_matrix"
    assert by_kind["RayFlags"].source in ("SPV_KHR_ray_query", "SPV_KHR_ray_tracing")
    # SPV_NV_raw_access_chains defines a "None" of its own operands: not the one of INTEL's matrix operands.
    by_kind = {d.kind: d for d in lookup.find("None")}
    assert by_kind["MatrixMultiplyAccumulateOperands"].source != "SPV_NV_raw_access_chains"


def test_core_items_link_to_their_anchor_and_capabilities_say_implicitly_declares():
    md, _ = hover_at("Op$0LoopMerge %a %b None")
    assert f"[SPIR-V specification: OpLoopMerge]({CORE}#OpLoopMerge)" in md
    md, _ = hover_at("OpCapability Sha$0der")
    assert "Implicitly declares: `Matrix`" in md and "Capabilities:" not in md
    assert f"({CORE}#_capability)" in md
    md, _ = hover_at("OpDecorate %v BuiltIn Frag$0Coord")  # other kinds: capabilities are required
    assert "Capabilities: `Shader`" in md and f"({CORE}#_builtin)" in md


def test_an_alias_hovers_as_the_grammar_names_it():
    md, _ = hover_at('OpEntryPoint RayGeneration$0NV %main "main"')
    assert md.startswith("```spvasm\nRayGenerationKHR\n```") and "Also spelt: RayGenerationNV" in md
    assert "**SPV_KHR_ray_tracing**" in md and "Ray generation shading stage." in md


DEBUG = """OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%dbg = OpExtInstImport "NonSemantic.Shader.$0DebugInfo.100"
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%s = OpString "a.comp"
%src = OpExtInst %void %dbg DebugSource %s
%ln = OpExtInst %void %dbg Debug$1Line %src %s %s %s %s
"""


def test_hover_on_extension_sets_and_extended_instructions():
    md, _ = hover_at(DEBUG.replace("$1", ""))
    assert md.startswith("**NonSemantic.Shader.DebugInfo.100** — extended instruction set, 44 instructions")
    assert "This is the specification of the **NonSemantic.Shader.DebugInfo** extended instruction set." in md
    md, _ = hover_at(DEBUG.replace("$0", "").replace("$1", "$0"))
    assert "Extended instruction 103 of `NonSemantic.Shader.DebugInfo.100`" in md
    assert "Specify source-level line and column information." in md
    assert "(https://github.khronos.org/SPIRV-Registry/nonsemantic/NonSemantic.Shader.DebugInfo.html)" in md
    md, _ = hover_at('%glsl = OpExtInstImport "GLSL$0.std.450"')
    assert "(https://registry.khronos.org/SPIR-V/specs/unified1/GLSL.std.450.html)" in md


def test_hover_on_an_extension_name():
    md, _ = hover_at('OpExtension "SPV_EXT_mesh$0_shader"')
    assert md.startswith("**SPV_EXT_mesh_shader**\n\n> This extension adds new functionality to support the Vulkan")
    assert "This extension requires SPIR-V 1.4." in md
    md, _ = hover_at('OpExtension "SPV_KHR_subgroup$0_rotate"')  # one of the four: its full text
    assert "rotating values across invocations" in md


def test_hover_on_a_diagnostic_adds_its_rule():
    text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%i8 = OpTypeInt 8 1\n"
    a = analyze(Document(text))
    (d,) = a.diagnostics
    assert (d.line, d.start, d.code) == (2, 16, "capability.int-type")  # on the width
    md, span = rule_notes.with_rules(hover.hover(a.module, 2, 16), a.diagnostics, 2, 16)
    assert span == (16, 17)
    assert md.startswith("**Width**: LiteralInteger operand of `OpTypeInt`\n\n---\n\n**capability.int-type** — ")
    assert "> Int8: Uses OpTypeInt to declare 8-bit integer types." in md
    assert "More: `spvls doc capability.int-type`" in md
    md, span = rule_notes.with_rules(hover.hover(a.module, 2, 8), a.diagnostics, 2, 8)  # the opcode: no rule
    assert span == (6, 15) and "capability.int-type" not in md


def test_doc_for_a_diagnostic_code(capsys):
    assert main(["doc", "rotate.cluster-size"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rotate.cluster-size — a ClusterSize that is not an unsigned integer constant, a power of 2, at least 1.")
    assert "Spec (SPV_KHR_subgroup_rotate):" in out
    assert "Behavior is undefined unless ClusterSize is at least 1 and a power of 2." in out
    assert "Minimal failing module (target env vulkan1.3; reported on line 17" in out
    assert "%r6 = OpGroupNonUniformRotateKHR %float %subgroup %float_1 %uint_1 %uint_3" in out


@pytest.mark.parametrize("code", sorted(docs.examples()))
def test_each_minimal_example_still_fails_with_its_code(code):
    ex = docs.examples()[code]
    got = {(d.line + 1, d.code) for d in analyze(Document(ex["module"]), ex["env"]).diagnostics}
    assert (ex["line"], code) in got, "stale: run python tools/examples_gen.py tests/data/rules"


def test_every_rule_has_a_minimal_example():
    missing = [c for c, rule in docs.codes().items() if rule.sentence and c not in docs.examples()]
    assert not missing, f"run python tools/examples_gen.py tests/data/rules ({missing})"


def test_unknown_name_exits_1_with_a_suggestion(capsys):
    assert main(["doc", "OpLoopMerg"]) == 1
    assert "unknown name 'OpLoopMerg'; did you mean 'OpLoopMerge'" in capsys.readouterr().err


def test_doc_markdown_and_a_registry_only_name(capsys):
    assert main(["doc", "--format", "markdown", "OpTerminateInvocation"]) == 0
    out = capsys.readouterr().out
    assert "**SPV_KHR_terminate_invocation**:\n\n> Fragment-shader terminate." in out
    assert main(["doc", "ClusterIdHUAWEI"]) == 0  # the registry defines it; the installed grammar does not
    assert "not in the installed SPIR-V grammar; SPV_HUAWEI_cluster_culling_shader defines it" in \
        capsys.readouterr().out


def test_completion_sends_no_documentation_and_resolve_fills_it():
    m = analyze(Document("OpCapability \n")).module
    items = completion.complete(m, 0, 13)
    assert len(items) > 250 and not any(hasattr(i, "documentation") for i in items)
    assert {json.dumps(i.data) for i in items} == {'{"kind": "Capability"}'}
    by_label = {i.label: i for i in items}
    md = completion.resolve("Shader", by_label["Shader"].data, m)
    assert "Implicitly declares: `Matrix`" in md
    md = completion.resolve("MeshShadingEXT", by_label["MeshShadingEXT"].data, m)
    assert "**SPV_EXT_mesh_shader**" in md
    # A client that drops the data: the label alone names the item.
    assert completion.resolve("Shader", None) == completion.resolve("Shader", {"kind": "Capability"})
    assert completion.resolve("NoSuchThing", {"kind": "Capability"}) is None


@pytest.mark.parametrize("ext,words", [
    ("SPV_VALVE_mixed_float_dot_product", "dot product operations on low precision inputs"),
    ("SPV_SAMSUNG_intrinsic", "associates a SPIR-V id with a vendor-defined intrinsic"),
    ("SPV_HUAWEI_subpass_shading", "subpass"),
])
def test_doc_for_extensions_the_grammar_does_not_name(capsys, ext, words):
    assert main(["doc", ext]) == 0
    out = capsys.readouterr().out
    assert out.startswith(ext) and words in out and f"<{PAGE}{ext.split('_')[1]}/{ext}.html>" in out


def test_doc_for_a_term_of_the_four_texts(capsys):
    assert main(["doc", "Tangle"]) == 0
    assert "The set of invocations that execute the same dynamic instance of an instruction." \
        in capsys.readouterr().out


def test_completion_details_name_the_extension():
    m = analyze(Document("OpCapability \n")).module
    by_label = {i.label: i for i in completion.complete(m, 0, 13)}
    assert by_label["MeshShadingEXT"].detail == "Capability (SPV_EXT_mesh_shader)"
    assert by_label["CooperativeMatrixKHR"].detail == "Capability (SPV_KHR_cooperative_matrix)"
    assert by_label["Shader"].detail == "Capability"


def test_plain_text_drops_markup_only():
    md = "> An **OpTypeInt** is passed in as *A* and `ln(A)` is returned in *Result*; a*b*c, 2 * 3 * 4.\n\n[X](http://x)"
    assert lookup.plain(md) == "An OpTypeInt is passed in as A and ln(A) is returned in Result; a*b*c, 2 * 3 * 4.\n\n" \
        "X <http://x>\n"


def test_an_item_without_a_defining_paragraph_still_names_its_document():
    md, _ = hover_at("OpExecutionMode %main StencilRef$0ReplacingEXT")
    assert "> " not in md  # nothing quoted
    assert f"[SPV_EXT_shader_stencil_export]({PAGE}EXT/SPV_EXT_shader_stencil_export.html)" in md
