"""LSP work-done progress ($/progress) around work that takes long enough to notice."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# Opening and checking runs at about 70,000 lines a second here: past this, over a quarter second.
LINES = 20_000
_tokens = itertools.count(1)


def _nothing() -> None:
    pass


def begin(ls: Any, supported: bool, lines: int, title: str, message: str) -> Callable[[], None]:
    """Begin a progress, when the client takes server-initiated progress and the work is large;
    returns what ends it. The create request is sent first; the client handles messages in order,
    so it knows the token when the begin arrives."""
    if not supported or lines < LINES:
        return _nothing
    from lsprotocol import types as T

    token = f"spvls-{next(_tokens)}"
    ls.work_done_progress.create(token)
    ls.work_done_progress.begin(token, T.WorkDoneProgressBegin(title=title, message=message, cancellable=False))
    start = time.perf_counter()

    def end() -> None:
        ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=_done(start)))

    return end


def begin_raw(
    send: Callable[[dict[str, Any]], None], supported: bool, lines: int, title: str, message: str
) -> tuple[str | None, Callable[[], None]]:
    """begin() without the protocol library (server.early): the messages as the wire has them, each
    given to `send`. Returns the create request's id (None: no progress), and what ends it."""
    if not supported or lines < LINES:
        return None, _nothing
    token = f"spvls-{next(_tokens)}"
    ident = f"{token}-create"
    send({"jsonrpc": "2.0", "id": ident, "method": "window/workDoneProgress/create", "params": {"token": token}})
    value = {"kind": "begin", "title": title, "message": message, "cancellable": False}
    send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": value}})
    start = time.perf_counter()

    def end() -> None:
        value = {"kind": "end", "message": _done(start)}
        send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": value}})

    return ident, end


def checking(uri: str, lines: int) -> str:
    """The message of an open's progress."""
    return f"checking {uri.rsplit('/', 1)[-1]} ({lines:,} lines)"


def _done(start: float) -> str:
    return f"done in {time.perf_counter() - start:.1f} s"


@contextmanager
def around(ls: Any, supported: bool, lines: int, title: str, message: str) -> Iterator[None]:
    """A progress (see begin) around the block."""
    end = begin(ls, supported, lines, title, message)
    try:
        yield
    finally:
        end()
