"""spvls.showCfg through workspace/executeCommand on the real server over stdio."""
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

NESTED = Path(__file__).resolve().parents[1] / "data" / "cfg" / "nested.spvasm"
SVG = "{http://www.w3.org/2000/svg}"


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def client(lsp_client: LanguageClient):
    """One server for the module, keeping what it said it offers."""
    result = await lsp_client.initialize_session(T.InitializeParams(capabilities=T.ClientCapabilities()))
    lsp_client.offered = result.capabilities
    yield
    await lsp_client.shutdown_session()


def show(client, uri, line, character=0):
    return client.workspace_execute_command_async(T.ExecuteCommandParams(
        "spvls.showCfg", [{"uri": uri, "position": {"line": line, "character": character}}]))


async def test_show_cfg_follows_the_cursor(client):
    assert "spvls.showCfg" in client.offered.execute_command_provider.commands
    text = NESTED.read_text()
    lines = text.split("\n")
    uri = "file:///tmp/spvls-cfg-nested.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spirv", 1, text)))
    helper = next(i for i, x in enumerate(lines) if "OpReturn" in x)  # inside %helper
    got = await show(client, uri, helper)
    assert got["function"] == "%helper" and got["current"] == "b0"
    assert got["dot"].startswith("digraph cfg {") and 'label="%helper"' in got["dot"]

    switch = next(i for i, x in enumerate(lines) if "OpSwitch" in x)
    got = await show(client, uri, switch, 20)
    assert got["function"] == "%main"
    by_label = {b["label"]: b for b in got["blocks"]}
    assert got["current"] == by_label["%body"]["node"]
    body = next(i for i, x in enumerate(lines) if "%body = OpLabel" in x)
    col = lines[body].index("%body")
    assert by_label["%body"]["range"] == {"start": {"line": body, "character": col},
                                         "end": {"line": body, "character": col + 5}}
    assert len(got["blocks"]) == 12
    if shutil.which("dot"):
        root = ET.fromstring(got["svg"])
        texts = {t.text.split(" (")[0] for t in root.iter(SVG + "text") if t.text}
        assert {"%entry", "%body", "%c1", "%dead"} <= texts
    else:
        assert got["svg"] is None

    plain = await client.workspace_execute_command_async(T.ExecuteCommandParams(
        "spvls.showCfg", [{"uri": uri, "position": {"line": switch, "character": 0}, "svg": False}]))
    assert plain["svg"] is None and plain["dot"] == got["dot"]

    outside = next(i for i, x in enumerate(lines) if "OpTypeVoid" in x)  # no function here: the entry point's
    assert (await show(client, uri, outside))["function"] == "%main"


async def test_show_cfg_refusals_and_the_server_keeps_serving(client):
    with pytest.raises(JsonRpcException, match="is not open"):
        await show(client, "file:///tmp/nope.spvasm", 0)
    with pytest.raises(JsonRpcException, match="takes"):
        await client.workspace_execute_command_async(T.ExecuteCommandParams("spvls.showCfg", ["junk"]))
    with pytest.raises(JsonRpcException, match="takes"):
        await client.workspace_execute_command_async(T.ExecuteCommandParams(
            "spvls.showCfg", [{"uri": "file:///x", "position": {"line": "two", "character": 0}}]))
    uri = "file:///tmp/spvls-cfg-empty.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri, "spirv", 1, "OpCapability Shader\nOpMemoryModel Logical GLSL450\n")))
    got = await show(client, uri, 0)
    assert got == {"function": None, "dot": None, "svg": None, "blocks": [], "current": None,
                   "message": "the module has no function"}
