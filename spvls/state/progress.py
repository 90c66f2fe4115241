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
        from lsprotocol import types as T

        ls.work_done_progress.end(token, T.WorkDoneProgressEnd(message=f"done in {time.perf_counter() - start:.1f} s"))

    return end


@contextmanager
def around(ls: Any, supported: bool, lines: int, title: str, message: str) -> Iterator[None]:
    """A progress (see begin) around the block."""
    end = begin(ls, supported, lines, title, message)
    try:
        yield
    finally:
        end()
