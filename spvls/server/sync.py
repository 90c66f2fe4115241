"""Text sync and diagnostics: open, change, save, close, push and pull. Local handlers: they change
the session on the loop's thread, in the order the client sent them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from lsprotocol import types as T

from ..binding.spirv_tools import trim
from ..checks import Analysis, analyze, parallel, suppress
from ..state import progress
from ..state.documents import Opening, Recalled
from ..state.workspace import ON_SAVE, ON_TYPE
from ..syntax.document import Document
from . import published, wire
from .base import Handler, guard, log_fault
from .convert import Positions

if TYPE_CHECKING:
    from .app import SpvServer

log = logging.getLogger("spvls")

MAX_PUBLISHED = published.MAX_PUBLISHED
ERROR_SEVERITY = 1  # LSP's DiagnosticSeverity.Error
# Seconds a document opened from the cache, for a client that pulls, waits for its analysis: the
# pull right after the open is answered from the cache meanwhile.
CONFIRM_AFTER = 0.05
# An open of this many lines or more is parsed and checked in a worker thread (seconds at 100k
# lines), while the loop answers other requests.
OFF_LOOP_LINES = progress.LINES
_opener = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spvls-open")


# -- diagnostics ------------------------------------------------------------------------------
def send_diagnostics(ls: SpvServer, uri: str, version: int | None, diags: list[wire.Json]) -> None:
    """A publishDiagnostics of wire diagnostics, written as they are (no protocol types built)."""
    if not ls.protocol.send_raw(published.notification(uri, version, diags)):
        items = ls.protocol._converter.structure(diags, list[T.Diagnostic])
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, items, version=version))


def publish(ls: SpvServer, uri: str) -> None:
    """Push the document's diagnostics (a client that pulls is not pushed to)."""
    doc = ls.session.ws.docs.get(uri)
    if doc is None or ls.session.client.pull:
        return
    try:
        diags = published.diagnostics(ls.session, uri)
    except Exception as e:
        log_fault(ls, f"analysis failed on {uri}", e)
        failed = f"spvls could not analyse this document ({e!r}); see the server log"
        diags = [wire.note(code="spvls.internal", message=failed, severity=ERROR_SEVERITY)]
    # Computed synchronously for this version, so an older result is never sent after a newer one.
    send_diagnostics(ls, uri, doc.version, diags)


def native(ls: SpvServer, uri: str) -> list[dict[str, Any]] | None:
    """The document's native diagnostics as the wire has them (None if the analysis fails)."""
    try:
        return published.diagnostics(ls.session, uri, validated=False)
    except Exception as e:
        log_fault(ls, f"analysis failed on {uri}", e)
        return None


def validated(ls: SpvServer, uri: str) -> None:
    """spirv-val's result for the current version arrived: push it, or ask the client to pull."""
    client = ls.session.client
    if not client.pull:
        publish(ls, uri)
    elif client.refresh:
        ls.workspace_diagnostic_refresh(None)


def note(ls: SpvServer, text: str) -> None:
    log.debug(text)
    ls.window_log_message(T.LogMessageParams(T.MessageType.Log, text))


def validate(ls: SpvServer, uri: str, when: tuple[str, ...], delay: float | None = None) -> None:
    session = ls.session
    if session.ws.settings.validate in when and session.validation is not None:
        session.validation.changed(uri, delay)


def check_with_progress(ls: SpvServer, uri: str, doc: Document) -> None:
    """Analyse a large document whole inside a work-done progress; published (or pulled) after."""
    lines = len(doc.texts)
    title = progress.checking(uri, lines)
    # An analysis that fails is reported by the publication that follows.
    with progress.around(ls, ls.session.client.takes_progress, lines, "spvls", title), contextlib.suppress(Exception):
        ls.session.analysis(uri)


# -- text sync --------------------------------------------------------------------------------
def _show_recalled(ls: SpvServer, uri: str, version: int, recalled: Recalled) -> None:
    """Push what the cache kept for the text, before the document is parsed."""
    if recalled.diagnostics is not None:
        send_diagnostics(ls, uri, version, recalled.diagnostics)


