"""The diagnostics cache on disk (spvls/session/cache.py), with the real server over stdio: a text
opened again is published at once from the cache, exactly as a server without the cache publishes
it; an edited text closed is kept for its next open; another setting, another spvls or a damaged
entry is a miss."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spvls.session import cache
from spvls.spec import grammar
from tests.reliability.rawlsp import Server

DATA = Path(__file__).resolve().parents[1] / "data"
URI = "file:///tmp/spvls-cache.spvasm"
TEXT = (DATA / "rules" / "reconvergence-fail.spvasm").read_text()  # errors with related information


def _published(s: Server, version: int) -> dict:
    return s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == URI and m["params"].get("version") == version)


def _session(env: dict, text: str, options: dict | None = None, edit: str | None = None) -> list[dict]:
    """Open `text` in a new server; its diagnostics (and after `edit`, appended, the edited text's
    before the close). Returns every publication for the document, in order."""
    s = Server(env=env)
    try:
        s.initialize({}, {"validate": "off", **(options or {})})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                           "text": text}})
        got = [_published(s, 1)["params"]]
        if edit is not None:
            end = len(text.split("\n")) - 1
            s.notify("textDocument/didChange", {
                "textDocument": {"uri": URI, "version": 2},
                "contentChanges": [{"range": {"start": {"line": end, "character": 0},
                                              "end": {"line": end, "character": 0}}, "text": edit}]})
            got.append(_published(s, 2)["params"])
            s.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
        # Anything published after the first for version 1 (there should be nothing): a request
        # answered means every notification before it was written.
        s.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
        got += [m["params"] for m in s.notes if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == URI and m["params"].get("version") == 1]
        return got
    finally:
        s.close()


@pytest.fixture
def on(tmp_path) -> dict:
    return {"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache")}


OFF = {"SPVLS_NO_CACHE": "1"}


def test_a_text_opened_again_is_published_from_the_cache_as_a_fresh_server_publishes_it(on, tmp_path):
    (fresh,) = _session(OFF, TEXT)
    assert {d["code"] for d in fresh["diagnostics"]} >= {"reconvergence.kill", "reconvergence.multiple-predecessors"}
    assert any(d.get("relatedInformation") for d in fresh["diagnostics"])
    assert _session(on, TEXT) == [fresh]  # a miss: computed, published once, kept
    entries = list((tmp_path / "cache" / "diagnostics").iterdir())
    assert len(entries) == 1
    assert _session(on, TEXT) == [fresh]  # a hit: the same, and nothing published after it
    # Damaged (a byte changed): a miss, computed again and kept again.
    data = bytearray(entries[0].read_bytes())
    data[-2] ^= 1
    entries[0].write_bytes(bytes(data))
    assert _session(on, TEXT) == [fresh]
    assert entries[0].read_bytes() != bytes(data)  # written again, whole


def test_an_edited_text_is_kept_at_its_close_and_settings_are_part_of_the_key(on, tmp_path):
    edit = "%bad = OpFrob\n"
    _, edited = _session(on, TEXT, edit=edit)
    (fresh_edited,) = _session(OFF, TEXT + edit)
    assert {k: v for k, v in edited.items() if k != "version"} == {k: v for k, v in fresh_edited.items()
                                                                  if k != "version"}
    assert _session(on, TEXT + edit) == [fresh_edited]  # kept at the close: a hit, the same
    # Another target env: a key of its own, which gives what a fresh server gives for it.
    entries = tmp_path / "cache" / "diagnostics"
    assert len(list(entries.iterdir())) == 2  # the text as opened, and as closed
    options = {"targetEnv": "spv1.3"}
    (fresh_13,) = _session(OFF, TEXT, options)
    assert _session(on, TEXT, options) == [fresh_13]
    assert len(list(entries.iterdir())) == 3


def test_the_stamp_changes_with_the_grammar_files(tmp_path, monkeypatch):
    copy = tmp_path / "grammar"
    shutil.copytree(grammar.grammar_dir(), copy)
    monkeypatch.setenv("SPVLS_GRAMMAR_DIR", str(copy))
    cache.stamp.cache_clear()
    try:
        before = cache.key("x", 1)
        core = copy / "spirv.core.grammar.json"
        core.write_text(core.read_text() + " ")
        cache.stamp.cache_clear()
        assert cache.key("x", 1) != before
        assert cache.key("x", 1) != cache.key("x", 2) != cache.key("y", 2)
    finally:
        cache.stamp.cache_clear()


SHADER = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
          %f = OpString "sum.comp"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %uint_1 = OpConstant %uint 1
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpLine %f 14 3
          %x = OpIAdd %uint %uint_1 %nope
               OpReturn
               OpFunctionEnd
"""


def _open_at(env: dict, uri: str, text: str) -> list[dict]:
    """Every publication for `uri` in a new server that opens it (the last is what the client keeps)."""
    s = Server(env=env)
    try:
        s.initialize({}, {"validate": "off"})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm", "version": 1,
                                                           "text": text}})
        s.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        return [m["params"] for m in s.notes if m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri]
    finally:
        s.close()


def test_a_hit_that_the_analysis_contradicts_is_published_again(on, tmp_path):
    """The related information points at the shader source once it exists beside the document: a
    cache kept before it existed shows the old link first, then the analysis's (and keeps that)."""
    uri = (tmp_path / "shader.spvasm").as_uri()
    (before,) = _open_at(on, uri, SHADER)
    assert before["diagnostics"][0]["relatedInformation"][0]["location"]["uri"] == uri
    (tmp_path / "sum.comp").write_text("\n" * 13 + "  x = a + nope;\n")
    (fresh,) = _open_at(OFF, uri, SHADER)
    assert fresh["diagnostics"][0]["relatedInformation"][0]["location"]["uri"] == (tmp_path / "sum.comp").as_uri()
    assert _open_at(on, uri, SHADER) == [before, fresh]  # the stale hit, then the analysis's answer
    assert _open_at(on, uri, SHADER) == [fresh]  # kept since


def test_a_document_opened_again_without_a_close_keeps_nothing_of_its_old_text(on):
    """spirv-val's result for the old text is not merged into the new text's diagnostics, nor kept
    for it in the cache."""
    bad = (SHADER.replace("%uint_1 = OpConstant %uint 1", "%uint_1 = OpConstant %uint 1\n%float = OpTypeFloat 32\n"
                          "%float_1 = OpConstant %float 1")
           .replace("OpIAdd %uint %uint_1 %nope", "OpBitwiseAnd %uint %uint_1 %float_1"))  # spirv-val's alone
    s = Server(env=on)
    try:
        s.initialize({}, {"validate": "onType"})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                           "text": bad}})
        s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and any(
            d["code"].startswith("spirv-val") for d in m["params"]["diagnostics"]), timeout=60)
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 2,
                                                           "text": SHADER}})
        again = _published(s, 2)["params"]
    finally:
        s.close()
    assert not any(d["code"].startswith("spirv-val") for d in again["diagnostics"])
    (fresh,) = _session(OFF, SHADER)
    assert again["diagnostics"] == fresh["diagnostics"]
    assert _session(on, SHADER)[0]["diagnostics"] == fresh["diagnostics"]
