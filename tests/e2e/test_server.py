"""The real server over stdio (pytest-lsp): every feature, with cases as data.

A case is a module with a cursor marker `$0` and what the server must answer there.
"""
import asyncio
import itertools
from pathlib import Path

import pytest
from lsprotocol import types as T

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_n = itertools.count()

MODULE = """OpCapability Shader
OpCapability Float16
OpCapability VulkanMemoryModel
OpCapability CooperativeMatrixKHR
OpExtension "SPV_KHR_cooperative_matrix"
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 32 1 1
OpName %main "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f16 = OpTypeFloat 16
%u32 = OpTypeInt 32 0
%subgroup = OpConstant %u32 3
%u32_0 = OpConstant %u32 0
%u32_8 = OpConstant %u32 8
%u32_16 = OpConstant %u32 16
%matA = OpTypeCooperativeMatrixKHR %f16 %subgroup %u32_16 %u32_8 %u32_0
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"""


def open_doc(client, text: str, name: str | None = None) -> str:
    uri = f"file:///tmp/spvls-test-{next(_n)}-{name or 'doc'}.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))
    return uri


def at_marker(text: str) -> tuple[str, T.Position]:
    before, after = text.split("$0", 1)
    lines = before.split("\n")
    return before + after, T.Position(len(lines) - 1, len(lines[-1]))


async def diagnostics_for(client, uri: str, version: int):
    """The diagnostics published for this version of the document (older ones are skipped)."""
    while True:
        # Bounded, so a server that stops publishing fails the test instead of hanging CI.
        params = await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
        if params.uri == uri:
            assert params.version is not None and params.version <= version  # never from the future
            if params.version == version:
                return params.diagnostics


# -- diagnostics ---------------------------------------------------------------------------
async def test_diagnostics_on_open_change_and_pull(client):
    text = (EXAMPLES / "mistakes.spvasm").read_text()
    uri = open_doc(client, text, "mistakes")
    diags = await diagnostics_for(client, uri, 1)
    codes = [d.code for d in diags]
    assert "operand.unknown-enumerant" in codes and "reconvergence.same-labels" in codes
    d = next(d for d in diags if d.code == "rotate.cluster-size")
    assert (d.range.start.line, d.range.start.character) == (22, 76)  # the ClusterSize operand itself
    assert d.code_description.href.endswith("SPV_KHR_subgroup_rotate.html")
    same = next(d for d in diags if d.code == "reconvergence.same-labels")
    assert any("MaximallyReconvergesKHR" in r.message for r in same.related_information)

    # Fix the capability name with an incremental edit: its error goes, the version is reported.
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[T.TextDocumentContentChangePartial(
            range=T.Range(T.Position(4, 28), T.Position(4, 59)), text="GroupNonUniformRotateKHR")]))
    diags = await diagnostics_for(client, uri, 2)
    assert "operand.unknown-enumerant" not in [d.code for d in diags]

    report = await client.text_document_diagnostic_async(
        T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri)))
    assert sorted(d.code for d in report.items) == sorted(d.code for d in diags)


async def test_close_clears_diagnostics(client):
    uri = open_doc(client, "OpBogus\n")
    await diagnostics_for(client, uri, 1)
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
    await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 60)
    assert list(client.diagnostics[uri]) == []


# -- completion ----------------------------------------------------------------------------
def in_header(line: str) -> str:
    return MODULE.replace("OpName %main", line + "\nOpName %main")


def in_body(line: str) -> str:
    return MODULE.replace("OpReturn", line + "\nOpReturn")


