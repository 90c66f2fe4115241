"""The diagnostics cache on disk (spvls/state/cache.py), with the real server over stdio: a text
opened again is published at once from the cache, exactly as its analysis published it; an edited
text closed is kept for its next open; another setting, another spvls or a damaged entry is a miss;
a hit the analysis contradicts is published again. A document closed and opened again in the same
server goes through the cache on disk as a new server's open does (one server per test: each start
costs ~0.5 s of CPU)."""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import secrets
import shutil
import stat
from importlib import metadata
from pathlib import Path

import pytest

from spvls.spec import grammar
from spvls.state import cache
from tests.reliability.rawlsp import Server

DATA = Path(__file__).resolve().parents[1] / "data"
URI = "file:///tmp/spvls-cache.spvasm"
TEXT = (DATA / "rules" / "reconvergence-fail.spvasm").read_text()  # errors with related information
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


class Client:
    """One server with a cache of its own under tmp_path."""

    def __init__(self, tmp_path: Path, validate: str = "off", capabilities: dict | None = None):
        self.entries = tmp_path / "cache" / "diagnostics"
        self.s = Server(env={"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache")})
        self.s.initialize(capabilities or {}, {"validate": validate})

    def kept(self) -> list[Path]:
        """The entries (not the secret their HMACs are keyed with)."""
        return sorted(p for p in self.entries.iterdir() if p.name != "key")

    def open(self, text: str, uri: str = URI, version: int = 1) -> list[dict]:
        """Every publication for this open of `uri` (the last is what the client keeps)."""
        self.s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm",
                                                                "version": version, "text": text}})
        return self.settle(uri, version)

    def settle(self, uri: str, version: int) -> list[dict]:
        # An answered request means every notification before it was written.
        self.s.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        got = [m["params"] for m in self.s.notes if m.get("method") == "textDocument/publishDiagnostics"
               and m["params"]["uri"] == uri and m["params"].get("version") == version]
        self.s.notes.clear()
        return got

    def close(self, uri: str = URI) -> None:
        self.s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.s.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        self.s.notes.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.s.close()


def test_a_text_opened_again_is_published_from_the_cache_as_its_analysis_published_it(tmp_path):
    with Client(tmp_path) as c:
        (fresh,) = c.open(TEXT)  # a miss: analysed, published once, kept
        assert {d["code"] for d in fresh["diagnostics"]} >= {"reconvergence.kill",
                                                             "reconvergence.multiple-predecessors"}
        assert any(d.get("relatedInformation") for d in fresh["diagnostics"])
        (entry,) = c.kept()
        c.close()
        assert c.open(TEXT) == [fresh]  # a hit: the same, and nothing published after it
        c.close()
        data = bytearray(entry.read_bytes())
        data[-2] ^= 1  # damaged: a miss, analysed and kept again, whole
        entry.write_bytes(bytes(data))
        assert c.open(TEXT) == [fresh]
        assert entry.read_bytes() != bytes(data)


def test_an_edited_text_is_kept_at_its_close_and_settings_are_part_of_the_key(tmp_path):
    edit = "%bad = OpFrob\n"
    end = len(TEXT.split("\n")) - 1
    with Client(tmp_path) as c:
        c.open(TEXT)
        c.s.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"range": {"start": {"line": end, "character": 0},
                                          "end": {"line": end, "character": 0}}, "text": edit}]})
        (edited,) = c.settle(URI, 2)
        assert "operand.unknown-opcode" in {d["code"] for d in edited["diagnostics"]}
        c.close()
        assert len(list(c.kept())) == 2  # the text as opened, and as closed
        (hit,) = c.open(TEXT + edit)  # kept at the close: a hit, what the edit's analysis published
        assert hit["diagnostics"] == edited["diagnostics"]
        c.close()
        # Another target env: a key of its own (a miss, kept).
        c.s.notify("workspace/didChangeConfiguration", {"settings": {"spvls": {"targetEnv": "spv1.3"}}})
        c.open(TEXT)
        assert len(list(c.kept())) == 3


