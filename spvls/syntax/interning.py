"""The parser's per-thread table of interned id tokens. A module of its own, left as Python by the
compiled build (tools/compiled.py): mypyc cannot compile a threading.local subclass."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .parser import Token


class Interned(threading.local):
    """The token made for each id at each column (a dict per column): an id written again at a column
    where it was before (a type, a label in the branches to it, a right-aligned result) shares that
    token, as tokens are immutable, and every token of an id shares one string (keeping only each
    id's last token would make a third more tokens in a generated module). Two lookups per id.
    Emptied after each document build or edit (forget_ids), so it keeps no document's tokens alive.
    One per thread: a large open is parsed in a worker thread while the loop parses edits."""

    def __init__(self) -> None:
        self.id_at: list[dict[str, Token]] = []  # by column
        self.last: dict[str, Token] = {}  # a token of each id: the string the others share