COMPLETION_CASES = [
    # (text with $0, labels that must be offered, label that must not, label expected first or None)
    ("$0", {"OpCapability", "OpCooperativeMatrixMulAddKHR"}, None, None),
    ("%x = $0", {"OpCooperativeMatrixLoadKHR", "OpTypeInt"}, "OpCapability", None),
    ("OpCapability $0", {"CooperativeMatrixKHR", "Shader", "GroupNonUniformRotateKHR"}, "GLCompute",
     "CooperativeMatrixKHR"),  # the four extensions' capabilities first
    ("OpExecutionMode %main $0", {"LocalSize", "MaximallyReconvergesKHR"}, "Shader", None),
    ("OpDecorate %v BuiltIn $0", {"SubgroupEqMask", "LocalInvocationId"}, None, None),
    ("%p = OpTypePointer $0", {"Workgroup", "Function", "StorageBuffer"}, None, None),
    ("OpLoopMerge %a %b Unroll|$0", {"DontUnroll"}, None, None),
    ('OpExtension $0', {'"SPV_KHR_cooperative_matrix"', '"SPV_KHR_subgroup_rotate"'}, None, None),
    # In a module, what its capabilities enable comes first, the four extensions first among those.
    (in_body("%x = $0"), {"OpIAdd", "OpGroupNonUniformRotateKHR"}, None, "OpCooperativeMatrixLengthKHR"),
    # MaximallyReconvergesKHR needs its extension too, as the checker says (issue 13.2).
    (in_header("OpExecutionMode %main $0").replace('"SPV_KHR_cooperative_matrix"', '"SPV_KHR_cooperative_matrix"\n'
                                                   'OpExtension "SPV_KHR_maximal_reconvergence"'),
     {"LocalSize", "OutputVertices"}, None, "MaximallyReconvergesKHR"),
    (in_header("OpDecorate %u32 BuiltIn $0"), {"SubgroupEqMask"}, None, "GlobalInvocationId"),  # GLCompute's first
]


@pytest.mark.parametrize("text,want,unwanted,first", COMPLETION_CASES)
async def test_completion(client, text, want, unwanted, first):
    body, pos = at_marker(text)
    uri = open_doc(client, body)
    result = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), pos))
    labels = {i.label for i in result.items}
    assert want <= labels
    if unwanted:
        assert unwanted not in labels
    # Labels and one-line details only: documentation comes with completionItem/resolve.
    assert all(i.detail and "\n" not in i.detail and i.documentation is None for i in result.items)
    if first:
        assert min(result.items, key=lambda i: i.sort_text).label == first


async def test_completion_says_what_an_item_needs(client):
    body, pos = at_marker(in_body("%r = $0"))
    uri = open_doc(client, body)
    result = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), pos))
    by_label = {i.label: i for i in result.items}
    assert by_label["OpGroupNonUniformRotateKHR"].detail.endswith("needs OpCapability GroupNonUniformRotateKHR")
    assert by_label["OpCooperativeMatrixLoadKHR"].sort_text < by_label["OpIAdd"].sort_text \
        < by_label["OpGroupNonUniformRotateKHR"].sort_text
    assert "needs" not in by_label["OpIAdd"].detail


async def test_completion_of_ids_by_slot(client):
    body, pos = at_marker(MODULE.replace("OpReturn", "%len = OpCooperativeMatrixLengthKHR %u32 $0\nOpReturn"))
    uri = open_doc(client, body)
    result = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), pos))
    items = sorted(result.items, key=lambda i: i.sort_text)
    assert items[0].label == "%matA"  # a cooperative-matrix type first where one is required
    assert "coopmat<f16, Subgroup, 16×8, MatrixAKHR>" in items[0].detail
    assert "%entry" not in {i.label for i in items}  # not a type

    body, pos = at_marker(MODULE.replace("OpReturn", "OpBranch $0\n%next = OpLabel\nOpReturn"))
    uri = open_doc(client, body)
    result = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), pos))
    assert {i.label for i in result.items} == {"%entry", "%next"}


async def test_extension_symbols_first_and_attributed(client):
    body, pos = at_marker("OpCapability Coop$0")
    uri = open_doc(client, body)
    result = await client.text_document_completion_async(T.CompletionParams(T.TextDocumentIdentifier(uri), pos))
    item = next(i for i in result.items if i.label == "CooperativeMatrixKHR")
    assert "SPV_KHR_cooperative_matrix" in item.detail
    assert item.sort_text < next(i for i in result.items if i.label == "CooperativeMatrixNV").sort_text


