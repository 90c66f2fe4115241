"""Issue 14.16-18: requests with invalid params, broken framing and bad settings are answered or
reported; the server keeps serving."""
import contextlib
import itertools
import json
import random
import socket

import pytest

from tests.reliability.rawlsp import Server

URI = "file:///tmp/p.spvasm"
TEXT = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def _started(tcp: bool = False) -> Server:
    s = Server(tcp=tcp)
    s.initialize()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": TEXT}})
    return s


@pytest.fixture(scope="module")
def shared_server():
    """One server answers every invalid request in turn, and must keep serving after each."""
    s = _started()
    yield s
    s.close()


@pytest.fixture(scope="module", params=["stdio", "tcp"])
def server(request):
    """One server over stdio and one over TCP: these tests break the byte stream on purpose, each
    in its own way, and each checks that the server reads its way back and answers. Sharing the
    server makes each test also start from a stream that every earlier test broke."""
    s = _started(tcp=request.param == "tcp")
    yield s
    s.close()


_ids = itertools.count(10**6)


def _fresh_id() -> int:
    """An id no earlier request on the shared server used, so an answer is never taken for another's."""
    return next(_ids)


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
def test_invalid_params_are_answered_with_invalid_params(shared_server, method, params, where):
    r = shared_server.request(method, params, timeout=20)
    assert r["error"]["code"] == -32602 and where in r["error"]["message"], r
    _hover_works(shared_server)


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


def _framed(obj: dict, header: bytes | None = None, delta: int = 0) -> bytes:
    body = json.dumps(obj).encode()
    return (header if header is not None else b"Content-Length: %d\r\n\r\n" % (len(body) + delta)) + body


def _hover(id_: int) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "textDocument/hover",
            "params": {"textDocument": DOC, "position": {"line": 0, "character": 3}}}


FRAMING = {
    "non-numeric length": b"Content-Length: ten\r\n\r\n",
    "missing length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
    "negative length": b"Content-Length: -40\r\n\r\n",
    "3 bytes short": -3,
    "3 bytes long": 3,
}


@pytest.mark.parametrize("name", FRAMING)
def test_broken_framing_resynchronises_and_answers(server, name):
    how, first, second = FRAMING[name], _fresh_id(), _fresh_id()
    bad = _framed(_hover(first), header=how) if isinstance(how, bytes) else _framed(_hover(first), delta=how)
    server.send_bytes(bad + _framed(_hover(second)))
    answers = {server.wait_for(lambda m: m.get("id") in (first, second), timeout=20)["id"] for _ in range(2)}
    assert answers == {first, second}  # the mis-framed request is read too
    _hover_works(server)


def test_random_bytes_are_skipped(server):
    noise = bytes(random.Random(14).randrange(256) for _ in range(300))
    id_ = _fresh_id()
    server.send_bytes(noise + _framed(_hover(id_)))
    assert "result" in server.wait_for(lambda m: m.get("id") == id_, timeout=20)
    _hover_works(server)


def test_a_length_too_long_on_the_last_message_does_not_hang(server):
    id_ = _fresh_id()
    server.send_bytes(_framed(_hover(id_), delta=5))  # nothing follows: the server must not wait forever
    assert "result" in server.wait_for(lambda m: m.get("id") == id_, timeout=20)
    _hover_works(server)


def test_header_like_text_inside_a_document_is_text(server):
    text = TEXT + '; Content-Length: 5\r\n\r\n{"x": 1}\nOpName %x "Content-Length: 12\\n"\n'
    server.notify("textDocument/didOpen", {"textDocument": {"uri": URI + "2", "languageId": "spvasm", "version": 1,
                                                            "text": text}})
    r = server.request("textDocument/documentSymbol", {"textDocument": {"uri": URI + "2"}})
    assert "result" in r
    _hover_works(server)


# (a line with one misspelt name, a line with the i-th distinct unknown name, where the name is,
# its diagnostic's message, the closest name)
PAST_THE_LIMIT = {
    "opcode": ("OpIAd", "OpFrob{}", (0, 5), "unknown instruction 'OpIAd'", "OpIAdd"),
    "enumerant": ("OpCapability Shadr", "OpCapability Frob{}", (13, 18), "unknown Capability 'Shadr'", "Shader"),
}


