"""The document's shape: its outline, the workspace's symbols, folding ranges, code lenses."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lsprotocol import types as T

from ..features import lenses, symbols
from ..model.module import Module
from ..state.documents import Snapshot
from ..syntax.document import Document
from . import wire
from .background import background
from .base import Handler, guard
from .convert import Positions

if TYPE_CHECKING:
    from .app import SpvServer

SYMBOL_KIND = {
    "entry-point": T.SymbolKind.Event,
    "function": T.SymbolKind.Function,
    "block": T.SymbolKind.Namespace,
    "type": T.SymbolKind.Class,
    "variable": T.SymbolKind.Variable,
    "constant": T.SymbolKind.Constant,
}


def _symbol_json(doc: Document, encoding: str, s: symbols.Symbol) -> wire.Json:
    """A symbol as LSP's DocumentSymbol, as the wire has it."""
    first, last = (
        wire.position(doc, encoding, s.line, 0),
        wire.position(doc, encoding, s.end_line, len(wire.line_text(doc, s.end_line))),
    )
    out: wire.Json = {"name": s.name or "?", "kind": int(SYMBOL_KIND[s.kind])}
    if s.detail is not None:
        out["detail"] = s.detail
    out["range"] = {
        "start": {"line": first[0], "character": first[1]},
        "end": {"line": last[0], "character": last[1]},
    }
    out["selectionRange"] = wire.span(doc, encoding, s.line, *s.sel)
    if s.children:
        out["children"] = [_symbol_json(doc, encoding, c) for c in s.children]
    return out


def outline(snap: Snapshot, params: T.DocumentSymbolParams) -> wire.Raw:
    """The outline as JSON, one symbol at a time: a large module's outline as protocol objects,
    then as the converter's dicts, then as JSON, held at once, raised the server's peak by more than
    the whole outline's JSON (bench/run.py's RSS, at 100k lines)."""
    doc, encoding = snap.doc, snap.encoding
    parts = [json.dumps(_symbol_json(doc, encoding, s)).encode() for s in symbols.document_symbols(snap.module)]
    return wire.Raw(b"[" + b", ".join(parts) + b"]")


document_symbol = background(outline)


@guard
def workspace_symbol(ls: SpvServer, params: T.WorkspaceSymbolParams) -> list[T.WorkspaceSymbol]:
    session = ls.session
    mods: dict[str, Module] = {}
    for uri in list(session.ws.docs):
        a = session.analysis(uri)
        if a is not None:
            mods[uri] = a.module
    enc = session.client.encoding
    return [
        T.WorkspaceSymbol(
            name=s.name,
            kind=SYMBOL_KIND[s.kind],
            location=Positions(mods[uri].doc, enc).location(uri, (s.line, *s.sel)),
        )
        for uri, s in symbols.workspace_symbols(mods, params.query)
    ]


def folds(snap: Snapshot, params: T.FoldingRangeParams) -> list[T.FoldingRange]:
    return [
        T.FoldingRange(first, last, kind=T.FoldingRangeKind.Region)
        for first, last, _k in symbols.folding_ranges(snap.module)
    ]


folding = background(folds)


def entry_lenses(snap: Snapshot, params: T.CodeLensParams) -> list[T.CodeLens]:
    """On each OpEntryPoint, what it uses: a label (a command that runs nothing)."""
    at = Positions(snap.doc, snap.encoding)
    return [
        T.CodeLens(range=at.range(lens.line, lens.start, lens.end), command=T.Command(title=lens.title, command=""))
        for lens in lenses.lenses(snap.module)
    ]


code_lens = background(entry_lenses)


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL, document_symbol),
    Handler(T.WORKSPACE_SYMBOL, workspace_symbol),
    Handler(T.TEXT_DOCUMENT_FOLDING_RANGE, folding),
    Handler(T.TEXT_DOCUMENT_CODE_LENS, code_lens),
]