# -- hover ---------------------------------------------------------------------------------
HOVER_CASES = [
    ("%d = OpCooperativeMatri$0xMulAddKHR %a %b %c %e", ["Linear-algebraic matrix multiply of A by B",
                                                        "SPV_KHR_cooperative_matrix", "CooperativeMatrixKHR"]),
    ("OpExecutionMode %main Maximally$0ReconvergesKHR", ["SPV_KHR_maximal_reconvergence",
                                                        "Maximal Reconvergence",
                                                        "multiple unique predecessors"]),
    ("OpDecorate %v BuiltIn SubgroupEq$0MaskKHR", ["4 component 32 bit integer vector bitmask",
                                                  "SPV_KHR_shader_ballot", "GroupNonUniformBallot"]),
    ("OpCapability GroupNonUniformRot$0ateKHR", ["SPV_KHR_subgroup_rotate", "GroupNonUniform"]),
    ('OpExtension "SPV_KHR_subgroup$0_rotate"', ["rotating values across invocations"]),
    ("%t = OpTypeInt$0 32 0", ["Width", "Signedness", "SPIR-V version: 1.0"]),
    ("OpLoopMerge %a %b Unroll|Dont$0Unroll", ["LoopControl"]),
    ("; a Tan$0gle reconverges", ["The set of invocations that execute the same dynamic instance"]),
    # A Scope or Memory Semantics <id>: what it means there.
    (in_header("%sem = OpConstant %u32 264").replace("OpReturn", "OpControlBarrier %subgroup %u32_16 %s$0em\nOpReturn"),
     ["As Semantics: `AcquireRelease|WorkgroupMemory` (MemorySemantics 0x108)", "References: 1"]),
    # On an id: its definition, type, entry point and modes, decorations, how often it is referenced.
    (MODULE.replace("OpEntryPoint GLCompute %main", "OpEntryPoint GLCompute %ma$0in"),
     ["%main = OpFunction %void None %fn", "Type: `fn() -> void`", 'Entry point: GLCompute "main"',
      "modes: LocalSize 32 1 1", "References: 3"]),
    (in_header("OpDecorate %u32_16 RelaxedPrecision").replace("%subgroup %u32_16", "%subgroup %u32_1$06"),
     ["Decorations: `RelaxedPrecision`", "Type: `u32`", "References: 2"]),
]


@pytest.mark.parametrize("text,want", HOVER_CASES)
async def test_hover(client, text, want):
    body, pos = at_marker(text)
    uri = open_doc(client, body)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), pos))
    for piece in want:
        assert piece in h.contents.value


async def test_hover_on_id_shows_definition_name_and_type(client):
    body, pos = at_marker(MODULE.replace("OpName %main", "OpName %ma$0in"))
    uri = open_doc(client, body)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), pos))
    assert "%main = OpFunction %void None %fn" in h.contents.value
    assert "OpName: `main`" in h.contents.value and "fn() -> void" in h.contents.value
    body, pos = at_marker(MODULE.replace("%matA = ", "%ma$0tA = "))
    uri = open_doc(client, body)
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), pos))
    assert "coopmat<f16, Subgroup, 16×8, MatrixAKHR>" in h.contents.value


# -- navigation ----------------------------------------------------------------------------
async def test_definition_references_highlight(client):
    body, pos = at_marker(MODULE.replace("%f16 %subgroup", "%f16 %sub$0group"))
    uri = open_doc(client, body)
    doc = T.TextDocumentIdentifier(uri)
    loc = await client.text_document_definition_async(T.DefinitionParams(doc, pos))
    assert loc.range.start.line == 13 and loc.range.start.character == 0
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=pos, context=T.ReferenceContext(include_declaration=True)))
    assert sorted(r.range.start.line for r in refs) == [13, 17]
    hl = await client.text_document_document_highlight_async(T.DocumentHighlightParams(doc, pos))
    assert {h.kind for h in hl} == {T.DocumentHighlightKind.Write, T.DocumentHighlightKind.Read}


async def test_rename_and_refusals(client):
    body, pos = at_marker(MODULE.replace("%u32_8 = ", "%u32$0_8 = "))
    uri = open_doc(client, body)
    doc = T.TextDocumentIdentifier(uri)
    prep = await client.text_document_prepare_rename_async(T.PrepareRenameParams(doc, pos))
    assert prep.start.line == 15
    edit = await client.text_document_rename_async(T.RenameParams(doc, pos, "%eight"))
    assert sorted(e.range.start.line for e in edit.changes[uri]) == [15, 17]
    assert {e.new_text for e in edit.changes[uri]} == {"%eight"}
    for bad in ("%u32", "%no-dash"):
        with pytest.raises(Exception, match="already defined|not a valid id"):
            await client.text_document_rename_async(T.RenameParams(doc, pos, bad))