def test_a_hit_that_the_analysis_contradicts_is_published_again(tmp_path):
    """The related information points at the shader source once it exists beside the document: a
    cache kept before it existed shows the old link first, then the analysis's (and keeps that)."""
    uri = (tmp_path / "shader.spvasm").as_uri()
    with Client(tmp_path) as c:
        (before,) = c.open(SHADER, uri)
        assert before["diagnostics"][0]["relatedInformation"][0]["location"]["uri"] == uri
    (tmp_path / "sum.comp").write_text("\n" * 13 + "  x = a + nope;\n")
    with Client(tmp_path) as c:  # a new server: one remembers where a source file was for a few seconds
        stale, fresh = c.open(SHADER, uri)  # the stale hit, then the analysis's answer
        assert stale == before
        assert fresh["diagnostics"][0]["relatedInformation"][0]["location"]["uri"] == (tmp_path / "sum.comp").as_uri()
        c.close(uri)
        assert c.open(SHADER, uri) == [fresh]  # kept since


def test_a_document_opened_again_without_a_close_keeps_nothing_of_its_old_text(tmp_path):
    """spirv-val's result for the old text is not merged into the new text's diagnostics, nor kept
    for it in the cache."""
    bad = (SHADER.replace("%uint_1 = OpConstant %uint 1", "%uint_1 = OpConstant %uint 1\n%float = OpTypeFloat 32\n"
                          "%float_1 = OpConstant %float 1")
           .replace("OpIAdd %uint %uint_1 %nope", "OpBitwiseAnd %uint %uint_1 %float_1"))  # spirv-val's alone
    with Client(tmp_path, validate="onType") as c:
        c.s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                             "text": bad}})
        c.s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and any(
            d["code"].startswith("spirv-val") for d in m["params"]["diagnostics"]), timeout=60)
        again = c.open(SHADER, version=2)[0]
        assert again["diagnostics"] and not any(d["code"].startswith("spirv-val") for d in again["diagnostics"])
        c.close()
        assert c.open(SHADER)[0]["diagnostics"] == again["diagnostics"]  # the hit: what was kept for it


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


def test_the_stamp_changes_with_the_versions_of_the_packages_that_shape_the_answers(tmp_path, monkeypatch):
    installed = cache._installed(cache._DEPENDENCIES)
    assert sorted(tuple(n.removesuffix(".dist-info").split("-", 1)) for n in installed) == sorted(
        (name, metadata.version(name)) for name in cache._DEPENDENCIES
    )
    cache.stamp.cache_clear()
    try:
        before = cache.stamp()
        (tmp_path / "pygls-99.0.dist-info").mkdir()  # another pygls, first on the path
        monkeypatch.syspath_prepend(str(tmp_path))
        cache.stamp.cache_clear()
        assert cache.stamp() != before
    finally:
        cache.stamp.cache_clear()


@pytest.mark.parametrize("value, on", [("", True), ("0", True), ("1", False), ("yes", False)])
def test_spvls_no_cache(monkeypatch, value, on):
    monkeypatch.setenv("SPVLS_NO_CACHE", value)
    assert cache.enabled() is on


PULL = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}


def _pull(c: Client, uri: str = URI) -> list[dict]:
    return c.s.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]["items"]


def test_a_client_that_pulls_gets_a_text_opened_again_from_the_cache(tmp_path):
    """The pull right after the open is answered from the cache, before the analysis; the
    analysis then runs (the outline needs it) and agrees, so the client is not asked again."""
    with Client(tmp_path, capabilities=PULL) as c:
        c.s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                             "text": TEXT}})
        fresh = _pull(c)  # a miss: the analysis's
        assert {d["code"] for d in fresh} >= {"reconvergence.kill"}
        c.close()
        c.s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                             "text": TEXT}})
        assert _pull(c) == fresh
        c.s.wait_for(lambda m: m.get("method") == "window/logMessage"
                     and m["params"]["message"] == f"diagnostics of {URI} from the cache")
        assert c.s.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})["result"]
        assert _pull(c) == fresh and "workspace/diagnostic/refresh" not in c.s.asked