@pytest.mark.parametrize("kind", PAST_THE_LIMIT)
def test_a_quick_fix_finds_the_closest_name_past_the_did_you_mean_limit(shared_server, kind):
    """Issue 14.12: past SUGGEST_OPCODES_UP_TO distinct unknown opcodes (SUGGEST_NAMES_UP_TO unknown
    enumerants, extended instructions, OpSpecConstantOp opcodes) the diagnostics name no closest
    one; the quick fix looks it up when the editor asks."""
    from spvls.model.module import SUGGEST_NAMES_UP_TO, SUGGEST_OPCODES_UP_TO

    line, filler, (start, end), message, closest = PAST_THE_LIMIT[kind]
    s, uri = shared_server, f"file:///tmp/past-the-limit-{kind}.spvasm"  # a document of its own
    limit = max(SUGGEST_OPCODES_UP_TO, SUGGEST_NAMES_UP_TO)
    text = TEXT + line + "\n" + "".join(filler.format(i) + "\n" for i in range(limit))
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm", "version": 1, "text": text}})
    try:
        where = {"start": {"line": 2, "character": start}, "end": {"line": 2, "character": end}}
        r = s.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": where,
                                                  "context": {"diagnostics": []}})
        first = r["result"][0]
        assert (first["title"], first["isPreferred"]) == (f"Change to '{closest}'", True)
        assert first["diagnostics"][0]["message"] == message
        assert first["edit"]["changes"][uri] == [{"range": where, "newText": closest}]
    finally:
        s.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_a_tcp_client_that_leaves_mid_message_ends_the_server():
    """`spvls --tcp` serves one client: when it disconnects, even inside a body, the server exits
    rather than wait for bytes that never come."""
    s = Server(tcp=True)
    try:
        s.initialize()
        s.send_bytes(b"Content-Length: 500\r\n\r\n{\"jsonrpc\": ")
        s.sock.shutdown(socket.SHUT_RDWR)
        assert s.proc.wait(timeout=30) == 0
    finally:
        s.close()


def test_deeply_nested_messages_are_refused_and_the_server_goes_on(rng):
    """A message nested past transport.MAX_DEPTH (arrays, objects, generated mixes, up to 100,000
    levels) is answered with a parse error; one within it is read as ever. The server never dies
    of its parser's recursion."""
    from spvls.transport import MAX_DEPTH

    s = _started()
    try:
        for _ in range(12):
            depth = rng.choice([1, MAX_DEPTH - 10, MAX_DEPTH + 1, 1000, rng.randrange(2, 5000), 100_000])
            opens = "".join(rng.choice(['[', '{"a":']) for _ in range(depth))
            closes = "".join("]" if c == "[" else "}" for c in reversed(opens.replace('{"a":', "{")))
            id_ = _fresh_id()
            body = (f'{{"jsonrpc": "2.0", "id": {id_}, "method": "textDocument/hover", "params": '
                    f'{{"textDocument": {{"uri": "{URI}"}}, "position": {{"line": 0, "character": 3}}, '
                    f'"workDoneToken": 1, "deep": {opens}0{closes}}}}}').encode()  # rides in a hover's params
            s.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            if depth + 2 <= MAX_DEPTH:
                assert "OpCapability" in s.wait_for(lambda m, i=id_: m.get("id") == i)["result"]["contents"]["value"]
            else:
                r = s.wait_for(lambda m: m.get("id") is None and "error" in m and "method" not in m)
                assert r["error"]["code"] == -32700 and "nested more than" in r["error"]["message"]
            _hover_works(s)
    finally:
        s.close()


def test_tcp_serves_one_client(rng):
    """`spvls --tcp`: a second connection, while the first client is served, is closed at once
    without a byte of the first client's session; the first goes on."""
    s = Server(tcp=True)
    try:
        s.initialize()
        port = s.sock.getpeername()[1]
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                           "text": TEXT}})
        for _ in range(rng.randrange(1, 4)):
            with socket.create_connection(("127.0.0.1", port), timeout=30) as other:
                body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "textDocument/documentSymbol",
                                   "params": {"textDocument": {"uri": URI}}}).encode()
                with contextlib.suppress(OSError):  # closed already
                    other.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                got = b""
                try:
                    while chunk := other.recv(65536):
                        got += chunk
                except OSError:
                    pass
                assert got == b""
            _hover_works(s)
    finally:
        s.close()