# -- symbols, tokens, folding, signature, inlay hints, quick fixes -----------------------------
async def test_document_and_workspace_symbols(client):
    uri = open_doc(client, MODULE, "symbols")
    syms = await client.text_document_document_symbol_async(
        T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    kinds = {(s.name, s.kind) for s in syms}
    assert ("main", T.SymbolKind.Event) in kinds and ("main", T.SymbolKind.Function) in kinds
    assert ("%matA", T.SymbolKind.Class) in kinds
    fn = next(s for s in syms if s.kind == T.SymbolKind.Function)
    assert [c.name for c in fn.children] == ["%entry"]
    ws = await client.workspace_symbol_async(T.WorkspaceSymbolParams(query="mata"))
    assert any(s.name == "%matA" for s in ws)


async def test_semantic_tokens_mark_extension_symbols(client):
    uri = open_doc(client, MODULE)
    full = await client.text_document_semantic_tokens_full_async(
        T.SemanticTokensParams(T.TextDocumentIdentifier(uri)))
    data = full.data
    assert len(data) % 5 == 0 and data
    # Decode absolute positions and find the OpTypeCooperativeMatrixKHR keyword on line 17.
    line = col = 0
    found = {}
    for i in range(0, len(data), 5):
        dl, dc, length, typ, mods = data[i:i + 5]
        line += dl
        col = col + dc if dl == 0 else dc
        found[(line, col)] = (length, typ, mods)
    length, typ, mods = found[(17, 8)]
    assert length == len("OpTypeCooperativeMatrixKHR") and mods & 2  # the "extension" modifier
    assert found[(12, 7)][2] & 2 == 0  # OpTypeInt: core
    rng = await client.text_document_semantic_tokens_range_async(T.SemanticTokensRangeParams(
        T.TextDocumentIdentifier(uri), T.Range(T.Position(17, 0), T.Position(17, 80))))
    assert 0 < len(rng.data) < len(data)


async def test_semantic_tokens_delta_after_an_edit(client):
    uri = open_doc(client, MODULE)
    doc = T.TextDocumentIdentifier(uri)
    first = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    assert first.result_id
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [T.TextDocumentContentChangePartial(T.Range(T.Position(20, 0), T.Position(20, 0)), "%z = OpIAdd %u32 %u32_0 %u32_8\n")]))
    await diagnostics_for(client, uri, 2)
    delta = await client.text_document_semantic_tokens_full_delta_async(
        T.SemanticTokensDeltaParams(doc, previous_result_id=first.result_id))
    assert isinstance(delta, T.SemanticTokensDelta) and len(delta.edits) == 1
    (edit,) = delta.edits
    data = list(first.data)
    data[edit.start:edit.start + edit.delete_count] = edit.data or []
    full = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    assert data == list(full.data) and len(edit.data) < len(full.data) // 4  # only the edited part
    stale = await client.text_document_semantic_tokens_full_delta_async(
        T.SemanticTokensDeltaParams(doc, previous_result_id="no such id"))
    assert isinstance(stale, T.SemanticTokens) and list(stale.data) == list(full.data)


async def test_folding_signature_inlay(client):
    uri = open_doc(client, MODULE)
    doc = T.TextDocumentIdentifier(uri)
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(doc))
    assert any(f.start_line == 18 and f.end_line == 21 for f in folds)  # the function
    body, pos = at_marker(MODULE.replace("OpReturn", "%r = OpCooperativeMatrixMulAddKHR %matA %a $0\nOpReturn"))
    uri2 = open_doc(client, body)
    sig = await client.text_document_signature_help_async(
        T.SignatureHelpParams(T.TextDocumentIdentifier(uri2), pos))
    s = sig.signatures[0]
    assert s.parameters[sig.active_parameter].label == "<B>"
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(doc, T.Range(T.Position(0, 0), T.Position(30, 0))))
    assert any(h.label == ": u32" and h.position.line == 13 for h in hints)


async def test_inlay_hints_spell_scope_and_semantics_ids(client):
    text = in_header("%sem = OpConstant %u32 264").replace("OpReturn", "OpControlBarrier %subgroup %u32_16 %sem\nOpReturn")
    uri = open_doc(client, text)
    line = text.split("\n").index("OpControlBarrier %subgroup %u32_16 %sem")
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(T.TextDocumentIdentifier(uri), T.Range(T.Position(line, 0), T.Position(line + 1, 0))))
    # %subgroup already says Subgroup; %u32_16 is Scope 16 (none such: no hint); %sem is 0x108.
    assert [(h.label, h.position.character) for h in hints] == [("=AcquireRelease|WorkgroupMemory", 39)]


async def test_inlay_hints_setting_off(client):
    uri = open_doc(client, MODULE)
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams({"spvls": {"inlayHints": False}}))
    hints = await client.text_document_inlay_hint_async(
        T.InlayHintParams(T.TextDocumentIdentifier(uri), T.Range(T.Position(0, 0), T.Position(30, 0))))
    assert list(hints) == []


