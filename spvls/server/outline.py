"""The document's shape: its outline, the workspace's symbols, folding ranges, code lenses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T

from ..features import lenses, symbols
from ..model.module import Module
from .base import Handler, analysis, guard, positions
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


@guard
def document_symbol(ls: SpvServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol] | None:
    a = analysis(ls, params.text_document.uri)
    if a is None:
        return None
    at = positions(ls, a)
    return [_doc_symbol(at, s) for s in symbols.document_symbols(a.module)]


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


@guard
def folding(ls: SpvServer, params: T.FoldingRangeParams) -> list[T.FoldingRange] | None:
    a = analysis(ls, params.text_document.uri)
    if a is None:
        return None
    return [
        T.FoldingRange(first, last, kind=T.FoldingRangeKind.Region)
        for first, last, _k in symbols.folding_ranges(a.module)
    ]


@guard
def code_lens(ls: SpvServer, params: T.CodeLensParams) -> list[T.CodeLens] | None:
    """On each OpEntryPoint, what it uses: a label (a command that runs nothing)."""
    a = analysis(ls, params.text_document.uri)
    if a is None:
        return None
    at = positions(ls, a)
    return [
        T.CodeLens(range=at.range(lens.line, lens.start, lens.end), command=T.Command(title=lens.title, command=""))
        for lens in lenses.lenses(a.module)
    ]


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, document_symbol),
    Handler(T.WORKSPACE_SYMBOL, None, workspace_symbol),
    Handler(T.TEXT_DOCUMENT_FOLDING_RANGE, None, folding),
    Handler(T.TEXT_DOCUMENT_CODE_LENS, None, code_lens),
]
