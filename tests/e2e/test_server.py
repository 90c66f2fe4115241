"""The real server over stdio (pytest-lsp), one server for the module: one test per LSP method,
each checking what the protocol adds (positions, kinds, edits, shared item fields, errors).

What each feature answers is tested in-process, as data (tests/test_features.py); where a test here
uses one of those cases, the server's whole answer must be that case's expected answer.
"""
import asyncio
import itertools
import json
import re
from pathlib import Path

import pytest
from lsprotocol import types as T
from lsprotocol.converters import get_converter

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = Path(__file__).resolve().parents[1] / "data" / "features"
_n = itertools.count()
_JSON = get_converter()

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


async def diagnostics_for(client, uri: str, version: int | None, timeout: float = 60):
    """The diagnostics published for this version of the document (None: as it was closed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout  # bounded, so a server that stops publishing fails the test
    while True:
        seen = client.published.get(uri, {})
        assert all(v is None or version is None or v <= version for v in seen)  # never from the future
        if version in seen:
            return seen[version]
        assert loop.time() < deadline, f"no diagnostics for version {version} of {uri} in {timeout} s"
        await asyncio.sleep(0.02)


def case(feature: str, name: str) -> tuple[str, T.Position, object]:
    """A feature case's module, its cursor and the in-process answer expected there (ASCII, so
    LSP's UTF-16 columns are the answer's code points)."""
    text = (CASES / feature / f"{name}.spvasm").read_text()
    body, pos = at_marker(text) if "$0" in text else (text, T.Position(0, 0))
    return body, pos, json.loads((CASES / feature / f"{name}.expected.json").read_text())


def same(got, want) -> bool:
    """Equal as the JSON on the wire (the client reads arrays as tuples)."""
    return _JSON.unstructure(got) == _JSON.unstructure(want)


def rng(line: int, start: int, end: int) -> T.Range:
    return T.Range(T.Position(line, start), T.Position(line, end))


def span_range(s: dict) -> T.Range:
    return rng(s["line"], s["start"], s["end"])


def opened_case(client, feature: str, name: str):
    body, pos, want = case(feature, name)
    uri = open_doc(client, body, name)
    return T.TextDocumentIdentifier(uri), pos, want


# -- diagnostics ---------------------------------------------------------------------------
async def test_publish_diagnostics_on_open_and_change(client):
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


async def test_pull_diagnostics(client):
    uri = open_doc(client, (EXAMPLES / "mistakes.spvasm").read_text(), "mistakes")
    pushed = await diagnostics_for(client, uri, 1)
    report = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri)))
    assert report.items == pushed


async def test_close_clears_diagnostics(client):
    uri = open_doc(client, "OpBogus\n")
    await diagnostics_for(client, uri, 1)
    client.text_document_did_close(T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
    assert list(await diagnostics_for(client, uri, None)) == [] and list(client.diagnostics[uri]) == []


# -- completion ----------------------------------------------------------------------------
async def test_a_long_opcode_list_is_whole_and_a_capped_id_list_is_not(client):
    head = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n%int = OpTypeInt 32 0\n"
    consts = "".join(f"%c{i} = OpConstant %int {i}\n" for i in range(600))
    uri = open_doc(client, head + consts + "Op\n%x = OpIAdd %int \n")
    doc, last = T.TextDocumentIdentifier(uri), 4 + 600
    opcodes = await client.text_document_completion_async(T.CompletionParams(doc, T.Position(last, 2)))
    # Every opcode is there: the client filters them as the user types, without asking again.
    assert len(opcodes.items) > 500 and not opcodes.is_incomplete
    ids = await client.text_document_completion_async(T.CompletionParams(doc, T.Position(last + 1, 19)))
    assert len(ids.items) == 500 and ids.is_incomplete


async def test_completion(client):
    doc, pos, want = opened_case(client, "completion", "ids-coopmat-type-slot")
    result = await client.text_document_completion_async(T.CompletionParams(doc, pos))
    # This client takes no itemDefaults: each item carries its edit, format and data.
    assert result.item_defaults is None and not result.is_incomplete
    # An id's item says which document documents it (completionItem/resolve).
    assert [(i.label, i.detail, i.sort_text, i.data) for i in result.items] == [
        (w["label"], w["detail"], w["sort_text"], {**w["data"], "uri": doc.uri}) for w in want]
    assert {w["data"]["kind"] for w in want} == {"id"}
    assert same([i.text_edit for i in result.items], [
        T.TextEdit(rng(pos.line, w["replace_start"], w["replace_end"]), w["insert_text"] or w["label"]) for w in want])
    assert {i.kind for i in result.items} == {T.CompletionItemKind.Class}  # types
    assert all(i.insert_text_format == T.InsertTextFormat.PlainText and i.documentation is None for i in result.items)

    # Inside an opcode with operands after it: the whole word is replaced, by the name alone.
    doc, pos, want = opened_case(client, "completion", "opcode-mid-line")
    result = await client.text_document_completion_async(T.CompletionParams(doc, pos))
    assert len(result.items) == len(want) > 500
    assert same([i.text_edit for i in result.items], [
        T.TextEdit(rng(pos.line, w["replace_start"], w["replace_end"]), w["label"]) for w in want])
    assert pos.character < want[0]["replace_end"] == len("          %t = OpExtInst")
    assert {i.insert_text_format for i in result.items} == {T.InsertTextFormat.PlainText}

    # A long list: labels and one-line details only; documentation comes with completionItem/resolve.
    doc, pos, want = opened_case(client, "completion", "capability")
    result = await client.text_document_completion_async(T.CompletionParams(doc, pos))
    assert [i.label for i in result.items] == [w["label"] for w in want]
    assert all(i.detail and "\n" not in i.detail and i.documentation is None for i in result.items)
    assert {i.kind for i in result.items} == {T.CompletionItemKind.EnumMember}


# -- hover and navigation ------------------------------------------------------------------
async def test_hover(client):
    doc, pos, want = opened_case(client, "hover", "group-non-uniform-rotate")
    h = await client.text_document_hover_async(T.HoverParams(doc, pos))
    assert same(h, T.Hover(T.MarkupContent(T.MarkupKind.Markdown, "\n".join(want["text"])), span_range(want["range"])))


async def test_definition(client):
    doc, pos, want = opened_case(client, "definition", "subgroup")
    loc = await client.text_document_definition_async(T.DefinitionParams(doc, pos))
    assert same(loc, T.Location(doc.uri, span_range(want)))


async def test_references(client):
    doc, pos, want = opened_case(client, "references", "subgroup")
    refs = await client.text_document_references_async(T.ReferenceParams(
        text_document=doc, position=pos, context=T.ReferenceContext(include_declaration=True)))
    assert same(refs, [T.Location(doc.uri, span_range(s)) for s in want])


async def test_document_highlight(client):
    doc, pos, want = opened_case(client, "highlights", "subgroup")
    hl = await client.text_document_document_highlight_async(T.DocumentHighlightParams(doc, pos))
    kinds = {True: T.DocumentHighlightKind.Write, False: T.DocumentHighlightKind.Read}
    assert same(hl, [T.DocumentHighlight(span_range(h), kinds[h["write"]]) for h in want])


async def test_prepare_rename(client):
    doc, pos, want = opened_case(client, "rename", "u32-8")
    assert await client.text_document_prepare_rename_async(T.PrepareRenameParams(doc, pos)) == span_range(want["prepare"])


async def test_rename_and_refusals(client):
    doc, pos, want = opened_case(client, "rename", "u32-8")
    edit = await client.text_document_rename_async(T.RenameParams(doc, pos, "%eight"))
    assert same(edit, T.WorkspaceEdit(changes={doc.uri: [T.TextEdit(span_range(e), e["new_text"]) for e in want["edits"]]}))
    for name, bad in (("refused-taken", "%u32"), ("refused-invalid", "%no-dash")):
        refused = case("rename", name)[2]["edits"]["refused"]
        with pytest.raises(Exception, match=re.escape(refused)):
            await client.text_document_rename_async(T.RenameParams(doc, pos, bad))


# -- symbols, tokens, folding, signature, inlay hints, quick fixes -----------------------------
async def test_document_symbols(client):
    uri = open_doc(client, MODULE, "symbols")
    syms = await client.text_document_document_symbol_async(T.DocumentSymbolParams(T.TextDocumentIdentifier(uri)))
    kinds = {(s.name, s.kind) for s in syms}
    assert ("main", T.SymbolKind.Event) in kinds and ("main", T.SymbolKind.Function) in kinds
    assert ("%matA", T.SymbolKind.Class) in kinds
    fn = next(s for s in syms if s.kind == T.SymbolKind.Function)
    assert [c.name for c in fn.children] == ["%entry"]
    assert fn.range == T.Range(T.Position(18, 0), T.Position(21, len("OpFunctionEnd")))


async def test_workspace_symbols(client):
    uri = open_doc(client, MODULE.replace("%matA", "%matWs"), "symbols")
    ws = await client.workspace_symbol_async(T.WorkspaceSymbolParams(query="matws"))
    assert same(ws, [T.WorkspaceSymbol(name="%matWs", kind=T.SymbolKind.Class, location=T.Location(uri, rng(17, 0, 6)))])


async def test_semantic_tokens_full(client):
    uri = open_doc(client, MODULE)
    full = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(T.TextDocumentIdentifier(uri)))
    want = case("tokens", "module")[2]  # one token a row: line, start, length, type, modifiers
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    data, line, col = [], 0, 0
    for t_line, start, length, typ, mods in want:  # LSP's relative encoding of the in-process answer
        data += [t_line - line, start - col if t_line == line else start, length, legend.token_types.index(typ),
                 sum(1 << legend.token_modifiers.index(m) for m in mods)]
        line, col = t_line, start
    assert list(full.data) == data and full.result_id


async def test_semantic_tokens_range(client):
    uri = open_doc(client, MODULE)
    doc = T.TextDocumentIdentifier(uri)
    full = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    part = await client.text_document_semantic_tokens_range_async(T.SemanticTokensRangeParams(doc, rng(17, 0, 80)))
    assert 0 < len(part.data) < len(full.data) and part.data[0] == 17  # line 17's tokens, from line 0


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


async def test_folding_range(client):
    uri = open_doc(client, MODULE)
    folds = await client.text_document_folding_range_async(T.FoldingRangeParams(T.TextDocumentIdentifier(uri)))
    want = case("folding", "module")[2]
    assert same(folds, [T.FoldingRange(a, b, kind=T.FoldingRangeKind.Region) for a, b, _kind in want])


async def test_signature_help(client):
    doc, pos, want = opened_case(client, "signature", "coopmat-muladd")
    sig = await client.text_document_signature_help_async(T.SignatureHelpParams(doc, pos))
    assert same(sig, T.SignatureHelp(
        signatures=[T.SignatureInformation(want["label"], T.MarkupContent(T.MarkupKind.Markdown, "\n".join(want["documentation"])),
                                           [T.ParameterInformation(p) for p in want["parameters"]])],
        active_signature=0, active_parameter=want["active"]))


async def test_inlay_hints_and_the_setting_off(client):
    doc, _pos, want = opened_case(client, "inlay", "scope-and-semantics")
    whole = T.Range(T.Position(0, 0), T.Position(100, 0))
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(doc, whole))
    kinds = {"type": T.InlayHintKind.Type, "value": T.InlayHintKind.Parameter}
    assert same(hints, [T.InlayHint(T.Position(h["line"], h["col"]), h["label"] if h["kind"] == "type" else f"={h['label']}",
                                 kind=kinds[h["kind"]]) for h in want])
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams({"spvls": {"inlayHints": False}}))
    try:
        off = await client.text_document_inlay_hint_async(T.InlayHintParams(doc, whole))
        assert list(off) == []
    finally:
        client.workspace_did_change_configuration(T.DidChangeConfigurationParams({"spvls": {"inlayHints": True}}))


async def test_code_action_adds_missing_extension(client):
    body, _pos, want = case("code_actions", "missing-extension")
    uri = open_doc(client, body)
    diags = await diagnostics_for(client, uri, 1)
    d = next(d for d in diags if d.code == "capability.extension")
    actions = await client.text_document_code_action_async(T.CodeActionParams(
        T.TextDocumentIdentifier(uri), d.range, T.CodeActionContext([d])))
    assert same(actions, [
        T.CodeAction(w["title"], kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
                     edit=T.WorkspaceEdit(changes={uri: [T.TextEdit(span_range(e), e["new_text"]) for e in w["edits"]]}))
        for w in want])


async def test_formatting(client):
    body, _pos, want = case("formatting", "whole")
    uri = open_doc(client, body)
    edits = await client.text_document_formatting_async(
        T.DocumentFormattingParams(T.TextDocumentIdentifier(uri), T.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert same(edits, [T.TextEdit(rng(e["line"], 0, len(e["old"])), e["new"]) for e in want])


async def test_range_formatting(client):
    body, _pos, want = case("formatting", "range")
    uri = open_doc(client, body)
    edits = await client.text_document_range_formatting_async(T.DocumentRangeFormattingParams(
        T.TextDocumentIdentifier(uri), rng(2, 0, 3), T.FormattingOptions(tab_size=4, insert_spaces=True)))
    assert same(edits, [T.TextEdit(rng(e["line"], 0, len(e["old"])), e["new"]) for e in want])


# -- call hierarchy: prepare, incoming, outgoing --------------------------------------------
def _call_item(uri: str, body: str, it: dict) -> T.CallHierarchyItem:
    last = body.split("\n")[it["last_line"]]
    return T.CallHierarchyItem(name=it["name"], kind=T.SymbolKind.Function, uri=uri, detail=it["detail"] or None,
                               range=T.Range(T.Position(it["first_line"], 0), T.Position(it["last_line"], len(last))),
                               selection_range=rng(*it["selection"]), data={"id": it["id"]})


async def test_call_hierarchy(client):
    body, pos, want = case("calls", "mid")
    uri = open_doc(client, body)
    items = await client.text_document_prepare_call_hierarchy_async(
        T.CallHierarchyPrepareParams(T.TextDocumentIdentifier(uri), pos))
    assert same(items, [_call_item(uri, body, want["item"])])
    incoming = await client.call_hierarchy_incoming_calls_async(T.CallHierarchyIncomingCallsParams(items[0]))
    assert same(incoming, [T.CallHierarchyIncomingCall(_call_item(uri, body, e["item"]), [span_range(s) for s in e["sites"]])
                        for e in want["incoming"]])
    outgoing = await client.call_hierarchy_outgoing_calls_async(T.CallHierarchyOutgoingCallsParams(items[0]))
    assert same(outgoing, [T.CallHierarchyOutgoingCall(_call_item(uri, body, e["item"]), [span_range(s) for s in e["sites"]])
                        for e in want["outgoing"]])
    leaf_in = await client.call_hierarchy_incoming_calls_async(T.CallHierarchyIncomingCallsParams(outgoing[0].to))
    assert sorted(c.from_.name for c in leaf_in) == ["%mid", "main"]


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
