"""Long work off the event loop, with the real server over stdio: a large module's open is built
and checked in a worker thread while other requests are answered; a request that waits on it, or
runs long itself, is cancelled by `$/cancelRequest`; an edit sent during the open is applied after
it, in order. Order of events, never timings: an answer that comes before the open's diagnostics
was not held up by the open."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.reliability.rawlsp import Server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

SMALL = "file:///tmp/bg-small.spvasm"
BIG = "file:///tmp/bg-big.spvasm"
SMALL_TEXT = (Path(__file__).resolve().parents[1] / "data" / "rules" / "reconvergence-fail.spvasm").read_text()
CANCELLED, CONTENT_MODIFIED = -32800, -32801


def _open(s: Server, uri: str, text: str, version: int = 1) -> None:
    s.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm", "version": version, "text": text}}
    )


def _request(s: Server, id_: int, method: str, params: dict) -> None:
    s.send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def _events(s: Server, wanted: dict[str, object], timeout: float = 600) -> list[str]:
    """The names of `wanted`'s events in the order they arrive, until all have: each name maps to
    a request id (its answer) or to ("diagnostics", uri) (a publication)."""
    order: list[str] = []
    answers: dict[str, dict] = {}

    def seen(m: dict) -> bool:
        for name, what in wanted.items():
            if name in answers:
                continue
            if isinstance(what, tuple):
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == what[1]:
                    answers[name] = m
                    order.append(name)
            elif m.get("id") == what and "method" not in m:
                answers[name] = m
                order.append(name)
        return len(order) == len(wanted)

    s.wait_for(seen, timeout)
    _events.answers = answers  # type: ignore[attr-defined]
    return order


def test_requests_are_answered_during_a_large_open_and_an_edit_during_it_follows_it(rng):
    lines = 100_000
    big = module(lines)
    s = Server()
    try:
        s.initialize({}, {"validate": "off"})
        _open(s, SMALL, SMALL_TEXT)
        assert s.request("textDocument/documentSymbol", {"textDocument": {"uri": SMALL}})["result"]
        small_lines = SMALL_TEXT.split("\n")
        _open(s, BIG, big)
        hovers = {}
        for k in range(rng.randrange(1, 6)):  # hovers at generated places in the small document
            line = rng.randrange(len(small_lines))
            pos = {"line": line, "character": rng.randrange(len(small_lines[line]) + 1)}
            _request(s, 100 + k, "textDocument/hover", {"textDocument": {"uri": SMALL}, "position": pos})
            hovers[f"hover {k}"] = 100 + k
        # The big module's outline waits for its open; a second one is cancelled while it waits.
        _request(s, 200, "textDocument/documentSymbol", {"textDocument": {"uri": BIG}})
        _request(s, 201, "textDocument/documentSymbol", {"textDocument": {"uri": BIG}})
        s.notify("$/cancelRequest", {"id": 201})
        # An edit sent during the open: applied once the open is built, so the diagnostics say so.
        end = len(big.split("\n")) - 1
        s.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": BIG, "version": 2},
                "contentChanges": [
                    {
                        "range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}},
                        "text": "%bad = OpFrob\n",
                    }
                ],
            },
        )
        order = _events(s, {**hovers, "cancelled": 201, "big diagnostics": ("diagnostics", BIG), "outline": 200})
        got = _events.answers  # type: ignore[attr-defined]
        assert set(order[: len(hovers) + 1]) == {*hovers, "cancelled"}, order
        assert order[-2:] == ["big diagnostics", "outline"], order
        assert all("result" in got[h] for h in hovers)
        assert got["cancelled"]["error"]["code"] == CANCELLED
        published = got["big diagnostics"]["params"]
        assert published["version"] == 2
        assert [d["code"] for d in published["diagnostics"]] == ["operand.unknown-opcode"]
        assert published["diagnostics"][0]["range"]["start"]["line"] == end
        assert len(got["outline"]["result"]) > 100
    finally:
        s.close()


def test_a_document_closed_during_its_open_is_dropped_and_the_server_goes_on():
    s = Server()
    try:
        s.initialize({}, {"validate": "off"})
        # Not the first open, which server.early checks before pygls (and before reading on): this
        # one is built off the loop.
        _open(s, SMALL, SMALL_TEXT)
        s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)
        s.notify("textDocument/didClose", {"textDocument": {"uri": SMALL}})
        s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=120)
        _open(s, BIG, module(30_000))
        _request(s, 300, "textDocument/foldingRange", {"textDocument": {"uri": BIG}})
        s.notify("textDocument/didClose", {"textDocument": {"uri": BIG}})
        folding = s.wait_for(lambda m: m.get("id") == 300 and "method" not in m, timeout=300)
        assert folding["result"] is None  # closed before its open was built: nothing to fold
        closed = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=300)
        assert closed["params"] == {"uri": BIG, "diagnostics": []}
        _open(s, SMALL, SMALL_TEXT)
        assert s.request("textDocument/documentSymbol", {"textDocument": {"uri": SMALL}})["result"]
        assert s.request("textDocument/documentSymbol", {"textDocument": {"uri": BIG}})["result"] is None
    finally:
        s.close()


def test_a_long_request_is_cancelled_and_a_stale_one_is_refused():
    """Tokens of a 30k-line module run off the loop: cancelled, the answer is RequestCancelled at
    once; a request whose document is edited while it runs answers ContentModified (or its result,
    when it finished first)."""
    s = Server()
    try:
        s.initialize({}, {"validate": "off"})
        _open(s, BIG, module(30_000))
        assert s.request("textDocument/documentSymbol", {"textDocument": {"uri": BIG}}, timeout=300)["result"]
        _request(s, 400, "textDocument/semanticTokens/full", {"textDocument": {"uri": BIG}})
        s.notify("$/cancelRequest", {"id": 400})
        _request(s, 401, "textDocument/semanticTokens/full", {"textDocument": {"uri": BIG}})
        s.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": BIG, "version": 2},
                "contentChanges": [
                    {
                        "range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 0}},
                        "text": "; a comment\n",
                    }
                ],
            },
        )
        cancelled = s.wait_for(lambda m: m.get("id") == 400 and "method" not in m, timeout=300)
        assert cancelled["error"]["code"] == CANCELLED
        stale = s.wait_for(lambda m: m.get("id") == 401 and "method" not in m, timeout=300)
        assert stale.get("error", {}).get("code") == CONTENT_MODIFIED or len(stale["result"]["data"]) > 1000
        fresh = s.request("textDocument/semanticTokens/full", {"textDocument": {"uri": BIG}}, timeout=300)
        assert len(fresh["result"]["data"]) > 1000
    finally:
        s.close()
