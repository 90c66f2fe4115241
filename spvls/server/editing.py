"""Help while typing: completion, hover, signature help, inlay hints, quick fixes, formatting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from ..features import completion, formatting, inlay, signature, source
from ..state import answers
from ..state.documents import Snapshot
from . import wire
from .background import background
from .base import At, Handler, analysis, guard, positional
from .convert import Positions

if TYPE_CHECKING:
    from .app import SpvServer

ITEM_KIND = {
    "keyword": T.CompletionItemKind.Keyword,
    "enum": T.CompletionItemKind.EnumMember,
    "type": T.CompletionItemKind.Class,
    "function": T.CompletionItemKind.Function,
    "label": T.CompletionItemKind.Reference,
    "value": T.CompletionItemKind.Variable,
    "text": T.CompletionItemKind.Text,
}


def _end(it: completion.Item, col: int) -> int:
    return col if it.replace_end is None else max(col, it.replace_end)


def _format(it: completion.Item) -> T.InsertTextFormat:
    return T.InsertTextFormat.Snippet if it.snippet else T.InsertTextFormat.PlainText


@guard
@positional
def complete(ls: SpvServer, params: T.CompletionParams, c: At) -> T.CompletionList:
    found = completion.complete(c.a.module, c.line, c.col)
    uri = params.text_document.uri
    # An id is documented from its module, so its item says which document that is.
    datas = [{**it.data, "uri": uri} if it.data.get("kind") == "id" else it.data for it in found]
    # Items that differ only in label, detail and order share their range, format and data once
    # (LSP 3.17 itemDefaults), when the client takes them: a long list then costs far less JSON.
    shared = (
        ls.session.client.item_defaults
        and found
        and len({(it.replace_start, it.replace_end, it.snippet) for it in found}) == 1
        and all(it.insert_text in (None, it.label) for it in found)
        and all(d == datas[0] for d in datas)
    )
    defaults = None
    if shared:
        first = found[0]
        rng = c.at.range(c.line, first.replace_start, _end(first, c.col)) if first.replace_start is not None else None
        defaults = T.CompletionItemDefaults(edit_range=rng, data=datas[0], insert_text_format=_format(first))
    items = []
    for it, data in zip(found, datas, strict=True):
        if shared:
            items.append(
                T.CompletionItem(label=it.label, kind=ITEM_KIND.get(it.kind), detail=it.detail, sort_text=it.sort_text)
            )
            continue
        edit = None
        if it.replace_start is not None:
            edit = T.TextEdit(c.at.range(c.line, it.replace_start, _end(it, c.col)), it.insert_text or it.label)
        items.append(
            T.CompletionItem(
                label=it.label,
                kind=ITEM_KIND.get(it.kind),
                detail=it.detail,
                sort_text=it.sort_text,
                data=data,
                text_edit=edit,
                insert_text_format=_format(it),
            )
        )
    return T.CompletionList(is_incomplete=completion.capped(found), items=items, item_defaults=defaults)


@guard
def resolve(ls: SpvServer, item: T.CompletionItem) -> T.CompletionItem:
    data: dict[str, Any] = item.data if isinstance(item.data, dict) else {}
    a = analysis(ls, data["uri"]) if isinstance(data.get("uri"), str) else None
    md = completion.resolve(item.label, data, a.module if a else None)
    if md:
        item.documentation = T.MarkupContent(T.MarkupKind.Markdown, md)
    return item


@guard
@positional
def hover(ls: SpvServer, params: T.HoverParams, c: At) -> T.Hover | None:
    found = answers.hover(c.a, c.line, c.col, ls.session.ws.folders)
    if not found:
        return None
    text, (start, end) = found
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text), c.at.range(c.line, start, end))


@guard
@positional
def signature_help(ls: SpvServer, params: T.SignatureHelpParams, c: At) -> T.SignatureHelp | None:
    sig = signature.signature_help(c.a.module, c.line, c.col)
    if sig is None:
        return None
    doc = T.MarkupContent(T.MarkupKind.Markdown, sig.documentation)
    info = T.SignatureInformation(sig.label, doc, [T.ParameterInformation(p) for p in sig.parameters])
    return T.SignatureHelp(signatures=[info], active_signature=0, active_parameter=sig.active)


def hints(snap: Snapshot, params: T.InlayHintParams) -> list[T.InlayHint]:
    a, settings = snap.analysis, snap.settings
    at = Positions(snap.doc, snap.encoding)
    first, last = params.range.start.line, params.range.end.line
    hints = []
    if settings.inlay_hints:
        hints = [
            T.InlayHint(
                at.pos(line, col),
                label if kind == "type" else f"={label}",
                kind=T.InlayHintKind.Type if kind == "type" else T.InlayHintKind.Parameter,
            )
            for line, col, label, kind in inlay.inlay_hints(a.module, first, last)
        ]
    if settings.source_hints:
        hints += [
            T.InlayHint(at.pos(line, col), label, padding_left=True)
            for line, col, label in source.source_hints(a.module, first, last)
        ]
    return hints


inlay_hints = background(hints)


@guard
def code_action(ls: SpvServer, params: T.CodeActionParams) -> list[T.CodeAction] | None:
    uri = params.text_document.uri
    a = analysis(ls, uri)
    if a is None:
        return None
    at = Positions(a.module.doc, ls.session.client.encoding)
    out = []
    for fix, diags, preferred in answers.code_actions(a, params.range.start.line, params.range.end.line):
        edits = [T.TextEdit(at.range(e.line, e.start, e.end), e.text) for e in fix.edits]
        lsp = [
            ls.protocol._converter.structure(
                wire.diagnostic(at.doc, at.encoding, uri, d, a.module, ls.session.ws.folders), T.Diagnostic
            )
            for d in diags
        ]
        out.append(
            T.CodeAction(
                fix.title,
                kind=T.CodeActionKind.QuickFix,
                diagnostics=lsp,
                is_preferred=preferred,
                edit=T.WorkspaceEdit(changes={uri: edits}),
            )
        )
    return out


def _format_edits(snap: Snapshot, first: int = 0, last: int | None = None) -> list[T.TextEdit]:
    at = Positions(snap.doc, snap.encoding)
    return [T.TextEdit(at.range(n, 0, len(old)), new) for n, old, new in formatting.format_lines(snap.doc, first, last)]


def formatted(snap: Snapshot, params: T.DocumentFormattingParams) -> list[T.TextEdit]:
    return _format_edits(snap)


def formatted_range(snap: Snapshot, params: T.DocumentRangeFormattingParams) -> list[T.TextEdit]:
    return _format_edits(snap, params.range.start.line, params.range.end.line)


format_document = background(formatted)
format_range = background(formatted_range)


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_COMPLETION, complete),
    Handler(T.COMPLETION_ITEM_RESOLVE, resolve),
    Handler(T.TEXT_DOCUMENT_HOVER, hover),
    Handler(T.TEXT_DOCUMENT_SIGNATURE_HELP, signature_help),
    Handler(T.TEXT_DOCUMENT_INLAY_HINT, inlay_hints),
    Handler(T.TEXT_DOCUMENT_CODE_ACTION, code_action),
    Handler(T.TEXT_DOCUMENT_FORMATTING, format_document),
    Handler(T.TEXT_DOCUMENT_RANGE_FORMATTING, format_range),
]
