"""The LSP base protocol over a byte stream: `Content-Length: N`, a blank line, N bytes of JSON.

pygls' reader trusts every header: a wrong length, a missing one or stray bytes leave it reading
the wrong bytes as headers or bodies, and a request is never answered (or the server waits for
bytes that never come). This reader resynchronises on the next header and keeps every message it
can: a body whose length was a few bytes off, or that came without a valid header, is still read.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
from array import array
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    import asyncio

# A header line ends with a raw newline, which no JSON string holds, and has no quote, which ends
# every JSON string: "Content-Length:" inside a document's text is never taken for a header.
_HEADER = re.compile(rb'content-length[ \t]*:[^\r\n"]*\r?\n', re.IGNORECASE)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
_MAX_HEADER = 8192  # a header block longer than this is not one
_MAX_JUNK = 1 << 20  # bytes kept while no header is in sight
# Arrays and objects inside one another a message may hold: LSP's deepest (a setting's value, a
# client's `data`) are a few levels; past this a message is refused with a parse error, where the
# parser's recursion would otherwise end the server.
MAX_DEPTH = 100
_decoder = json.JSONDecoder()


class TooDeep(ValueError):
    """A JSON value nested deeper than MAX_DEPTH."""


class Refused(NamedTuple):
    """A message framed whole but not read (too deep): answered with a parse error."""

    reason: str


def _depth_within(value: object, limit: int) -> bool:
    """Whether no array or object in value lies more than `limit` levels deep (without recursion)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            items: Iterable[object] = v.values()
        elif isinstance(v, list):
            items = v
        else:
            continue
        if depth > limit:
            return False
        stack.extend((x, depth + 1) for x in items if isinstance(x, (dict, list)))
    return True


def parse(data: bytes | str) -> object:
    """json.loads, refusing a value nested deeper than MAX_DEPTH (TooDeep, a ValueError)."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeep(f"a message nested more than {MAX_DEPTH} levels deep: not read") from None
    if not _depth_within(value, MAX_DEPTH):
        raise TooDeep(f"a message nested more than {MAX_DEPTH} levels deep: not read")
    return value


class Framer:
    """Cuts a byte stream into JSON values. `feed` what arrives; `stalled` when nothing has
    arrived for a while (a body shorter than its Content-Length is then taken if it is whole)."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.pending = b""  # a body that did not parse: bytes after it may complete it
        self.problems: list[str] = []  # what went wrong, for the log
        # While a body is on its way, buf[:searched] holds no next header, and one that arrives
        # cannot start before resume: only what arrived since is searched (a large body comes in many
        # reads, and searching all of it after each read is quadratic).
        self.searched = self.resume = 0

    def _drop(self, n: int) -> None:
        del self.buf[:n]
        self.searched = self.resume = 0

    def feed(self, data: bytes) -> list[object]:
        self.buf += data
        return self._cut()

    def stalled(self) -> list[object]:
        out: list[object] = []
        head = _HEADER.match(self.buf)
        end = _HEADER_END.search(self.buf) if head else None
        if end is not None:
            whole = _whole_json(bytes(self.buf[end.end() :]))
            if whole is not None:
                self.problems.append("a body shorter than its Content-Length: read what came")
                out.append(whole[0])
                self._drop(end.end() + whole[1])
                out += self._cut()
        elif self.buf and not head:
            keep = _header_prefix(self.buf)
            out += self._junk(bytes(self.buf[: len(self.buf) - keep]))
            self._drop(len(self.buf) - keep)
        return out

    def _cut(self) -> list[object]:
        out: list[object] = []
        buf = self.buf
        while buf:
            head = _HEADER.search(buf)
            if head is None:
                if len(buf) > _MAX_JUNK:
                    out += self._junk(bytes(buf[:-16]))
                    self._drop(len(buf) - 16)
                break
            if head.start() > 0:
                out += self._junk(bytes(buf[: head.start()]))
                self._drop(head.start())
                continue
            end = _HEADER_END.search(buf, 0, _MAX_HEADER)
            if end is None:
                if len(buf) < _MAX_HEADER:
                    break  # the rest of the header is on its way
                self.problems.append("a header without its blank line: skipped")
                self._drop(head.end())
                continue
            m = _LENGTH.search(buf, 0, end.start())
            if m is None:
                value = bytes(buf[head.start() : head.end()]).split(b":", 1)[1].strip()
                self.problems.append(
                    f"a Content-Length that is not a length ({value[:40]!r}): skipped to the next header"
                )
                self._drop(end.end())  # the body, if any, is read as stray bytes before the next header
                continue
            start, length = end.end(), int(m.group(1))
            if len(buf) - start < length:
                later = self._later_header(start)
                if later is None:
                    break  # the body is on its way (or stalled() takes it)
                self.problems.append("a Content-Length longer than its body: read up to the next header")
                out += self._junk(bytes(buf[start : later.start()]))
                self._drop(later.start())
                continue
            body = bytes(buf[start : start + length])
            try:
                out.append(parse(body))
                self._drop(start + length)
                continue
            except TooDeep as e:
                self.problems.append(str(e))
                out.append(Refused(str(e)))
                self._drop(start + length)
                continue
            except ValueError:
                pass
            whole = _whole_json(body)
            if whole is not None and _header_prefix(body[whole[1] :].lstrip(), whole_rest=True):
                self.problems.append("a Content-Length longer than its body: read up to the next header")
                out.append(whole[0])
                self._drop(start + whole[1])
                continue
            self.problems.append("a body that is not JSON, or shorter than its Content-Length")
            self.pending = body
            self._drop(start + length)
        return out

    def _later_header(self, start: int) -> re.Match[bytes] | None:
        """The first header in buf after start, where the body begins. A header line holds no
        quote and no raw newline but the one that ends it, so a header not in buf[:searched]
        ends after it and starts after its last quote or newline."""
        buf, seen = self.buf, max(start, self.searched)
        no_newline = seen > start and buf.find(b"\n", seen) < 0  # then no header has ended
        found = None if no_newline else _HEADER.search(buf, max(start, self.resume))
        if found is None:
            last = max(buf.rfind(b"\n", seen), buf.rfind(b'"', seen))
            self.resume = max(self.resume, start, last + 1)
            self.searched = len(buf)
        return found

    def _junk(self, junk: bytes) -> list[object]:
        """Bytes between messages: the rest of a body cut short, a message without a valid
        header, or noise."""
        if self.pending:
            pending, self.pending = self.pending, b""
            try:
                return [parse(pending + junk)]
            except ValueError:
                pass
        brace = junk.find(b"{")
        whole = _whole_json(junk[brace:]) if brace >= 0 else None
        if whole is not None and isinstance(whole[0], dict) and "jsonrpc" in whole[0]:
            self.problems.append("a message without a valid Content-Length: read it")
            return [whole[0]]
        if junk.strip():
            self.problems.append(f"skipped {len(junk)} bytes that are not a message")
        return []