def did_open(ls: SpvServer, params: T.DidOpenTextDocumentParams) -> None:
    session, d = ls.session, params.text_document
    can_send = ls.protocol.writer is not None and ls.protocol._include_headers
    recalled = session.recall(d.uri, d.text, MAX_PUBLISHED, can_send)
    kept = recalled.diagnostics if recalled else None
    if recalled is not None and not session.client.pull:
        _show_recalled(ls, d.uri, d.version, recalled)
    if d.text.count("\n") >= OFF_LOOP_LINES:
        _open_off_loop(ls, params, recalled)
        return
    doc = session.open(d.uri, d.text, d.version)
    d.text = ""  # the Document has it: the message's copy is not held through the analysis
    if recalled is not None and kept is not None and session.client.pull:
        # The client pulls: the pull that follows the open is answered from the cache, and the
        # analysis waits a moment for it (confirm; any request that needs the model runs it first).
        session.await_confirmation(d.uri, d.version, recalled)
        asyncio.get_running_loop().call_later(CONFIRM_AFTER, confirm, ls, d.uri)
        validate(ls, d.uri, (ON_TYPE, ON_SAVE), delay=CONFIRM_AFTER)
        return
    check_with_progress(ls, d.uri, doc)
    if kept is None:
        publish(ls, d.uri)
    if recalled is not None and session.remember(recalled.key, native(ls, d.uri), kept):
        publish(ls, d.uri)  # the cache showed a stale answer (a shader source file appeared since, say)
    parallel.settle()  # what the next keystroke would compute, once the diagnostics are out
    validate(ls, d.uri, (ON_TYPE, ON_SAVE), delay=0)
    trim()  # the message's and the build's freed pages go back (glibc keeps them; the next peak would start there)


def _build(held: list[str], uri: str, version: int, env: str | None) -> tuple[Document, Analysis | None]:
    """In the opener's thread: the Document and its first analysis (None if it fails: the loop's
    analysis then fails again and publish reports it). `held` holds the text alone, emptied once the
    Document has it: an argument would be held through the analysis (by the executor's work item)."""
    doc = Document(held.pop(), uri, version)
    try:
        return doc, analyze(doc, env)
    except Exception:
        log.exception("analysis failed on %s", uri)
        return doc, None


def _open_off_loop(ls: SpvServer, params: T.DidOpenTextDocumentParams, recalled: Recalled | None) -> None:
    """A large document opened: built and checked in a worker thread; its diagnostics follow."""
    session, d = ls.session, params.text_document
    opening = session.open_off_loop(d.uri, d.version)
    if recalled is not None and recalled.diagnostics is not None and session.client.pull:
        session.await_confirmation(d.uri, d.version, recalled)
    lines = d.text.count("\n") + 1
    title = progress.checking(d.uri, lines)
    end = progress.begin(ls, session.client.takes_progress, lines, "spvls", title)
    env = session.ws.settings.target_env
    marked = suppress.may_hold(d.text)  # here, whole: its analysis need not search its lines
    built = asyncio.get_running_loop().run_in_executor(_opener, _build, [d.text], d.uri, d.version, env)
    d.text = ""  # the thread has it: the message's copy is not held through the analysis
    built.add_done_callback(lambda f: _opened(ls, d.uri, opening, recalled, env, end, f, marked))


def _opened(
    ls: SpvServer,
    uri: str,
    opening: Opening,
    recalled: Recalled | None,
    env: str | None,
    end: Callable[[], None],
    built: asyncio.Future[tuple[Document, Analysis | None]],
    marked: bool,
) -> None:
    """On the loop: the open built off it becomes the document, with the changes that came
    meanwhile applied in order; then as any open, its diagnostics and the cache."""
    session = ls.session
    end()
    try:
        doc, a = built.result()
    except BaseException as e:  # the thread failed outside the analysis (out of memory, say)
        log_fault(ls, f"opening {uri} failed", e)
        session.close(uri)
        return
    finally:
        if not opening.done.done():
            opening.done.set_result(None)
    if not session.adopt(uri, opening, doc, a, env, marked):
        if a is not None:
            parallel.forget(a.module)
        return  # closed or opened again meanwhile
    if opening.changes:
        for change in opening.changes:
            did_change(ls, change)
        session.take_unconfirmed(uri)
    elif session.has_unconfirmed(uri):
        confirm(ls, uri)
    else:
        kept = recalled.diagnostics if recalled else None
        if kept is None:
            publish(ls, uri)
        if recalled is not None and session.remember(recalled.key, native(ls, uri), kept):
            publish(ls, uri)
    parallel.settle()
    validate(ls, uri, (ON_TYPE, ON_SAVE), delay=0)
    trim()


