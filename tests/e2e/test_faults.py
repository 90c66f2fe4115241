"""A failing feature answers its own request with an error, is logged with context, and the
server keeps serving everything else."""
import asyncio
import sys

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient


def _server_with_fault(where: str, name: str):
    """A session with a server whose `where` (a feature's name, or "analysis") always fails."""
    config = ClientServerConfig(server_command=[sys.executable, "-m", "spvls"],
                                # No diagnostics cache: a text some earlier run (on this machine) kept
                                # would be published before the failing analysis is.
                                server_env={"SPVLS_FAULT_INJECT": where, "SPVLS_NO_CACHE": "1"})

    @pytest_lsp.fixture(config=config, name=name)
    async def session(lsp_client: LanguageClient):
        await lsp_client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities()))
        yield
        await lsp_client.shutdown_session()
    return session


client = _server_with_fault("hover", "client")
broken_analysis = _server_with_fault("analysis", "broken_analysis")


async def test_fault_is_contained_and_logged(client):
    uri = "file:///tmp/fault.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri, "spirv", 1, "OpCapability Shader\nOpMemoryModel Logical GLSL450\n")))
    doc = T.TextDocumentIdentifier(uri)
    with pytest.raises(Exception, match="hover failed"):
        await client.text_document_hover_async(T.HoverParams(doc, T.Position(0, 3)))
    # The server logs before it answers, so the message is already here.
    assert any("hover failed at file:///tmp/fault.spvasm:1:4" in m.message and "Traceback" in m.message
               for m in client.log_messages)
    # Everything else still works.
    items = await client.text_document_completion_async(T.CompletionParams(doc, T.Position(0, 13)))
    assert any(i.label == "Shader" for i in items.items)


async def test_failed_analysis_is_reported_and_text_kept(broken_analysis):
    client = broken_analysis
    uri = "file:///tmp/analysis.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri, "spirv", 1, "OpCapability Shader\n")))
    await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 30)
    (diag,) = client.diagnostics[uri]
    assert diag.code == "spvls.internal" and "could not analyse" in diag.message
    assert any("analysis failed on file:///tmp/analysis.spvasm" in m.message for m in client.log_messages)
    # The edit is kept: features that read the text still see it.
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(version=2, uri=uri),
        [T.TextDocumentContentChangePartial(T.Range(T.Position(1, 0), T.Position(1, 0)), "OpCapability Int8\n")]))
    await asyncio.wait_for(client.wait_for_notification(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 30)
    hover = await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(1, 14)))
    assert "Int8" in hover.contents.value