def _whole_json(data: bytes) -> tuple[object, int] | None:
    """A complete JSON value at the start of data, and the bytes it takes."""
    try:
        text = data.decode("utf-8")
        value, end = _decoder.raw_decode(text.lstrip())
    except (ValueError, RecursionError):
        return None
    if not _depth_within(value, MAX_DEPTH):
        return None
    skipped = len(text) - len(text.lstrip())
    return value, len(text[: skipped + end].encode("utf-8"))


def _header_prefix(data: bytes | bytearray, whole_rest: bool = False) -> int | bool:
    """With whole_rest: whether data is empty or starts a header. Else: how many bytes at the
    end of data may be the start of a header split across reads."""
    name = b"content-length:"
    if whole_rest:
        low = bytes(data[: len(name)]).lower()
        return not data or name.startswith(low) or low.startswith(name)
    tail = bytes(data[-len(name) :]).lower()
    for k in range(len(tail), 0, -1):
        if name.startswith(tail[-k:]):
            return k
    return 0


STALL = 0.5  # seconds without bytes before a short body is taken as it is
# dispatch(messages) handles the last message of the list, popped off it first: the message is then
# held by its handler alone, which may let a large part of it go (an opened document's text, once
# its Document is built, so a large text is not held through the analysis).
Dispatch = Callable[[list[object]], None]


class Stop(Protocol):
    def is_set(self) -> bool: ...


async def _pump(
    stop: Stop,
    next_chunk: Callable[[], Awaitable[bytes]],
    dispatch: Dispatch,
    problem: Callable[[str], None],
    framer: Framer | None = None,
    first: Sequence[object] = (),
) -> None:
    """Frame what next_chunk() brings until it brings b"" (the end) or stop is set. A reader that
    took over from another (server.early) passes its framer and the messages it left."""
    import asyncio

    framer = framer or Framer()
    messages = list(first)
    while True:
        messages.reverse()
        while messages:
            left = len(messages)
            dispatch(messages)
            if len(messages) == left:  # a dispatch that did not take its message must not spin
                messages.pop()
            # A request run as a task (server.background) takes its snapshot now, before the next
            # message (an edit) is handled.
            await asyncio.sleep(0)
        if stop.is_set():
            return
        try:
            data = await asyncio.wait_for(next_chunk(), STALL)
        except asyncio.TimeoutError:
            messages = framer.stalled()
        else:
            if not data:
                break
            messages = framer.feed(data)
        for text in framer.problems:
            problem(text)
        framer.problems.clear()


INT_SLICE = 1 << 13  # integers written as text at a time
# Each byte value's length as decimal text, as a byte (the table bytes.translate takes).
_DIGITS = bytes(len(str(v)) for v in range(256))
_LOW = 0 if sys.byteorder == "little" else 1  # where a 16-bit integer's low byte is


