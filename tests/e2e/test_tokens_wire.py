"""Semantic tokens of a module large enough that the server writes them a slice at a time
(transport.response_with_ints) arrive over stdio as the in-process encoding: in full, as the full
answer to a delta request for a result id the server never sent, and for a range."""
import sys
from pathlib import Path

from lsprotocol import types as T

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

from spvls import transport
from spvls.checks import analyze
from spvls.features import tokens
from spvls.syntax.document import Document

URI = "file:///tokens-wire.spvasm"


def _expected(text: str) -> list[int]:
    m = analyze(Document(text)).module
    return list(tokens.encode(m.doc.texts, tokens.iter_tokens(m), lambda t, c: c)[0])  # ASCII: columns as they are


async def test_a_large_modules_tokens_arrive_whole(client):
    text = module(8000)
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(URI, "spirv", 1, text)))
    doc = T.TextDocumentIdentifier(URI)
    full = await client.text_document_semantic_tokens_full_async(T.SemanticTokensParams(doc))
    want = _expected(text)
    assert len(want) > 2 * transport.INT_SLICE and list(full.data) == want and full.result_id
    stale = await client.text_document_semantic_tokens_full_delta_async(
        T.SemanticTokensDeltaParams(doc, previous_result_id="not one it sent"))
    assert isinstance(stale, T.SemanticTokens) and list(stale.data) == want and stale.result_id != full.result_id
    part = await client.text_document_semantic_tokens_range_async(
        T.SemanticTokensRangeParams(doc, T.Range(T.Position(0, 0), T.Position(7999, 0))))
    assert list(part.data) == want[: len(part.data)] and len(part.data) > transport.INT_SLICE
