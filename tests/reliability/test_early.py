"""The first answers before the protocol library (spvls/server/early.py), with the real server over
stdio and its caches off (a first launch): any client gets `initialize` and its first document's
diagnostics while the import of pygls and lsprotocol is held back (order of events: the import
waits for the test to have them), and they are the answers pygls gives; then pygls takes over and
serves as ever."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import module
from spvls.state import progress
from tests.reliability import rawlsp
from tests.reliability.rawlsp import Server
from tests.reliability.test_initialize import CLIENTS, pygls_answers, pygls_messages

ROOT = Path(__file__).resolve().parents[2]
URI = "file:///tmp/early.spvasm"
TEXT = (ROOT / "tests" / "data" / "rules" / "reconvergence-fail.spvasm").read_text()

# Run spvls with the import of pygls and lsprotocol held until the file SPVLS_TEST_RELEASE exists. The
# hold first writes a HOLDING notification on the server's output, after everything the server wrote
# before it: what comes before it was answered without pygls.
HOLDING = "spvls/test/holding"
# An import of the validator's binding before that release is noted in SPVLS_TEST_RELEASE.binding.
HELD = """
import importlib.abc, json, os, sys, time
class Hold(importlib.abc.MetaPathFinder):
    told = False
    def find_spec(self, name, path=None, target=None):
        release = os.environ["SPVLS_TEST_RELEASE"]
        if name == "spvls.binding.spirv_tools" and not os.path.exists(release):
            open(release + ".binding", "w").close()
        if name.split(".")[0] in ("pygls", "lsprotocol"):
            if not Hold.told:
                Hold.told = True
                body = json.dumps({"jsonrpc": "2.0", "method": "@HOLDING@", "params": None}).encode()
                sys.stdout.buffer.write(b"Content-Length: " + str(len(body)).encode() + b"\\r\\n\\r\\n" + body)
                sys.stdout.buffer.flush()
            while not os.path.exists(release):
                time.sleep(0.01)
        return None
