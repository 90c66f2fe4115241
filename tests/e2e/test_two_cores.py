"""A module above checks.parallel's threshold, opened and edited over stdio with the real server (which
checks it on two cores): the diagnostics published are the ones one process finds."""
import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

from spvls.checks import analyze, parallel
from spvls.syntax.document import Document

URI = "file:///two-cores.spvasm"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(), initialization_options={"validate": "off"}))
    yield
    await lsp_client.shutdown_session()


async def _published(client) -> list[tuple]:
    for _ in range(1200):
        got = client.diagnostics.get(URI)
        if got is not None:
            return sorted((d.range.start.line, d.range.start.character, d.code, d.message) for d in got)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no diagnostics for {URI}")


def _expected(text: str) -> list[tuple]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "enabled", False)  # this process checks serially (a server run in it may have set it)
        return sorted((d.line, d.start, d.code, d.message) for d in analyze(Document(text)).diagnostics)


def _mistaken() -> list[str]:
    lines = module(parallel.FROM_INSTRUCTIONS + 2000).split("\n")
    adds = [n for n, t in enumerate(lines) if " = OpIAdd " in t]
    for n in adds[5:8]:
        lines[n] = lines[n].rsplit(" ", 1)[0] + " %nope"  # ids (the child's): undefined, did you mean
    lines.insert(adds[-1], "               OpBogus %x")  # operands (this process's): unknown opcode
    return lines


async def test_a_large_module_checked_on_two_cores_says_what_one_process_says(client):
    lines = _mistaken()
    text = "\n".join(lines)
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(URI, "spirv", 1, text)))
    got = await _published(client)
    assert got == _expected(text)
    assert {"id.undefined", "operand.unknown-opcode"} <= {d[2] for d in got}
    # A keystroke in place after the forked open: a new undefined id.
    n = next(k for k, t in enumerate(lines) if " = OpIAdd " in t and "%nope" not in t)
    col = len(lines[n])
    del client.diagnostics[URI]
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=URI, version=2),
        [T.TextDocumentContentChangePartial(T.Range(T.Position(n, col), T.Position(n, col)), "z")]))
    lines[n] += "z"
    got = await _published(client)
    assert got == _expected("\n".join(lines))
    assert len([d for d in got if d[2] == "id.undefined"]) == 4