async def test_quick_fix_adds_missing_extension(client):
    text = MODULE.replace('OpExtension "SPV_KHR_cooperative_matrix"\n', "")
    uri = open_doc(client, text)
    diags = await diagnostics_for(client, uri, 1)
    d = next(d for d in diags if d.code == "capability.extension")
    actions = await client.text_document_code_action_async(T.CodeActionParams(
        T.TextDocumentIdentifier(uri), d.range, T.CodeActionContext([d])))
    edit = actions[0].edit.changes[uri][0]
    assert edit.new_text == 'OpExtension "SPV_KHR_cooperative_matrix"\n' and edit.range.start.line == 4


# -- robustness ----------------------------------------------------------------------------
async def test_out_of_range_and_unknown_documents(client):
    uri = open_doc(client, MODULE)
    doc = T.TextDocumentIdentifier(uri)
    far = T.Position(10_000, 10_000)
    assert await client.text_document_hover_async(T.HoverParams(doc, far)) is None
    await client.text_document_completion_async(T.CompletionParams(doc, far))
    unknown = T.TextDocumentIdentifier("file:///nowhere.spvasm")
    assert await client.text_document_hover_async(T.HoverParams(unknown, T.Position(0, 0))) is None
    assert await client.text_document_definition_async(T.DefinitionParams(unknown, T.Position(0, 0))) is None
    # The server still serves.
    h = await client.text_document_hover_async(T.HoverParams(doc, T.Position(0, 2)))
    assert "OpCapability" in h.contents.value


async def test_formatting_whole_document_and_range(client):
    uri = open_doc(client, "OpCapability Shader\n%void = OpTypeVoid\n  %fn = OpTypeFunction %void ; f\n")
    doc = T.TextDocumentIdentifier(uri)
    edits = await client.text_document_formatting_async(
        T.DocumentFormattingParams(doc, T.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert [(e.range.start.line, e.new_text) for e in edits] == [
        (0, "               OpCapability Shader"), (1, "       %void = OpTypeVoid"),
        (2, "         %fn = OpTypeFunction %void ; f")]
    assert all(e.range.start.character == 0 for e in edits)
    edits = await client.text_document_range_formatting_async(T.DocumentRangeFormattingParams(
        doc, T.Range(T.Position(1, 0), T.Position(1, 3)), T.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert [e.range.start.line for e in edits] == [1]


# Two more functions before MODULE's %main, which calls %mid, which calls %leaf twice.
CALLEES = """%leaf = OpFunction %void None %fn
%l0 = OpLabel
OpReturn
OpFunctionEnd
%mid = OpFunction %void None %fn
%l1 = OpLabel
%c1 = OpFunctionCall %void %leaf
%c2 = OpFunctionCall %void %leaf
OpReturn
OpFunctionEnd
"""
CALLS = in_body("%c3 = OpFunctionCall %void %m$0id\n%c4 = OpFunctionCall %void %leaf").replace(
    "OpName %main", 'OpName %leaf "leaf"\nOpName %main').replace("%main = OpFunction", CALLEES + "%main = OpFunction")


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n")) if needle in line)


async def test_call_hierarchy(client):
    body, pos = at_marker(CALLS)
    uri = open_doc(client, body)
    items = await client.text_document_prepare_call_hierarchy_async(
        T.CallHierarchyPrepareParams(T.TextDocumentIdentifier(uri), pos))
    mid, mid_end = line_of(body, "%mid = OpFunction"), line_of(body, "%c2 =") + 2
    assert [(i.name, i.selection_range.start.line, i.range.end.line) for i in items] == [("%mid", mid, mid_end)]
    incoming = await client.call_hierarchy_incoming_calls_async(T.CallHierarchyIncomingCallsParams(items[0]))
    assert [(c.from_.name, [r.start.line for r in c.from_ranges]) for c in incoming] == [
        ("main", [line_of(body, "%c3 =")])]
    assert 'entry point GLCompute "main"' in incoming[0].from_.detail
    outgoing = await client.call_hierarchy_outgoing_calls_async(T.CallHierarchyOutgoingCallsParams(items[0]))
    assert [(c.to.name, [r.start.line for r in c.from_ranges]) for c in outgoing] == [
        ("leaf", [line_of(body, "%c1 ="), line_of(body, "%c2 =")])]
    assert outgoing[0].to.detail == "fn() -> void"
    leaf_in = await client.call_hierarchy_incoming_calls_async(T.CallHierarchyIncomingCallsParams(outgoing[0].to))
    assert sorted(c.from_.name for c in leaf_in) == ["%mid", "main"]