sys.meta_path.insert(0, Hold())
sys.argv = ["spvls"]
from spvls.cli import entry
entry()
""".replace("@HOLDING@", HOLDING)


class HeldServer(Server):
    """rawlsp.Server, started with HELD."""

    def __init__(self, env: dict) -> None:
        real = subprocess.Popen

        def popen(argv: list[str], **kw: object) -> subprocess.Popen:
            return real([sys.executable, "-c", HELD], **kw)  # type: ignore[call-overload]

        rawlsp.subprocess.Popen = popen  # type: ignore[attr-defined,assignment]
        try:
            super().__init__(env=env)
        finally:
            rawlsp.subprocess.Popen = real  # type: ignore[attr-defined]


def _until_held(s: Server) -> list[dict]:
    """The messages the server wrote before it began to import pygls."""
    seen: list[dict] = []
    s.wait_for(lambda m: seen.append(m) or m.get("method") == HOLDING, timeout=120)
    return seen[:-1]


def _open(s: Server, text: str, version: int = 1) -> dict:
    s.notify(
        "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": version, "text": text}}
    )
    return s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)["params"]


def test_any_client_gets_its_first_answers_before_pygls_is_imported(tmp_path, rng):
    lines = TEXT.split("\n")
    k = rng.randrange(len(lines))
    text = "\n".join(lines[:k] + ["; ünïcødé 𝄞 in a comment"] + lines[k:])  # columns differ by encoding
    pushing = [json.loads(p.read_text())["capabilities"] for p in CLIENTS]
    pushing = [c for c in pushing if "diagnostic" not in c.get("textDocument", {})]
    encodings = rng.choice([["utf-8"], ["utf-16"], ["utf-32", "utf-16"], []])
    caps = rng.choice([*pushing, {"general": {"positionEncodings": encodings}} if encodings else {}])
    options = {"validate": "off", "targetEnv": rng.choice(["auto", "no-such-env", "x" * 500])}
    print("capabilities", json.dumps(caps)[:200], "options", options)
    params = {"processId": None, "rootUri": None, "capabilities": caps, "initializationOptions": options}
    (wrote,) = pygls_messages([params])
    want_init = next(m for m in wrote if m.get("id") == 1)
    want_warnings = [m["params"] for m in wrote if m.get("method") == "window/showMessage"]

    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        assert held.initialize(caps, options) == want_init
        early = _open(held, text)
        before = _until_held(held)  # what else came before pygls was wanted: the settings' warning alone
        warnings = [m["params"] for m in before if m.get("method") == "window/showMessage"]
        assert len(warnings) == len(before)
        assert not (tmp_path / "release.binding").exists()  # the binding waits for the first validation
        release.touch()  # pygls may come now: it takes over and answers the rest
        hover = held.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 5, "character": 5}}, timeout=120
        )
        assert "result" in hover
        # The same text opened again, now through pygls' handlers: the same diagnostics.
        held.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        cleared = held.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)
        assert cleared["params"] == {"uri": URI, "diagnostics": []}
        assert _open(held, text, version=2) == {**early, "version": 2}
        assert held.request("shutdown", None)["result"] is None
    finally:
        release.touch()
        held.close()
    assert warnings == want_warnings


@pytest.mark.parametrize("top", [{"processId": "one"}, {"trace": "everything"}])
def test_params_pygls_refuses_at_their_top_are_left_to_it(tmp_path, top):
    """A processId that is not a number, a trace no value of LSP's: nothing is answered before pygls,
    which answers the error."""
    env = {"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(tmp_path / "r")}
    held = HeldServer(env=env)
    try:
        held.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}, **top},
            }
        )
        assert _until_held(held) == []
        (tmp_path / "r").touch()
        assert held.wait_for(lambda m: m.get("id") == 1, timeout=120)["error"]["code"] == -32602  # InvalidParams
    finally:
        (tmp_path / "r").touch()
        held.close()


def test_capabilities_pygls_refuses_deep_inside_are_answered_early_and_the_server_serves(tmp_path):
    """pygls' types refuse `general: 5`; server.early reads past it (no encodings stated): the answer is
    the one for no capabilities, and pygls, told of none, takes over and serves."""
    caps = {"general": 5, "textDocument": {"rename": {"prepareSupport": True}}}
    (want_init,) = pygls_answers([{"processId": None, "rootUri": None, "capabilities": {**caps, "general": {}}}])
    held = Server(env={"SPVLS_NO_CACHE": "1"})
    try:
        assert held.initialize(caps)["result"] == want_init["result"]
        assert _open(held, TEXT)["diagnostics"]
        hover = held.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 5, "character": 5}}, timeout=120
        )
        assert "result" in hover
        assert held.request("shutdown", None)["result"] is None
    finally:
        held.close()


PULLS = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}


def _pull(s: Server, ident: int) -> dict:
    s.send({"jsonrpc": "2.0", "id": ident, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": URI}}})
    return s.wait_for(lambda m: m.get("id") == ident and "method" not in m, timeout=120)


def test_a_client_that_pulls_gets_its_first_pull_answered_before_pygls_and_the_requests_between_after(tmp_path):
    """VS Code's first messages: the open, its settings, another request, then the pull. The settings
    and the pull are answered before pygls; the request that came between is answered by pygls after
    it, and the same pull answered by pygls (after a reopen) gives the same items."""
    caps = json.loads((ROOT / "tests" / "data" / "clients" / "vscode.json").read_text())["capabilities"]
    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        held.initialize(caps, {"validate": "off"})
        held.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": TEXT}}
        )
        held.notify("workspace/didChangeConfiguration", {"settings": {"spvls": {"targetEnv": "no-such-env"}}})
        symbols = {"textDocument": {"uri": URI}}
        held.send({"jsonrpc": "2.0", "id": 50, "method": "textDocument/documentSymbol", "params": symbols})
        early = _pull(held, 51)["result"]
        before = _until_held(held)
        assert [m["method"] for m in before] == ["window/showMessage"]  # the refused setting, said once
        assert "targetEnv" in before[0]["params"]["message"]
        assert early["kind"] == "full" and {d["code"] for d in early["items"]} >= {"reconvergence.same-labels"}
        release.touch()
        assert [s["name"] for s in held.wait_for(lambda m: m.get("id") == 50, timeout=120)["result"]]
        held.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        held.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 2, "text": TEXT}}
        )
        assert _pull(held, 52)["result"] == early
        assert "workspace/diagnostic/refresh" not in held.asked  # nothing pulled before the settings changed
        assert held.request("shutdown", None)["result"] is None
    finally:
        release.touch()
        held.close()


def test_settings_sent_before_the_first_open_are_taken_before_pygls(tmp_path):
    """Neovim 0.11's first messages: its settings right after `initialized`, then the open; the
    diagnostics published before pygls follow those settings (a target env older than what the
    module needs), as pygls' own publication of the same text does."""
    caps = json.loads((ROOT / "tests" / "data" / "clients" / "neovim-0.11.json").read_text())["capabilities"]
    text = "OpCapability Shader\nOpCapability GroupNonUniform\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n"
    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        held.initialize(caps, {"validate": "off"})
        held.notify("workspace/didChangeConfiguration", {"settings": {"spvls": {"targetEnv": "vulkan1.0"}}})
        early = _open(held, text)
        assert _until_held(held) == []
        assert [d["code"] for d in early["diagnostics"]] == ["capability.version"]
        release.touch()
        held.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        held.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)
        assert _open(held, text, version=2) == {**early, "version": 2}
    finally:
        release.touch()
        held.close()


