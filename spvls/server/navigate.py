"""Going places: definition (in the module, else the shader source), references, highlights,
rename and the call hierarchy."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcInvalidParams

from ..features import calls, navigation
from ..model.module import Module
from ..state import answers
from ..state.documents import Snapshot
from .background import background
from .base import At, Handler, analysis, guard, positional, positions
from .convert import Positions, point

if TYPE_CHECKING:
    from .app import SpvServer


@guard
@positional
def definition(ls: SpvServer, params: T.DefinitionParams, c: At) -> T.Location | None:
    found = answers.definition(c.a, c.line, c.col, ls.session.ws.folders)
    if found is None:
        return None
    if found.span is not None:
        return c.at.location(params.text_document.uri, found.span)
    assert found.path is not None
    return point(found.path, found.line, found.col)


def uses(snap: Snapshot, params: T.ReferenceParams) -> list[T.Location]:
    at = Positions(snap.doc, snap.encoding)
    line, col = at.cursor(params.position)
    spans = navigation.references(snap.module, line, col, params.context.include_declaration)
    return [at.location(snap.uri, s) for s in spans]


references = background(uses)


@guard
@positional
def highlight(ls: SpvServer, params: T.DocumentHighlightParams, c: At) -> list[T.DocumentHighlight]:
    return [
        T.DocumentHighlight(c.at.range(*s), T.DocumentHighlightKind.Write if w else T.DocumentHighlightKind.Read)
        for s, w in navigation.highlights(c.a.module, c.line, c.col)
    ]


@guard
@positional
def prepare_rename(ls: SpvServer, params: T.PrepareRenameParams, c: At) -> T.Range | None:
    span = navigation.prepare_rename(c.a.module, c.line, c.col)
    return c.at.range(*span) if span else None


@guard
@positional
def rename(ls: SpvServer, params: T.RenameParams, c: At) -> T.WorkspaceEdit:
    try:
        edits = navigation.rename(c.a.module, c.line, c.col, params.new_name)
    except navigation.RenameError as e:
        # Refused with the reason, as an LSP error response.
        raise JsonRpcInvalidParams(str(e)) from None
    uri = params.text_document.uri
    return T.WorkspaceEdit(changes={uri: [T.TextEdit(c.at.range(*s), new) for s, new in edits]})


def _call_item(uri: str, at: Positions, it: calls.CallItem) -> T.CallHierarchyItem:
    return T.CallHierarchyItem(
        name=it.name,
        kind=T.SymbolKind.Function,
        uri=uri,
        detail=it.detail or None,
        range=at.whole_lines(it.first_line, it.last_line),
        selection_range=at.range(*it.selection),
        data={"id": it.id},
    )


Edges = Callable[[Module, str], Iterable[tuple[calls.CallItem, Iterable[tuple[int, int, int]]]]]


def _call_edges(
    ls: SpvServer, item: T.CallHierarchyItem, edges: Edges
) -> list[tuple[T.CallHierarchyItem, list[T.Range]]]:
    a = analysis(ls, item.uri)
    fn_id: Any = (item.data or {}).get("id") if isinstance(item.data, dict) else None
    if a is None or not fn_id:
        return []
    at = positions(ls, a)
    return [(_call_item(item.uri, at, it), [at.range(*s) for s in sites]) for it, sites in edges(a.module, fn_id)]


@guard
@positional
def prepare_calls(ls: SpvServer, params: T.CallHierarchyPrepareParams, c: At) -> list[T.CallHierarchyItem] | None:
    it = calls.function_at(c.a.module, c.line, c.col)
    return [_call_item(params.text_document.uri, c.at, it)] if it else None


@guard
def incoming_calls(ls: SpvServer, params: T.CallHierarchyIncomingCallsParams) -> list[T.CallHierarchyIncomingCall]:
    return [T.CallHierarchyIncomingCall(it, ranges) for it, ranges in _call_edges(ls, params.item, calls.incoming)]


@guard
def outgoing_calls(ls: SpvServer, params: T.CallHierarchyOutgoingCallsParams) -> list[T.CallHierarchyOutgoingCall]:
    return [T.CallHierarchyOutgoingCall(it, ranges) for it, ranges in _call_edges(ls, params.item, calls.outgoing)]


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_DEFINITION, definition),
    Handler(T.TEXT_DOCUMENT_REFERENCES, references),
    Handler(T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, highlight),
    Handler(T.TEXT_DOCUMENT_PREPARE_RENAME, prepare_rename),
    Handler(T.TEXT_DOCUMENT_RENAME, rename),
    Handler(T.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, prepare_calls),
    Handler(T.CALL_HIERARCHY_INCOMING_CALLS, incoming_calls),
    Handler(T.CALL_HIERARCHY_OUTGOING_CALLS, outgoing_calls),
]
