"""Issue 14.16-18: requests with invalid params, broken framing and bad settings are answered or
reported; the server keeps serving."""
import pytest

from tests.reliability.rawlsp import Server

URI = "file:///tmp/p.spvasm"
TEXT = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


@pytest.fixture
def server():
    s = Server()
    s.initialize()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": TEXT}})
    yield s
    s.close()


def _hover_works(s: Server) -> None:
    r = s.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 3}})
    assert "OpCapability" in r["result"]["contents"]["value"]


DOC = {"uri": URI}
BAD_PARAMS = [
    ("textDocument/hover", None, "$.params"),
    ("textDocument/hover", {"textDocument": DOC, "position": "0:3"}, "position"),
    ("textDocument/hover", {"textDocument": DOC, "position": {"line": -1, "character": 0}}, "position"),
    ("textDocument/hover", {"textDocument": DOC, "position": {"line": 2 ** 40, "character": 0}}, "position"),
    ("textDocument/definition", {"position": {"line": 0, "character": 0}}, "text_document"),
    ("textDocument/completion", {"textDocument": DOC, "position": {"line": 0, "character": 0}, "context": {}},
     "trigger_kind"),
]


@pytest.mark.parametrize("method,params,where", BAD_PARAMS)
def test_invalid_params_are_answered_with_invalid_params(server, method, params, where):
    r = server.request(method, params, timeout=20)
    assert r["error"]["code"] == -32602 and where in r["error"]["message"], r
    _hover_works(server)


def test_settings_of_the_wrong_shape_are_reported_once():
    s = Server()
    try:
        r = s.initialize(options={"spvls": 5})
        assert "capabilities" in r["result"]
        shown = s.wait_for(lambda m: m.get("method") == "window/showMessage", timeout=20)
        s.notes.clear()
        assert "expected an object of settings" in shown["params"]["message"]
        # An invalid targetEnv is reported, the valid inlayHints taken; the same again is not repeated.
        for _ in range(2):
            s.notify("workspace/didChangeConfiguration",
                     {"settings": {"spvls": {"targetEnv": "vulkan7", "inlayHints": False}}})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                           "text": TEXT}})
        s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=20)
        hints = s.request("textDocument/inlayHint", {"textDocument": DOC, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}})
        assert hints["result"] == []  # inlayHints: false was taken
        shown = [m for m in s.notes if m.get("method") == "window/showMessage"]
        assert len(shown) == 1 and "vulkan7" in shown[0]["params"]["message"], shown
        # Neovim's empty settings table arrives as [] and is no problem.
        s.notify("workspace/didChangeConfiguration", {"settings": {"spvls": []}})
        _hover_works(s)
        assert not [m for m in s.notes if m.get("method") == "window/showMessage"][1:]
    finally:
        s.close()
