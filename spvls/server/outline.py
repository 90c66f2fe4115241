"""The document's shape: its outline, the workspace's symbols, folding ranges, code lenses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T

from ..features import lenses, symbols
from ..model.module import Module
from ..state.documents import Snapshot
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


def _doc_symbol(at: Positions, s: symbols.Symbol) -> T.DocumentSymbol:
    return T.DocumentSymbol(
        name=s.name or "?",
        kind=SYMBOL_KIND[s.kind],
        detail=s.detail,
        range=at.whole_lines(s.line, s.end_line),
        selection_range=at.range(s.line, *s.sel),
        children=[_doc_symbol(at, c) for c in s.children] or None,
    )


def outline(snap: Snapshot, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
    at = Positions(snap.doc, snap.encoding)
    return [_doc_symbol(at, s) for s in symbols.document_symbols(snap.module)]


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