def test_a_pull_that_does_not_come_is_left_to_pygls(tmp_path):
    """A client that pulls, opens, then says nothing: pygls takes over after a moment, and answers the
    pull when it comes."""
    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        init = held.initialize(PULLS, {"validate": "off"})
        (want_init,) = pygls_answers([{"processId": None, "rootUri": None, "capabilities": PULLS}])
        assert init["result"] == want_init["result"]
        held.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": TEXT}}
        )
        assert _until_held(held) == []  # nothing pushed, nothing else said
        release.touch()
        items = _pull(held, 60)["result"]["items"]
        assert items and {d["code"] for d in items} >= {"reconvergence.same-labels"}
    finally:
        release.touch()
        held.close()


def _large() -> tuple[str, int]:
    """A module large enough for a progress (progress.LINES lines and more), with an undefined id
    on the returned line."""
    lines = module(progress.LINES + 500).split("\n")
    k = next(i for i, line in enumerate(lines) if " = OpIAdd " in line)
    lines[k] = lines[k].rsplit(" ", 1)[0] + " %undefined"
    return "\n".join(lines), k


def test_a_large_document_is_checked_before_pygls_inside_its_progress(tmp_path):
    """A large document: its progress and its diagnostics come before pygls is imported, as pygls'
    server gives them when it opens the same text; the client's answer to the progress' create
    request, which pygls did not send, is not reported by pygls as an answer to nothing."""
    text, k = _large()
    lines = text.split("\n")
    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        held.initialize({"window": {"workDoneProgress": True}}, {"validate": "off"})
        early = _open(held, text)
        before = _until_held(held)
        assert held.asked == ["window/workDoneProgress/create"]
        values = [m["params"]["value"] for m in before if m.get("method") == "$/progress"]
        assert len(values) == len(before) == 2
        assert values[0] == {
            "kind": "begin",
            "title": "spvls",
            "message": f"checking early.spvasm ({len(lines):,} lines)",
            "cancellable": False,
        }
        assert values[1]["kind"] == "end" and re.fullmatch(r"done in \d+\.\d s", values[1]["message"])
        assert [(d["code"], d["range"]["start"]["line"]) for d in early["diagnostics"]] == [("id.undefined", k)]
        release.touch()
        held.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        held.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)
        assert _open(held, text, version=2) == {**early, "version": 2}  # through pygls' server, off its loop
        assert held.asked == ["window/workDoneProgress/create"] * 2
        assert held.request("shutdown", None)["result"] is None
    finally:
        release.touch()
        held.close()
    assert b"unknown message id" not in b"".join(held.stderr)


def test_a_pulling_clients_answer_to_the_progress_is_taken_before_its_first_pull(tmp_path):
    """A client that pulls (VS Code) answers the progress' create request while the large document
    is checked, before it pulls: the front takes that answer itself and still answers the pull
    before pygls (an answer it did not take would hand everything to pygls)."""
    text, k = _large()
    release = tmp_path / "release"
    held = HeldServer(env={"SPVLS_NO_CACHE": "1", "SPVLS_TEST_RELEASE": str(release)})
    try:
        held.initialize({**PULLS, "window": {"workDoneProgress": True}}, {"validate": "off"})
        held.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": text}}
        )
        held.wait_for(lambda m: m.get("method") == "window/workDoneProgress/create", timeout=120)  # answered
        pulled = _pull(held, 7)
        before = _until_held(held)
        assert [m["params"]["value"]["kind"] for m in before] == ["begin", "end"]
        assert [(d["code"], d["range"]["start"]["line"]) for d in pulled["result"]["items"]] == [("id.undefined", k)]
        release.touch()
        assert held.request("shutdown", None)["result"] is None
    finally:
        release.touch()
        held.close()
    assert b"unknown message id" not in b"".join(held.stderr)