@pytest.mark.parametrize("confirmed_by", ["a request", "the timer"])
def test_a_pulled_answer_the_analysis_contradicts_makes_the_client_pull_again(tmp_path, confirmed_by):
    uri = (tmp_path / "shader.spvasm").as_uri()
    env = {"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": str(tmp_path / "cache")}
    for k in range(2):
        s = Server(env=env)
        try:
            s.initialize(PULL, {"validate": "off"})
            s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm", "version": 1,
                                                               "text": SHADER}})
            doc = {"textDocument": {"uri": uri}}
            if k == 1 and confirmed_by == "a request":
                # The pull and the outline sent with the open, so both are read well within the
                # 50 ms the timer waits: the outline's model, not the timer, confirms the answer.
                s.send({"jsonrpc": "2.0", "id": 901, "method": "textDocument/diagnostic", "params": doc})
                s.send({"jsonrpc": "2.0", "id": 902, "method": "textDocument/documentSymbol", "params": doc})
                got = s.wait_for(lambda m: m.get("id") == 901 and "method" not in m)["result"]["items"]
            else:
                got = s.request("textDocument/diagnostic", doc)["result"]["items"]
            where = got[0]["relatedInformation"][0]["location"]["uri"]
            if k == 0:
                assert where == uri
                (tmp_path / "sum.comp").write_text("\n" * 13 + "  x = a + nope;\n")
                continue
            assert where == uri  # the cache's answer, kept before the source file existed
            if confirmed_by == "a request":
                # The refresh request comes before the outline's answer.
                assert s.wait_for(lambda m: m.get("id") == 902 and "method" not in m)["result"]
                assert s.asked == ["workspace/diagnostic/refresh"]
            else:  # nothing asked: the analysis runs CONFIRM_AFTER the open by itself
                # Its refresh may come before the pull's answer is written (the pull runs as a task,
                # its answer sent an iteration later), when the request above answered it already.
                if not s.asked:
                    s.wait_for(lambda m: m.get("method") == "workspace/diagnostic/refresh", timeout=10)
                assert s.asked == ["workspace/diagnostic/refresh"]
            again = s.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]["items"]
            assert again[0]["relatedInformation"][0]["location"]["uri"] == (tmp_path / "sum.comp").as_uri()
        finally:
            s.close()


