"""The first answers before the protocol library (spvls/server/early.py), with the real server over
stdio: a client seen before gets `initialize` and its first document's diagnostics while the
import of pygls and lsprotocol is held back (order of events: the import waits for the test to
have them), and they are the answers pygls gives; then pygls takes over and serves as ever."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.reliability import rawlsp
from tests.reliability.rawlsp import Server

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


def test_a_known_client_gets_its_first_answers_before_pygls_is_imported(tmp_path, rng):
    lines = TEXT.split("\n")
    k = rng.randrange(len(lines))
    text = "\n".join(lines[:k] + ["; ünïcødé 𝄞 in a comment"] + lines[k:])  # columns differ by encoding
    encodings = rng.choice([["utf-8"], ["utf-16"], ["utf-32", "utf-16"], []])
    caps = {"general": {"positionEncodings": encodings}} if encodings else {}
    options = {"validate": "off", "targetEnv": rng.choice(["auto", "no-such-env", "x" * 500])}
    env = {"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache")}
    print("encodings", encodings, "options", options)

    first = Server(env=env)  # pygls answers, and its initialize result is kept
    try:
        want_init = first.initialize(caps, options)["result"]
        want_diags = _open(first, text)
        want_warnings = [m["params"] for m in first.notes if m.get("method") == "window/showMessage"]
    finally:
        first.close()

    release = tmp_path / "release"
    held = HeldServer(env={**env, "SPVLS_TEST_RELEASE": str(release)})
    try:
        assert held.initialize(caps, options)["result"] == want_init
        assert _open(held, text) == want_diags
        assert [m["params"] for m in held.notes if m.get("method") == "window/showMessage"] == want_warnings
        assert not (tmp_path / "release.binding").exists()  # the binding waits for the first validation
        release.touch()  # pygls may come now: it takes over and answers the rest
        hover = held.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 5, "character": 5}}, timeout=120
        )
        assert "result" in hover
        assert held.request("shutdown", None)["result"] is None
    finally:
        release.touch()
        held.close()


def test_an_unknown_client_is_answered_by_pygls_alone(tmp_path):
    """No kept result for these capabilities: nothing is answered before pygls, all is after it, and
    pygls' result is kept for the next start."""
    env = {"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache"), "SPVLS_TEST_RELEASE": str(tmp_path / "r")}
    held = HeldServer(env=env)
    try:
        held.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}},
            }
        )
        assert _until_held(held) == []
        (tmp_path / "r").touch()
        assert "capabilities" in held.wait_for(lambda m: m.get("id") == 1, timeout=120)["result"]
    finally:
        (tmp_path / "r").touch()
        held.close()
    assert os.listdir(tmp_path / "cache" / "initialize")  # kept for the next start


def test_a_known_client_that_pulls_gets_initialize_early_and_its_diagnostics_from_pygls(tmp_path):
    """A client seen before that pulls diagnostics: `initialize` is answered before pygls; the open is
    left to pygls, which answers the pull as it did for the same client before (nothing is pushed)."""
    caps = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}
    options = {"validate": "off"}
    env = {"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache")}
    pull = {"textDocument": {"uri": URI}}

    def opened(s: Server) -> None:
        s.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": TEXT}}
        )

    first = Server(env=env)
    try:
        want_init = first.initialize(caps, options)["result"]
        opened(first)
        want_items = first.request("textDocument/diagnostic", pull, timeout=120)["result"]["items"]
    finally:
        first.close()
    assert want_items  # the module breaks reconvergence rules

    release = tmp_path / "release"
    held = HeldServer(env={**env, "SPVLS_TEST_RELEASE": str(release)})
    try:
        init = held.initialize(caps, options)
        opened(held)
        assert init["result"] == want_init
        early = _until_held(held)
        assert [m for m in early if m.get("method") == "textDocument/publishDiagnostics"] == []
        release.touch()
        assert held.request("textDocument/diagnostic", pull, timeout=120)["result"]["items"] == want_items
    finally:
        release.touch()
        held.close()