def _text_len(values: Sequence[int]) -> int:
    """len(str(list(values))) - 2 (the integers and their ", " as JSON), without that text for an
    8- or 16-bit array: the (low) bytes' digit counts by one bytes.translate, the few integers of
    256 or more counted one by one (no text made for the millions of integers of a large answer)."""
    if not isinstance(values, array) or values.typecode not in "BH" or not values:
        return max(len(str(list(values))) - 2, 0)
    if values.typecode == "B":
        counts = values.tobytes().translate(_DIGITS)
        return len(counts) + counts.count(2) + 2 * counts.count(3) + 2 * (len(counts) - 1)
    raw = values.tobytes()
    high = raw[1 - _LOW :: 2]
    big = len(high) - high.count(0)
    if big * 16 > len(high):
        return len(str(list(values))) - 2
    counts = raw[_LOW::2].translate(_DIGITS)
    n = len(counts) + counts.count(2) + 2 * counts.count(3) + 2 * (len(counts) - 1)
    if big:
        for m in _NONZERO.finditer(high):
            i = m.start()
            n += len(str(values[i])) - counts[i]
    return n


_NONZERO = re.compile(rb"[^\x00]")


def response_with_ints(msg_id: object, result: dict[str, object], key: str, values: Sequence[int]) -> Iterator[bytes]:
    """A response, framed for the wire, in parts to write one after the other, whose result holds
    many integers under `key` (a 100k-line module's semantic tokens are 2M). The integers are
    written as text a slice at a time, their length counted before (_text_len) so the header goes
    first: json.dumps would want them as a list, which the converter copies, then the body, the
    header joined to it and their bytes, several copies of a large answer at once, where this
    holds one slice's text."""
    fields = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in result.items())
    head = f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": {{{fields}{json.dumps(key)}: ['.encode()
    slices = range(0, len(values), INT_SLICE)
    length = len(head) + sum(_text_len(values[i : i + INT_SLICE]) for i in slices) + 2 * max(len(slices) - 1, 0) + 3
    yield _FRAME_HEAD % length + head
    for i in slices:
        text = str(list(values[i : i + INT_SLICE]))  # "[1, 2, 3]": JSON already
        yield (text[1:-1] if not i else ", " + text[1:-1]).encode()
    yield b"]}}"


def response_with_raw(msg_id: object, raw: bytes) -> bytes:
    """A response, framed for the wire, whose result is JSON kept as bytes, written as it is."""
    body = f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": '.encode() + raw + b"}"
    return _FRAME_HEAD % len(body) + body


def notification_with_raw(method: str, fields: dict[str, object], key: str, raw: bytes) -> bytes:
    """A notification, framed for the wire, whose params hold `fields` and, under `key`, JSON kept
    as bytes (state/cache.py's diagnostics), written as it is."""
    head = "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in fields.items())
    body = f'{{"jsonrpc": "2.0", "method": {json.dumps(method)}, "params": {{{head}{json.dumps(key)}: '.encode()
    body += raw + b"}}"
    return _FRAME_HEAD % len(body) + body


def framed(message: dict[str, object]) -> bytes:
    """A message, framed for the wire."""
    body = json.dumps(message).encode()
    return _FRAME_HEAD % len(body) + body


_FRAME_HEAD = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"


async def serve(
    stop: Stop,
    stdin: Any,
    dispatch: Dispatch,
    problem: Callable[[str], None],
    framer: Framer | None = None,
    first: Sequence[object] = (),
) -> None:
    """Read stdin until EOF or stop is set, handing each message to dispatch (`first` first)."""
    import asyncio

    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def read() -> None:  # a daemon thread: a read blocked at exit never holds the process
        while True:
            data = stdin.read1(65536)
            loop.call_soon_threadsafe(chunks.put_nowait, data)
            if not data:
                return

    threading.Thread(target=read, name="spvls-stdin", daemon=True).start()
    await _pump(stop, chunks.get, dispatch, problem, framer, first)


def serve_tcp(
    stop: Stop,
    host: str,
    port: int,
    connected: Callable[[asyncio.StreamWriter], None],
    dispatch: Dispatch,
    problem: Callable[[str], None],
) -> None:
    """Serve one client over TCP, read as stdin is; when it disconnects (or stop is set), return.
    `connected(writer)` is told where to write. pygls' own TCP reader hangs on a bad header. A
    connection made while the client is served is closed at once: it would receive the client's
    answers and could read its documents."""
    import asyncio

    served = False

    async def main() -> None:
        async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal served
            if served:
                problem(f"a second connection (from {writer.get_extra_info('peername')}) refused: one client is served")
                writer.close()
                return
            served = True
            connected(writer)
            try:
                await _pump(stop, lambda: reader.read(65536), dispatch, problem)
            except ConnectionError as e:
                problem(f"the connection broke: {e}")
            finally:
                writer.close()
                listener.close()  # one client, as pygls serves: its leaving ends the server

        listener = await asyncio.start_server(client, host, port)
        async with listener:
            with contextlib.suppress(asyncio.CancelledError):
                await listener.serve_forever()

    asyncio.run(main())
