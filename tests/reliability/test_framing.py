"""The stdio/TCP framer (spvls/transport.Framer) in process: however the bytes are cut into reads,
it reads the same messages, and a long body is read without searching it over and over."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spvls import transport

# Text that looks like framing inside a document: JSON escapes its newlines, so it is never a header.
TEXTS = ["OpNop", 'OpName %x "Content-Length: 12\\n"', "; Content-Length: 5\r\n\r\n{}", "é\u2028x" * 3, ""]


def _message(i: int, text: str) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "m", "params": {"text": text}}


def _frame(obj: dict, kind: str, delta: int) -> bytes:
    body = json.dumps(obj).encode()
    if kind == "headerless":
        return body
    length = len(body) + (delta if kind == "long" else -delta if kind == "short" else 0)
    return b"Content-Length: %d\r\n\r\n" % length + body


def _read(chunks: list[bytes]) -> list[object]:
    f = transport.Framer()
    out: list[object] = []
    for chunk in chunks:
        out += f.feed(chunk)
    return out + f.stalled()  # the end of the stream: what a pause would take


# A length too long by more than a header line (~20 bytes) reaches into the next message: when
# that one has no header, what is read of the two depends on how much has come (the framer finds
# the next header, or reads the bodies as one bad body). Off by less, or followed by a header,
# reads the same however it comes.
MESSAGES = st.lists(
    st.tuples(st.sampled_from(["good", "long", "short", "headerless"]), st.integers(1, 200), st.sampled_from(TEXTS)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(MESSAGES, st.lists(st.integers(0, 10_000), max_size=12))
def test_any_cut_reads_what_one_read_reads(messages, cuts) -> None:
    kinds = [kind for kind, _, _ in messages] + ["end"]
    stream = b"".join(
        _frame(_message(i, text), kind, delta if kinds[i + 1] != "headerless" else min(delta, 16))
        for i, (kind, delta, text) in enumerate(messages)
    )
    whole = _read([stream])
    points = sorted({c % (len(stream) + 1) for c in cuts})
    pieces = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    assert _read(pieces) == whole
    assert _read([stream[i : i + 1] for i in range(len(stream))]) == whole  # a byte at a time
    # Every well-framed message is read, whatever came before it.
    good = [_message(i, text) for i, (kind, _, text) in enumerate(messages) if kind == "good"]
    assert [m for m in whole if m in good] == good


class _Counting:
    """The header pattern, counting the bytes each search scans (up to its match, if any)."""

    def __init__(self, pattern) -> None:
        self.pattern, self.scanned = pattern, 0

    def match(self, data, *args):
        return self.pattern.match(data, *args)

    def search(self, data, pos=0, endpos=None):
        found = self.pattern.search(data, pos, *([] if endpos is None else [endpos]))
        end = found.end() if found else len(data) if endpos is None else min(endpos, len(data))
        self.scanned += end - pos
        return found


@pytest.mark.parametrize("line", ["               OpStore %x %y", '               OpName %x "a"'])
def test_a_long_body_in_many_reads_is_searched_once(monkeypatch, line) -> None:
    """A 4 MB didOpen arrives in 64 KB reads: the bytes that came are searched for a next header
    about once (searching all that had come after every read was quadratic: 0.6 s of CPU)."""
    counting = _Counting(transport._HEADER)
    monkeypatch.setattr(transport, "_HEADER", counting)
    msg = _message(1, (line + "\n") * 150_000)
    stream = _frame(msg, "good", 0) + _frame(_message(2, "OpNop"), "good", 0)
    f = transport.Framer()
    out: list[object] = []
    for i in range(0, len(stream), 65536):
        out += f.feed(stream[i : i + 65536])
    assert out == [msg, _message(2, "OpNop")]
    assert counting.scanned < 2 * len(stream), (counting.scanned, len(stream))


@pytest.mark.parametrize("n", [0, 1, 5, transport.INT_SLICE, transport.INT_SLICE + 3, 3 * transport.INT_SLICE - 1])
@pytest.mark.parametrize("result", [{}, {"resultId": "17"}])
def test_a_response_of_many_integers_is_framed_as_json_dumps_would(n, result):
    from array import array

    values = array("i", [(i * 7919) % 100_003 - 5 for i in range(n)])
    framed = b"".join(transport.response_with_ints(12, result, "data", values))
    head, body = framed.split(b"\r\n\r\n", 1)
    assert head == b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8" % len(body)
    want = {"jsonrpc": "2.0", "id": 12, "result": {**result, "data": list(values)}}
    assert json.loads(body) == want
    assert _read([framed[:7], framed[7:]]) == [want]  # and our own reader takes it whole


_SMALL = [(i * 37) % 256 for i in range(transport.INT_SLICE + 9)]  # every one under 256
# A few of 256 and more: their digits counted one by one (each width, at a slice's edges too)
_A_FEW_WIDE = [256, 999, 1000, 9999, 10000, 65535] + [i % 250 for i in range(transport.INT_SLICE - 7)] + [4096, 255, 7]
_MOSTLY_WIDE = [(i * 7919) % 65536 for i in range(2 * transport.INT_SLICE + 1)]


@pytest.mark.parametrize(
    "typecode, values",
    [
        ("B", []),
        ("B", [0]),
        ("B", _SMALL),
        ("B", [255, 9, 10, 99, 100] * 5),
        ("H", []),
        ("H", [0]),
        ("H", _SMALL),
        ("H", _A_FEW_WIDE),
        ("H", _MOSTLY_WIDE),
    ],
    ids=["8-empty", "8-zero", "8-small", "8-edges", "16-empty", "16-zero", "16-small", "16-a-few-wide", "16-mostly-wide"],
)
def test_an_8_or_16_bit_array_is_counted_and_framed_as_json_dumps_would(typecode, values):
    """The kept semantic tokens are 8- or 16-bit: their text's length is counted from their bytes, and
    must be the Content-Length of what is then written."""
    from array import array

    parts = list(transport.response_with_ints(3, {"resultId": "9"}, "data", array(typecode, values)))
    framed = b"".join(parts)
    head, body = framed.split(b"\r\n\r\n", 1)
    assert head == b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8" % len(body)
    assert body == json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"resultId": "9", "data": values}}).encode()
    assert max(map(len, parts)) < 8 * transport.INT_SLICE  # never the whole answer in one part