def confirm(ls: SpvServer, uri: str) -> None:
    """The analysis of a document whose pull was answered from the cache: if it finds otherwise,
    the cache is corrected and the client asked to pull again."""
    session = ls.session
    recalled = session.take_unconfirmed(uri)
    doc = session.ws.docs.get(uri)
    if recalled is None or doc is None:
        return
    check_with_progress(ls, uri, doc)
    if session.remember(recalled.key, native(ls, uri), recalled.diagnostics) and session.client.refresh:
        ls.workspace_diagnostic_refresh(None)


def did_change(ls: SpvServer, params: T.DidChangeTextDocumentParams) -> None:
    session, uri = ls.session, params.text_document.uri
    opening = session.opening(uri)
    if opening is not None:  # applied once its open is built (_opened)
        opening.changes.append(params)
        return
    doc = session.ws.docs.get(uri)
    if doc is None:
        log.warning("change for a document that is not open: %s", uri)
        return
    at = Positions(doc, session.client.encoding)
    validation = session.validation
    for change in params.content_changes:
        before = len(doc.texts)
        if isinstance(change, T.TextDocumentContentChangePartial):
            start, end = at.edit_point(change.range.start), at.edit_point(change.range.end)
            doc.replace(start, end, change.text)
            if validation is not None:
                validation.edited(uri, start[0], end[0], len(doc.texts) - before)
        else:
            doc.set_text(change.text)
            if validation is not None:
                validation.edited(uri, 0, before, 0)
    doc.version = params.text_document.version
    whole = session.ws.checks_whole(uri)
    if whole:  # lines added or removed: the model is built again, whole
        check_with_progress(ls, uri, doc)
    publish(ls, uri)
    parallel.settle()
    validate(ls, uri, (ON_TYPE,))
    if whole:
        trim()  # the previous model's pages (see did_open)


def did_save(ls: SpvServer, params: T.DidSaveTextDocumentParams) -> None:
    validate(ls, params.text_document.uri, (ON_SAVE,), delay=0)


def did_close(ls: SpvServer, params: T.DidCloseTextDocumentParams) -> None:
    session, uri = ls.session, params.text_document.uri
    doc = session.ws.docs.get(uri)
    if doc is not None and session.edited_since_open(uri):
        # Edited since it was opened: what it shows now, for when it is opened again.
        recalled = session.recall(uri, doc.text, MAX_PUBLISHED, can_send=True)
        if recalled is not None:
            session.remember(recalled.key, native(ls, uri), None)
    session.close(uri)
    if not session.client.pull:
        send_diagnostics(ls, uri, None, [])


@guard
async def pull_diagnostics(ls: SpvServer, params: T.DocumentDiagnosticParams) -> T.RelatedFullDocumentDiagnosticReport:
    session, uri = ls.session, params.text_document.uri
    if uri in session.opened:
        session.opened[uri].pulled = True
    cached = session.unconfirmed(uri)
    if cached is not None:
        note(ls, f"diagnostics of {uri} from the cache")
        items = ls.protocol._converter.structure(cached, list[T.Diagnostic])
        return T.RelatedFullDocumentDiagnosticReport(items=items)
    await session.opened_whole(uri)  # an open analysed off the loop: its diagnostics
    if session.has_unconfirmed(uri):
        confirm(ls, uri)
    items = ls.protocol._converter.structure(published.diagnostics(session, uri), list[T.Diagnostic])
    return T.RelatedFullDocumentDiagnosticReport(items=items)


HANDLERS = [
    Handler(T.TEXT_DOCUMENT_DID_OPEN, did_open),
    Handler(T.TEXT_DOCUMENT_DID_CHANGE, did_change),
    Handler(T.TEXT_DOCUMENT_DID_SAVE, did_save),
    Handler(T.TEXT_DOCUMENT_DID_CLOSE, did_close),
    Handler(T.TEXT_DOCUMENT_DIAGNOSTIC, pull_diagnostics),
]
