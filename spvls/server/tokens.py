"""Semantic tokens: whole, as a delta from the last sent (kept in the session), or for a range."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from ..features import tokens
from ..state.documents import Snapshot
from .background import background
from .base import Handler, analysis, guard, positions
from .convert import Positions

if TYPE_CHECKING:
    from .app import SpvServer

_result_ids = itertools.count(1)


def _full(ls: SpvServer, uri: str) -> tokens.Sent | None:
    """The document's tokens, remembered under a new result id for the next delta request."""
    a = analysis(ls, uri)
    if a is None:
        return None
    at = positions(ls, a)
    data, counts = tokens.encode(at.doc.texts, tokens.iter_tokens(a.module), at.from_cp)
    ls.session.state(uri).tokens = sent = tokens.Sent(str(next(_result_ids)), data, counts, a.module)
    return sent


def full_tokens(snap: Snapshot, params: T.SemanticTokensParams) -> tuple[Any, Any]:
    """In a worker thread: the document's tokens, LSP-encoded, and each line's count."""
    at = Positions(snap.doc, snap.encoding)
    return tokens.encode(snap.doc.texts, tokens.iter_tokens(snap.module), at.from_cp)


def _sent(ls: SpvServer, snap: Snapshot, params: T.SemanticTokensParams, found: tuple[Any, Any]) -> T.SemanticTokens:
    """On the loop: the tokens remembered under a new result id for the next delta request. The
    kept array itself is sent, not a copy: no delta can splice it before the client has its
    result id (see app._Protocol._send_data)."""
    data, counts = found
    ls.session.state(snap.uri).tokens = sent = tokens.Sent(str(next(_result_ids)), data, counts, snap.module)
    return T.SemanticTokens(data=sent.data, result_id=sent.result_id)  # type: ignore[arg-type]


full = background(full_tokens, _sent)


@guard
def delta(ls: SpvServer, params: T.SemanticTokensDeltaParams) -> T.SemanticTokens | T.SemanticTokensDelta | None:
    """After an edit, only what changed: a 100k-line module's tokens are megabytes of JSON."""
    uri = params.text_document.uri
    opened = ls.session.opened.get(uri)
    before = opened.tokens if opened else None
    if before is not None and before.result_id == params.previous_result_id:
        a = analysis(ls, uri)
        edit = tokens.splice(before, a.module, positions(ls, a).from_cp) if a is not None else None
        if edit is not None:  # only the lines edited since: milliseconds at 100k lines
            before.result_id = str(next(_result_ids))
            edits = [T.SemanticTokensEdit(*edit)] if edit[1] or edit[2] else []
            return T.SemanticTokensDelta(edits=edits, result_id=before.result_id)
    sent = _full(ls, uri)
    if sent is None:
        return None
    if before is None or before.result_id != params.previous_result_id:
        return T.SemanticTokens(data=sent.data, result_id=sent.result_id)  # type: ignore[arg-type]
    start, deleted, inserted = tokens.delta(before.data, sent.data)
    edits = [T.SemanticTokensEdit(start, deleted, inserted)] if deleted or inserted else []
    return T.SemanticTokensDelta(edits=edits, result_id=sent.result_id)


def range_tokens(snap: Snapshot, params: T.SemanticTokensRangeParams) -> T.SemanticTokens:
    at = Positions(snap.doc, snap.encoding)
    toks = tokens.semantic_tokens(snap.module, params.range.start.line, params.range.end.line)
    return T.SemanticTokens(data=tokens.encode(snap.doc.texts, toks, at.from_cp)[0])  # type: ignore[arg-type]


in_range = background(range_tokens)


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, full),
    Handler(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, delta),
    Handler(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, in_range),
]
