"""LSP work-done progress around opening a large document, over stdio with the real server."""
import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

from spvls.state import progress


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(window=T.WindowClientCapabilities(work_done_progress=True)),
        initialization_options={"validate": "off"}))
    yield
    await lsp_client.shutdown_session()


async def _published(client, uri: str):
    for _ in range(1200):
        if uri in client.diagnostics:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"no diagnostics for {uri}")


async def test_opening_a_large_document_reports_progress_and_a_small_one_does_not(client):
    # The small one first: the server's first open is checked before pygls (tests/reliability/
    # test_early.py), this large one off pygls' loop.
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem("file:///small.spvasm", "spirv", 1, module(500))))
    await _published(client, "file:///small.spvasm")
    assert not client.progress_reports
    big = module(progress.LINES + 5000)
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem("file:///big.spvasm", "spirv", 1, big)))
    await _published(client, "file:///big.spvasm")
    assert len(client.progress_reports) == 1
    (reports,) = client.progress_reports.values()
    assert [type(r) for r in reports] == [T.WorkDoneProgressBegin, T.WorkDoneProgressEnd]
    lines = len(big.split("\n"))
    assert reports[0].title == "spvls" and reports[0].message == f"checking big.spvasm ({lines:,} lines)"
    assert reports[1].message.startswith("done in ") and reports[1].message.endswith(" s")
    # A line added: the model is built again, whole, inside a progress; typing in a line is not.
    for version, (line, text) in enumerate([(40, "x"), (40, "\n")], 2):
        del client.diagnostics["file:///big.spvasm"]
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri="file:///big.spvasm", version=version),
            [T.TextDocumentContentChangePartial(T.Range(T.Position(line, 0), T.Position(line, 0)), text)]))
        await _published(client, "file:///big.spvasm")
    assert len(client.progress_reports) == 2
    reports = list(client.progress_reports.values())[1]
    assert [type(r) for r in reports] == [T.WorkDoneProgressBegin, T.WorkDoneProgressEnd]
    assert reports[0].message == f"checking big.spvasm ({lines + 1:,} lines)"
