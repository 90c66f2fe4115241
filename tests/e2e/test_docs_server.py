"""Over stdio: completion items carry no documentation, completionItem/resolve fills it in; shared
item fields go once in itemDefaults for a client that takes them; hover on a diagnostic shows its rule."""
import itertools
import sys

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

_n = itertools.count()
DEFAULTS = ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"]


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def vscode_like(lsp_client: LanguageClient):
    lsp_client.init_result = await lsp_client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities(
        text_document=T.TextDocumentClientCapabilities(
            completion=T.CompletionClientCapabilities(
                completion_item=T.ClientCompletionItemOptions(documentation_format=[T.MarkupKind.Markdown]),
                completion_list=T.CompletionListCapabilities(item_defaults=DEFAULTS)),
            hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown])))))
    yield
    await lsp_client.shutdown_session()


def _open(client, text: str) -> str:
    uri = f"file:///docs-server-{next(_n)}.spvasm"  # one server for the module: a document each
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spirv", 1, text)))
    return uri


async def test_completion_resolve_and_item_defaults(vscode_like):
    client = vscode_like
    assert client.init_result.capabilities.completion_provider.resolve_provider is True
    uri = _open(client, "OpCapability \n")
    result = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(0, 13)))
    assert len(result.items) > 250
    assert all(i.documentation is None and i.text_edit is None and i.data is None for i in result.items)
    d = result.item_defaults
    assert d.data == {"kind": "Capability"} and d.insert_text_format == T.InsertTextFormat.PlainText
    assert d.edit_range == T.Range(T.Position(0, 13), T.Position(0, 13))
    mesh = next(i for i in result.items if i.label == "MeshShadingEXT")
    mesh.data = d.data  # as the client applies the defaults before resolving
    resolved = await client.completion_item_resolve_async(mesh)
    md = resolved.documentation.value
    assert "**SPV_EXT_mesh_shader**" in md and "Capability 5283" in md
    assert "(https://github.khronos.org/SPIRV-Registry/extensions/EXT/SPV_EXT_mesh_shader.html)" in md


async def test_resolve_an_id_item_from_its_document(vscode_like):
    client = vscode_like
    text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%uint = OpTypeInt 32 0\n%p = OpTypePointer Function \n"
    uri = _open(client, text.replace("Function \n", "Function %\n"))
    result = await client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(3, 30)))
    item = next(i for i in result.items if i.label == "%uint")
    assert item.documentation is None
    item.data = item.data or result.item_defaults.data
    resolved = await client.completion_item_resolve_async(item)
    assert resolved.documentation.value == "```spvasm\n%uint = OpTypeInt 32 0\n```"


async def test_hover_on_a_diagnostic_shows_its_rule(vscode_like):
    client = vscode_like
    uri = _open(client, "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%i8 = OpTypeInt 8 1\n")
    h = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(2, 16)))
    assert h.contents.value.startswith("**Width**: LiteralInteger operand of `OpTypeInt`\n\n---\n\n**capability.int-type** — ")
    assert h.range == T.Range(T.Position(2, 16), T.Position(2, 17))