# -- what the cache trusts: nothing it reads (each class with generated inputs) ----------------
def _entries(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("SPVLS_NO_CACHE", "")
    monkeypatch.setenv("SPVLS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "diagnostics"


GOOD = [{"range": {"start": {"line": 3, "character": 1}, "end": {"line": 3, "character": 9}}, "message": "m",
         "severity": 1, "code": "id.undefined", "source": "spvls",
         "codeDescription": {"href": "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html"},
         "relatedInformation": [{"location": {"uri": URI, "range": {"start": {"line": 0, "character": 0},
                                                                   "end": {"line": 0, "character": 2}}},
                                 "message": "defined here"}],
         "data": {"fixes": 1}}]


def test_the_cache_is_private_to_the_user(tmp_path, monkeypatch):
    d = _entries(tmp_path, monkeypatch)
    k = cache.key("text", 1)
    cache.put(k, GOOD)
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in d.iterdir()} == {k: 0o600, "key": 0o600}
    assert cache.get(k, URI) == GOOD
    d.chmod(0o755)  # opened up by someone: closed again before use
    assert cache.get(k, URI) == GOOD and stat.S_IMODE(d.stat().st_mode) == 0o700


def test_an_entry_not_made_with_the_users_secret_is_a_miss(tmp_path, monkeypatch, rng):
    """Entries written by whoever can write the directory, without the secret: random bytes,
    the right JSON under an unkeyed or wrong MAC, another key's entry moved here, any byte of a
    good entry changed or cut off. None is taken."""
    d = _entries(tmp_path, monkeypatch)
    k, other = cache.key("text", 1), cache.key("other", 1)
    cache.put(k, GOOD)
    cache.put(other, GOOD[:0])
    good = (d / k).read_bytes()
    body = json.dumps(GOOD).encode()
    forged = [
        hashlib.sha256(body).digest() + body,
        hmac.new(secrets.token_bytes(32), k.encode() + b"\0" + body, hashlib.sha256).digest() + body,
        (d / other).read_bytes(),
    ]
    for _ in range(200):
        data = bytearray(good)
        n = rng.randrange(4)
        if n == 0:
            data[rng.randrange(len(data))] ^= rng.randrange(1, 256)
        elif n == 1:
            del data[rng.randrange(len(data)):]
        elif n == 2:
            data = bytearray(rng.randbytes(rng.randrange(1, 300)))
        else:
            data = bytearray(rng.choice(forged))
        (d / k).write_bytes(bytes(data))
        assert cache.get(k, URI) is None, bytes(data[:80])


def test_only_diagnostics_come_out_of_an_entry(tmp_path, monkeypatch, rng):
    """An entry with the right MAC (as if the secret leaked) holding anything but the server's
    diagnostics is a miss: a field the server never sends (a command, an edit), a value of another
    type, a link that is not a specification's, a location outside files, a message too large."""
    d = _entries(tmp_path, monkeypatch)
    k = cache.key("text", 2)
    cache.put(k, GOOD)
    secret = (d / "key").read_bytes()
    assert cache.get(k, URI) == GOOD
    bad_values = [None, True, -1, 2 ** 40, 1.5, "", "x" * 70_000, [], {}, {"jsonrpc": "2.0", "method": "workspace/applyEdit"},
                  "javascript:alert(1)", "http://example.com/x.png", "file:///" + "a" * 5000]
    paths = [("message",), ("severity",), ("code",), ("source",), ("codeDescription", "href"), ("data", "fixes"),
             ("range", "start", "line"), ("relatedInformation", 0, "location", "uri"),
             ("relatedInformation", 0, "message"), ("command",), ("edit",), ("range", "extra")]
    for _ in range(200):
        value = copy.deepcopy(GOOD)
        path = rng.choice(paths)
        new = rng.choice(bad_values)
        target = value[0]
        for part in path[:-1]:
            target = target[part]
        if target.get(path[-1], object()) == new or (path[-1] == "uri" and new == URI):
            continue
        target[path[-1]] = new
        if path[-1] == "message" and isinstance(new, str) and len(new) < 70_000:
            continue  # any string of modest size is a message
        body = json.dumps(value).encode()
        (d / k).write_bytes(cache._mac(secret, k, body) + body)
        assert cache.get(k, URI) is None, (path, new)
    deep = b"[" * 100_000 + b"]" * 100_000
    (d / k).write_bytes(cache._mac(secret, k, deep) + deep)
    assert cache.get(k, URI) is None


def test_an_entry_that_is_not_a_file_is_never_read(tmp_path, monkeypatch, rng):
    """A FIFO (reading it would wait forever), a link to /dev/zero (endless), a directory, an entry
    over the size limit: a miss, at once."""
    d = _entries(tmp_path, monkeypatch)
    keys = [cache.key(str(i), 3) for i in range(4)]
    cache.put(keys[0], GOOD)
    order = list(range(4))
    rng.shuffle(order)
    for i in order:
        p = d / keys[i]
        p.unlink(missing_ok=True)
        if i == 0:
            os.mkfifo(p, 0o600)
        elif i == 1:
            p.symlink_to("/dev/zero")
        elif i == 2:
            p.mkdir(mode=0o700)
        else:
            with open(p, "wb") as f:
                f.truncate(cache.MAX_BYTES + 1)
        assert cache.get(keys[i], URI) is None


def test_a_shared_cache_directory_of_another_user_is_not_used(tmp_path, monkeypatch):
    """SPVLS_CACHE_DIR pointing where the diagnostics directory is a link elsewhere: not used."""
    d = _entries(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    d.parent.mkdir(parents=True)
    d.symlink_to(elsewhere)
    k = cache.key("text", 4)
    cache.put(k, GOOD)
    assert list(elsewhere.iterdir()) == [] and cache.get(k, URI) is None
