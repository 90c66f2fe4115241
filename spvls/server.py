"""LSP wiring only: translate between the protocol and spvls.features."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import os
import sys
import threading
import traceback
from array import array
from functools import wraps
from typing import NamedTuple

from cattrs import ClassValidationError, transform_error
from lsprotocol import types as T
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from . import __version__, transport
from .binary import commands as binary_commands
from .binding.spirv_tools import trim
from .checks import codes, parallel, validator
from .checks import fixes as check_fixes
from .checks.diagnostic import ERROR, HINT, INFO, WARNING, Diagnostic
from .features import (
    calls,
    cfg_dot,
    completion,
    formatting,
    hover,
    inlay,
    navigation,
    rule_notes,
    signature,
    source,  # its own line: others add features to the line above
    sourcefiles,
    symbols,
    tokens,
)
from .session import cache, progress
from .session.validation import OFF, ON_SAVE, ON_TYPE, Validation
from .session.warm import warm
from .session.workspace import Workspace

log = logging.getLogger("spvls")
_SEVERITY = {
    ERROR: T.DiagnosticSeverity.Error,
    WARNING: T.DiagnosticSeverity.Warning,
    INFO: T.DiagnosticSeverity.Information,
    HINT: T.DiagnosticSeverity.Hint,
}
_SYMBOL_KIND = {
    "entry-point": T.SymbolKind.Event,
    "function": T.SymbolKind.Function,
    "block": T.SymbolKind.Namespace,
    "type": T.SymbolKind.Class,
    "variable": T.SymbolKind.Variable,
    "constant": T.SymbolKind.Constant,
}
_ITEM_KIND = {
    "keyword": T.CompletionItemKind.Keyword,
    "enum": T.CompletionItemKind.EnumMember,
    "type": T.CompletionItemKind.Class,
    "function": T.CompletionItemKind.Function,
    "label": T.CompletionItemKind.Reference,
    "value": T.CompletionItemKind.Variable,
    "text": T.CompletionItemKind.Text,
}


class _Unreadable(NamedTuple):
    """A request whose params do not fit the protocol's types: answered with InvalidParams."""

    id: object
    method: str
    reason: str


class _Protocol(LanguageServerProtocol):
    """Text sync goes straight to spvls' own documents, which re-parse only the edited lines.

    pygls would also keep a copy of each text and re-split all of it on every keystroke.
    """

    _server: SpvServer  # the only server made with this protocol

    def structure_message(self, data):
        # pygls raises here, before it knows the request's id, and the request is never answered.
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            if not (isinstance(data, dict) and "method" in data and data.get("id") is not None):
                raise
            cause = e.__cause__
            reason = "; ".join(transform_error(cause)) if isinstance(cause, ClassValidationError) else repr(cause)
            return _Unreadable(data["id"], str(data["method"]), reason)

    def handle_message(self, message):
        if isinstance(message, _Unreadable):
            log.warning("invalid params for %s: %s", message.method, message.reason)
            self._send_response(
                message.id,
                error=JsonRpcInvalidParams(
                    f"invalid params for {message.method}: {message.reason}"
                ).to_response_error(),
            )
            return
        # LSP: requests after shutdown "should error with InvalidRequest"; pygls drops them silently.
        if (
            self._shutdown
            and getattr(message, "method", "") != T.EXIT
            and getattr(message, "id", None) is not None
            and hasattr(message, "method")
        ):
            self._send_response(
                message.id,
                error=JsonRpcInvalidRequest("the server is shutting down: only 'exit' is accepted").to_response_error(),
            )
            return
        super().handle_message(message)

    def _send_data(self, data):
        # Semantic tokens kept as an array (tokens.Sent) go out without becoming a list first.
        result = getattr(data, "result", None)
        if isinstance(result, T.SemanticTokens) and isinstance(result.data, array) and self._include_headers:
            keep = {"resultId": result.result_id} if result.result_id is not None else {}
            if self.writer is not None:
                # Part by part: the whole answer (5.4 MB at 100k lines) is never held. Every write
                # is on the loop's thread, so no other message lands between the parts.
                for part in transport.response_with_ints(data.id, keep, "data", result.data):
                    self.writer.write(part)
                trim()  # the encoding's freed pages go back to the system
            return
        super()._send_data(data)

    def _to_handler(self, method, params):
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    @lsp_method(T.INITIALIZE)
    def lsp_initialize(self, params: T.InitializeParams):
        result = yield from super().lsp_initialize(params)
        if not self._server.pull:  # one diagnostics channel per client (see initialize)
            result.capabilities.diagnostic_provider = None
        return result

    @lsp_method(T.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: T.DidOpenTextDocumentParams):
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(T.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: T.DidChangeTextDocumentParams):
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(T.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: T.DidCloseTextDocumentParams):
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_CLOSE, params)


class SpvServer(LanguageServer):
    def __init__(self):
        super().__init__(
            "spvls", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental, protocol_cls=_Protocol
        )
        self.ws = Workspace()
        self.encoding = "utf-16"  # columns' unit: the client's first choice among utf-8, utf-16, utf-32
        self.tokens_sent: dict[str, tokens.Sent] = {}  # per document: the tokens last sent
        self.lsp_diagnostics: dict[str, tuple] = {}  # per document: (model, its converted diagnostics)
        self.opened_version: dict[str, int] = {}  # per document: its version when opened
        # per document opened with a cache hit, for a client that pulls: (version, the kept JSON, its
        # key), until the analysis has confirmed it (_confirm)
        self.unconfirmed: dict[str, tuple[int, bytes, str]] = {}
        self.settings_reported: list[str] = []  # the settings problems last shown to the user
        self.takes_progress = False  # the client takes window/workDoneProgress/create
        self.pull = False  # diagnostics by pull (textDocument/diagnostic) instead of push
        self.refresh = False  # the client takes workspace/diagnostic/refresh
        self.validation = Validation(self.ws, lambda uri: _validated(self, uri), note=lambda text: _note(self, text))

    def start_io(self, stdin=None, stdout=None):
        """pygls' stdio loop, with a reader that survives broken framing (spvls.transport)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(
                transport.serve(self._stop_event, stdin or sys.stdin.buffer, self._dispatch, self._framing_problem)
            )
        except BrokenPipeError:
            log.error("the client closed the connection: exiting")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """pygls' TCP server, with the stdio reader (spvls.transport): one client, then exit."""
        self._stop_event = threading.Event()
        try:
            transport.serve_tcp(
                self._stop_event, host, port, self.protocol.set_writer, self._dispatch, self._framing_problem
            )
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def _dispatch(self, messages: list) -> None:
        try:  # the raw message goes once structured (see transport.Dispatch)
            self.protocol.handle_message(self.protocol.structure_message(messages.pop()))
        except Exception as e:
            log.exception("cannot handle message")
            self._report_server_error(e, JsonRpcException)

    def _framing_problem(self, text: str) -> None:
        log.warning("input: %s", text)


server = SpvServer()


# -- positions: LSP columns count UTF-16 code units, UTF-8 bytes or code points, as negotiated;
# ours count code points ----------------------------------------------------------------------
def _width(ch: str) -> int:
    if server.encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    return 2 if server.encoding == "utf-16" and ord(ch) > 0xFFFF else 1


def _to_cp(text: str, col: int) -> int:
    if text.isascii() or server.encoding == "utf-32":
        return max(0, min(col, len(text)))
    units = 0
    for i, ch in enumerate(text):
        if units >= col:
            return i
        units += _width(ch)
    return len(text)


def _from_cp(text: str, col: int) -> int:
    if text.isascii() or server.encoding == "utf-32":
        return col
    head = text[:col]
    if server.encoding == "utf-8":
        return len(head.encode("utf-8", "surrogatepass"))
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def _line_text(doc, n: int) -> str:
    return doc.texts[n] if 0 <= n < len(doc.texts) else ""


def _pos(doc, line: int, col: int) -> T.Position:
    """A position from (instruction line, offset), mapped to the physical line."""
    line, col = doc.position(line, col)
    return T.Position(line, _from_cp(_line_text(doc, line), col))


def _range(doc, line: int, start: int, end: int) -> T.Range:
    return T.Range(_pos(doc, line, start), _pos(doc, line, end))


def _cursor(doc, p: T.Position) -> tuple[int, int]:
    line = max(0, min(p.line, len(doc.texts) - 1))
    return line, _to_cp(_line_text(doc, line), p.character)


# Tests set this to a feature name to prove a failure stays inside its own request.
_FAULT = os.environ.get("SPVLS_FAULT_INJECT", "")


def _log_fault(ls: SpvServer, what: str, e: Exception) -> None:
    msg = f"spvls: {what}: {e!r}\n{traceback.format_exc()}"
    log.error(msg)
    try:
        ls.window_log_message(T.LogMessageParams(T.MessageType.Error, msg))
    except Exception:
        pass


def _guard(fn):
    """A feature that fails is logged with its context (stderr and window/logMessage) and answers
    that request alone with an error; the server keeps serving."""

    @wraps(fn)
    def run(ls: SpvServer, params):
        try:
            if _FAULT and _FAULT == fn.__name__:
                raise RuntimeError(f"injected fault in {fn.__name__}")
            return fn(ls, params)
        except JsonRpcException:
            raise  # a deliberate protocol error (e.g. a refused rename), not a fault
        except Exception as e:
            uri = getattr(getattr(params, "text_document", None), "uri", "")
            pos = getattr(params, "position", None)
            where = f"{uri}:{pos.line + 1}:{pos.character + 1}" if pos else uri
            _log_fault(ls, f"{fn.__name__} failed at {where}", e)
            raise JsonRpcInternalError(f"spvls: {fn.__name__} failed: {e}") from None

    return run


class _AnsweredErrors(logging.Filter):
    """pygls logs every error answer with a traceback. Ours are deliberate (a refused rename) or
    already logged once, with the request's place, by _guard: an editor's log shows neither twice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], JsonRpcException))


logging.getLogger("pygls.protocol.json_rpc").addFilter(_AnsweredErrors())


def _source_related(m, doc, uri: str, d: Diagnostic, folders) -> list[T.DiagnosticRelatedInformation]:
    """Where the instruction came from: the source file (or its embedded copy), else the diagnostic's own place."""
    if d.source is None or m is None:
        return []
    found = sourcefiles.target(m, d.source, folders)
    if found is None:
        where = T.Location(uri, _range(doc, d.line, d.start, d.end))
    else:
        path, line, col = found
        where = T.Location(path.as_uri(), T.Range(T.Position(line, col), T.Position(line, col)))
    return [T.DiagnosticRelatedInformation(where, f"source: {d.source}")]


def _lsp_diagnostic(doc, uri: str, d: Diagnostic, m=None, folders=()) -> T.Diagnostic:
    family = d.code.split(".")[0]
    href = codes.link(d.code)
    origin = family if family in (validator.SOURCE, validator.ASSEMBLER) else "spvls"
    related = _source_related(m, doc, uri, d, folders)
    return T.Diagnostic(
        range=_range(doc, d.line, d.start, d.end),
        message=d.message,
        severity=_SEVERITY[d.severity],
        code=d.code,
        source=origin,
        code_description=T.CodeDescription(href=href),
        related_information=[
            T.DiagnosticRelatedInformation(T.Location(uri, _range(doc, r.line, r.start, r.end)), r.message)
            for r in d.related
        ]
        + related
        or None,
        data={"fixes": len(d.fixes)},
    )


MAX_PUBLISHED = 2000  # more helps no one and stalls clients; `spvls check` prints them all


def _converter(ls: SpvServer, uri: str, doc, m, count: int):
    """Diagnostic -> LSP diagnostic, each kept while the model is: an edit it takes in place keeps
    the diagnostics outside the edited function (same objects, same lines), so a keystroke converts
    only the function's."""
    kept = ls.lsp_diagnostics.get(uri)
    if kept is None or kept[0] is not m or len(kept[1]) > 4 * max(count, MAX_PUBLISHED):  # or full of the gone
        kept = ls.lsp_diagnostics[uri] = (m, {})
    memo = kept[1]

    def convert(d: Diagnostic) -> T.Diagnostic:
        hit = memo.get(id(d))
        if hit is None or hit[0] is not d:
            hit = memo[id(d)] = (d, _lsp_diagnostic(doc, uri, d, m, ls.ws.folders))
        return hit[1]

    return convert


def _diagnostics(ls: SpvServer, uri: str, validated: bool = True) -> list[T.Diagnostic]:
    a = ls.ws.analysis(uri)
    doc = ls.ws.docs.get(uri)
    if a is None:
        return []
    diags = ls.validation.diagnostics(uri, a.diagnostics, len(doc.texts), a.module) if validated else a.diagnostics
    convert = _converter(ls, uri, doc, a.module, len(diags))
    if len(diags) <= MAX_PUBLISHED:
        return [convert(d) for d in diags]
    rank = {ERROR: 0, WARNING: 1, INFO: 2, HINT: 3}
    first = sorted(diags, key=lambda d: -1 if validator.is_note(d) else rank[d.severity])
    shown = sorted(first[:MAX_PUBLISHED], key=lambda d: (d.line, d.start))
    note = T.Diagnostic(
        range=T.Range(T.Position(0, 0), T.Position(0, 0)),
        severity=T.DiagnosticSeverity.Information,
        source="spvls",
        code="spvls.truncated",
        message=f"{len(diags) - MAX_PUBLISHED} more problems not shown; run `spvls check` for all",
    )
    return [note] + [convert(d) for d in shown]


def _publish(ls: SpvServer, uri: str) -> list[T.Diagnostic] | None:
    """Push the document's diagnostics; they are returned unless the analysis failed."""
    doc = ls.ws.docs.get(uri)
    if doc is None or ls.pull:
        return None
    ok: list[T.Diagnostic] | None = None
    try:
        if _FAULT == "analysis":
            raise RuntimeError("injected fault in analysis")
        diags = ok = _diagnostics(ls, uri)
    except Exception as e:
        _log_fault(ls, f"analysis failed on {uri}", e)
        diags = [
            T.Diagnostic(
                range=T.Range(T.Position(0, 0), T.Position(0, 0)),
                severity=T.DiagnosticSeverity.Error,
                source="spvls",
                code="spvls.internal",
                message=f"spvls could not analyse this document ({e!r}); see the server log",
            )
        ]
    # Computed synchronously for this version, so an older result is never sent after a newer one.
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, diags, version=doc.version))
    return ok


def _cache_key(ls: SpvServer, uri: str, text: str) -> str | None:
    """The disk cache's key for the native diagnostics of this text here (session/cache.py)."""
    if not cache.enabled() or not (ls.pull or (ls.protocol.writer is not None and ls.protocol._include_headers)):
        return None
    settings = (dataclasses.asdict(ls.ws.settings), ls.ws.settings.validator_options())
    return cache.key(text, uri, settings, ls.encoding, [str(f) for f in ls.ws.folders], MAX_PUBLISHED)


def _native_json(ls: SpvServer, uri: str) -> bytes | None:
    """The document's native diagnostics as the wire has them (None if the analysis fails)."""
    try:
        return json.dumps(ls.protocol._converter.unstructure(_diagnostics(ls, uri, validated=False))).encode()
    except Exception as e:
        _log_fault(ls, f"analysis failed on {uri}", e)
        return None


# -- lifecycle and sync ---------------------------------------------------------------------
def _update_settings(ls: SpvServer, raw) -> None:
    """Take the valid settings; tell the user about the others, once (not again while unchanged)."""
    problems = ls.ws.settings.update(raw)
    if problems and problems != ls.settings_reported:
        ls.window_show_message(T.ShowMessageParams(T.MessageType.Warning, "\n".join(problems)))
    ls.settings_reported = problems


def _validated(ls: SpvServer, uri: str) -> None:
    """spirv-val's result for the current version arrived: push it, or ask the client to pull."""
    if not ls.pull:
        _publish(ls, uri)
    elif ls.refresh:
        ls.workspace_diagnostic_refresh(None)


def _note(ls: SpvServer, text: str) -> None:
    log.debug(text)
    ls.window_log_message(T.LogMessageParams(T.MessageType.Log, text))


def _validate(ls: SpvServer, uri: str, when: tuple[str, ...], delay: float | None = None) -> None:
    if ls.ws.settings.validate in when:
        ls.validation.changed(uri, delay)


@server.feature(T.INITIALIZE)
def initialize(ls: SpvServer, params: T.InitializeParams):
    _update_settings(ls, params.initialization_options)
    roots = [f.uri for f in params.workspace_folders or []] or [params.root_uri or ""]
    ls.ws.folders = [p for p in map(sourcefiles.path_of, roots) if p is not None]
    # pygls announces this choice; columns must be counted in it.
    enc = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
    ls.encoding = str(getattr(enc, "value", enc))
    # Pull when the client offers it and can be told to pull again (spirv-val's result comes later);
    # else push. Never both: a client that has both shows each diagnostic twice.
    caps = params.capabilities
    ls.refresh = bool(caps.workspace and caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support)
    ls.pull = bool(caps.text_document and caps.text_document.diagnostic) and ls.refresh
    ls.takes_progress = bool(caps.window and caps.window.work_done_progress)
    warm(ls.protocol._converter)  # what the first didOpen would build and no document needs
    if cache.enabled():
        cache.stamp()  # this spvls's files, read once
    parallel.enabled = True  # a large module's whole check on both cores (checks/parallel.py)


@server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: SpvServer, params: T.DidChangeConfigurationParams):
    _update_settings(ls, params.settings)
    ls.ws.invalidate()
    for uri in list(ls.ws.docs):
        if ls.ws.settings.validate == OFF:
            ls.validation.forget(uri)
        _validate(ls, uri, (ON_TYPE, ON_SAVE), delay=0)
        _publish(ls, uri)
    if ls.pull and ls.refresh:
        ls.workspace_diagnostic_refresh(None)


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: SpvServer, params: T.DidOpenTextDocumentParams):
    d = params.text_document
    if d.uri in ls.ws.docs:  # opened again without a close: nothing of the old text stays
        _forget(ls, d.uri)
    key = _cache_key(ls, d.uri, d.text)
    kept = cache.get(key) if key is not None else None
    if kept is not None and not ls.pull and ls.protocol.writer is not None:  # shown before the document is parsed
        fields = {"uri": d.uri, "version": d.version}
        ls.protocol.writer.write(
            transport.notification_with_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, fields, "diagnostics", kept)
        )
    doc = ls.ws.open(d.uri, d.text, d.version)
    ls.opened_version[d.uri] = d.version
    d.text = ""  # the Document has it: the message's copy is not held through the analysis
    if kept is not None and key is not None and ls.pull:
        # The client pulls: the pull that follows the open is answered from the cache, and the
        # analysis waits a moment for it (_confirm; any request that needs the model runs it first).
        ls.unconfirmed[d.uri] = (d.version, kept, key)
        asyncio.get_running_loop().call_later(CONFIRM_AFTER, _confirm, ls, d.uri)
        _validate(ls, d.uri, (ON_TYPE, ON_SAVE), delay=CONFIRM_AFTER)
        return
    _check_with_progress(ls, d.uri, doc)
    if kept is None:
        _publish(ls, d.uri)
    if key is not None:  # kept for the next open; what a hit showed, checked
        native = _native_json(ls, d.uri)
        if native is not None and native != kept:
            if kept is not None:  # stale (a shader source file that appeared since, say)
                _publish(ls, d.uri)
            cache.put(key, native)
    parallel.settle()  # what the next keystroke would compute, once the diagnostics are out
    _validate(ls, d.uri, (ON_TYPE, ON_SAVE), delay=0)
    trim()  # the message's and the build's freed pages go back (glibc keeps them; the next peak would start there)


def _check_with_progress(ls: SpvServer, uri: str, doc) -> None:
    """Analyse a large document whole inside a work-done progress; published (or pulled) after."""
    with progress.around(
        ls, ls.takes_progress, len(doc.texts), "spvls", f"checking {uri.rsplit('/', 1)[-1]} ({len(doc.texts):,} lines)"
    ):
        try:
            ls.ws.analysis(uri)
        except Exception:
            pass


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: SpvServer, params: T.DidChangeTextDocumentParams):
    uri = params.text_document.uri
    doc = ls.ws.docs.get(uri)
    if doc is None:
        log.warning("change for a document that is not open: %s", uri)
        return
    for change in params.content_changes:
        before = len(doc.texts)
        if isinstance(change, T.TextDocumentContentChangePartial):
            r = change.range
            start = _cursor_raw(doc, r.start)
            end = _cursor_raw(doc, r.end)
            doc.replace(start, end, change.text)
            ls.validation.edited(uri, start[0], end[0], len(doc.texts) - before)
        else:
            doc.set_text(change.text)
            ls.validation.edited(uri, 0, before, 0)
    doc.version = params.text_document.version
    whole = ls.ws.checks_whole(uri)
    if whole:  # lines added or removed: the model is built again, whole
        _check_with_progress(ls, uri, doc)
    _publish(ls, uri)
    parallel.settle()
    _validate(ls, uri, (ON_TYPE,))
    if whole:
        trim()  # the previous model's pages (see did_open)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: SpvServer, params: T.DidSaveTextDocumentParams):
    _validate(ls, params.text_document.uri, (ON_SAVE,), delay=0)


def _cursor_raw(doc, p: T.Position) -> tuple[int, int]:
    """Edit positions: past the end of the document means the end."""
    if p.line >= len(doc.texts):
        return len(doc.texts), 0
    return p.line, _to_cp(doc.texts[p.line], p.character)


# Seconds a document opened from the cache, for a client that pulls, waits for its analysis: the
# pull right after the open is answered from the cache meanwhile.
CONFIRM_AFTER = 0.05


def _confirm(ls: SpvServer, uri: str) -> None:
    """The analysis of a document whose pull was answered from the cache: if it finds otherwise,
    the cache is corrected and the client asked to pull again."""
    found = ls.unconfirmed.pop(uri, None)
    doc = ls.ws.docs.get(uri)
    if found is None or doc is None:
        return
    version, kept, key = found
    if doc.version != version:  # edited since: the kept answer was for the text as opened
        return
    _check_with_progress(ls, uri, doc)
    native = _native_json(ls, uri)
    if native is not None and native != kept:
        cache.put(key, native)
        if ls.refresh:
            ls.workspace_diagnostic_refresh(None)


def _forget(ls: SpvServer, uri: str) -> None:
    """What the server holds for a document beside the workspace: its validation, tokens and
    converted diagnostics."""
    ls.opened_version.pop(uri, None)
    ls.unconfirmed.pop(uri, None)
    ls.validation.forget(uri)
    ls.tokens_sent.pop(uri, None)
    ls.lsp_diagnostics.pop(uri, None)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SpvServer, params: T.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    doc = ls.ws.docs.get(uri)
    if doc is not None and doc.version != ls.opened_version.get(uri):
        # Edited since it was opened: what it shows now, for when it is opened again.
        key = _cache_key(ls, uri, doc.text)
        native = _native_json(ls, uri) if key is not None else None
        if key is not None and native is not None:
            cache.put(key, native)
    _forget(ls, uri)
    ls.ws.close(uri)
    if not ls.pull:
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(params.text_document.uri, []))


@server.feature(
    T.TEXT_DOCUMENT_DIAGNOSTIC, T.DiagnosticOptions(inter_file_dependencies=False, workspace_diagnostics=False)
)
@_guard
def pull_diagnostics(ls: SpvServer, params: T.DocumentDiagnosticParams):
    uri = params.text_document.uri
    found, doc = ls.unconfirmed.get(uri), ls.ws.docs.get(uri)
    if found is not None and doc is not None and doc.version == found[0] and not ls.ws.analysed(uri):
        _note(ls, f"diagnostics of {uri} from the cache")
        items = ls.protocol._converter.structure(json.loads(found[1]), list[T.Diagnostic])
        return T.RelatedFullDocumentDiagnosticReport(items=items)
    if found is not None:
        _confirm(ls, uri)
    return T.RelatedFullDocumentDiagnosticReport(items=_diagnostics(ls, uri))


# -- features -------------------------------------------------------------------------------
def _module(ls: SpvServer, uri: str):
    if uri in ls.unconfirmed:  # opened from the cache: the analysis this request needs confirms it
        _confirm(ls, uri)
    a = ls.ws.analysis(uri)
    return (a.module, a.module.doc) if a else (None, None)


def _positional(fn):
    """A request at a position: fn(params, module, document, line, column), where the column counts
    code points; an unknown document answers None."""

    @wraps(fn)
    def run(ls: SpvServer, params):
        m, doc = _module(ls, params.text_document.uri)
        return None if m is None else fn(params, m, doc, *_cursor(doc, params.position))

    del run.__wrapped__  # pygls reads the signature to pass the server: it must see (ls, params)
    return run


@server.feature(
    T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["%", " ", "|", '"'], resolve_provider=True)
)
@_guard
@_positional
def on_completion(params: T.CompletionParams, m, doc, line: int, col: int):
    found = completion.complete(m, line, col)
    uri = params.text_document.uri
    # An id is documented from its module, so its item says which document that is.
    datas = [{**it.data, "uri": uri} if it.data.get("kind") == "id" else it.data for it in found]
    # Items that differ only in label, detail and order share their range, format and data once
    # (LSP 3.17 itemDefaults), when the client takes them: 277 capabilities then cost 37 KB of JSON, not 90.
    shared = (
        _defaults_supported()
        and found
        and len({(it.replace_start, it.replace_end, it.snippet) for it in found}) == 1
        and all(it.insert_text in (None, it.label) for it in found)
        and all(d == datas[0] for d in datas)
    )
    defaults = None
    if shared:
        first = found[0]
        rng = _range(doc, line, first.replace_start, _end(first, col)) if first.replace_start is not None else None
        defaults = T.CompletionItemDefaults(
            edit_range=rng,
            data=datas[0],
            insert_text_format=(T.InsertTextFormat.Snippet if found[0].snippet else T.InsertTextFormat.PlainText),
        )
    items = []
    for it, data in zip(found, datas):
        if shared:
            items.append(
                T.CompletionItem(label=it.label, kind=_ITEM_KIND.get(it.kind), detail=it.detail, sort_text=it.sort_text)
            )
            continue
        edit = None
        if it.replace_start is not None:
            edit = T.TextEdit(_range(doc, line, it.replace_start, _end(it, col)), it.insert_text or it.label)
        items.append(
            T.CompletionItem(
                label=it.label,
                kind=_ITEM_KIND.get(it.kind),
                detail=it.detail,
                sort_text=it.sort_text,
                data=data,
                text_edit=edit,
                insert_text_format=T.InsertTextFormat.Snippet if it.snippet else T.InsertTextFormat.PlainText,
            )
        )
    return T.CompletionList(is_incomplete=completion.capped(found), items=items, item_defaults=defaults)


def _end(it, col: int) -> int:
    return col if it.replace_end is None else max(col, it.replace_end)


def _defaults_supported() -> bool:
    text = server.client_capabilities.text_document
    listing = text.completion.completion_list if text and text.completion else None
    return {"editRange", "data", "insertTextFormat"} <= set((listing.item_defaults if listing else None) or ())


@server.feature(T.COMPLETION_ITEM_RESOLVE)
@_guard
def on_completion_resolve(ls: SpvServer, item: T.CompletionItem):
    data = item.data if isinstance(item.data, dict) else {}
    m = _module(ls, data["uri"])[0] if isinstance(data.get("uri"), str) else None
    md = completion.resolve(item.label, data, m)
    if md:
        item.documentation = T.MarkupContent(T.MarkupKind.Markdown, md)
    return item


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_guard
@_positional
def on_hover(params: T.HoverParams, m, doc, line: int, col: int):
    a = server.ws.analysis(params.text_document.uri)
    found = rule_notes.with_rules(hover.hover(m, line, col, server.ws.folders), a.diagnostics if a else (), line, col)
    if not found:
        return None
    text, (start, end) = found
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text), _range(doc, line, start, end))


def _location(doc, uri, span) -> T.Location:
    return T.Location(uri, _range(doc, *span))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_guard
@_positional
def on_definition(params: T.DefinitionParams, m, doc, line: int, col: int):
    span = navigation.definition(m, line, col)
    if span:
        return _location(doc, params.text_document.uri, span)
    found = source.definition(m, line, col, server.ws.folders)  # on an opcode: the shader source it came from
    if found is None:
        return None
    path, sl, sc = found
    return T.Location(path.as_uri(), T.Range(T.Position(sl, sc), T.Position(sl, sc)))


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
@_guard
@_positional
def on_references(params: T.ReferenceParams, m, doc, line: int, col: int):
    spans = navigation.references(m, line, col, params.context.include_declaration)
    return [_location(doc, params.text_document.uri, s) for s in spans]


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
@_guard
@_positional
def on_highlight(params: T.DocumentHighlightParams, m, doc, line: int, col: int):
    return [
        T.DocumentHighlight(_range(doc, *s), T.DocumentHighlightKind.Write if w else T.DocumentHighlightKind.Read)
        for s, w in navigation.highlights(m, line, col)
    ]


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
@_guard
@_positional
def on_prepare_rename(params: T.PrepareRenameParams, m, doc, line: int, col: int):
    span = navigation.prepare_rename(m, line, col)
    return _range(doc, *span) if span else None


@server.feature(T.TEXT_DOCUMENT_RENAME, T.RenameOptions(prepare_provider=True))
@_guard
@_positional
def on_rename(params: T.RenameParams, m, doc, line: int, col: int):
    try:
        edits = navigation.rename(m, line, col, params.new_name)
    except navigation.RenameError as e:
        # Refused with the reason, as an LSP error response.
        raise JsonRpcInvalidParams(str(e)) from None
    uri = params.text_document.uri
    return T.WorkspaceEdit(changes={uri: [T.TextEdit(_range(doc, *s), new) for s, new in edits]})


def _doc_symbol(doc, s) -> T.DocumentSymbol:
    full = T.Range(_pos(doc, s.line, 0), _pos(doc, s.end_line, len(_line_text(doc, s.end_line))))
    return T.DocumentSymbol(
        name=s.name or "?",
        kind=_SYMBOL_KIND[s.kind],
        detail=s.detail,
        range=full,
        selection_range=_range(doc, s.line, *s.sel),
        children=[_doc_symbol(doc, c) for c in s.children] or None,
    )


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_guard
def on_document_symbol(ls: SpvServer, params: T.DocumentSymbolParams):
    m, doc = _module(ls, params.text_document.uri)
    return [_doc_symbol(doc, s) for s in symbols.document_symbols(m)] if m else None


def _call_item(uri: str, doc, it: calls.CallItem) -> T.CallHierarchyItem:
    last = len(_line_text(doc, it.last_line))
    return T.CallHierarchyItem(
        name=it.name,
        kind=T.SymbolKind.Function,
        uri=uri,
        detail=it.detail or None,
        range=T.Range(_pos(doc, it.first_line, 0), _pos(doc, it.last_line, last)),
        selection_range=_range(doc, *it.selection),
        data={"id": it.id},
    )


def _call_edges(ls: SpvServer, item: T.CallHierarchyItem, edges) -> list[tuple[T.CallHierarchyItem, list[T.Range]]]:
    m, doc = _module(ls, item.uri)
    fn_id = (item.data or {}).get("id") if isinstance(item.data, dict) else None
    if m is None or not fn_id:
        return []
    return [(_call_item(item.uri, doc, it), [_range(doc, *s) for s in sites]) for it, sites in edges(m, fn_id)]


@server.feature(T.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
@_guard
@_positional
def on_prepare_calls(params: T.CallHierarchyPrepareParams, m, doc, line: int, col: int):
    it = calls.function_at(m, line, col)
    return [_call_item(params.text_document.uri, doc, it)] if it else None


@server.feature(T.CALL_HIERARCHY_INCOMING_CALLS)
@_guard
def on_incoming_calls(ls: SpvServer, params: T.CallHierarchyIncomingCallsParams):
    return [T.CallHierarchyIncomingCall(it, ranges) for it, ranges in _call_edges(ls, params.item, calls.incoming)]


@server.feature(T.CALL_HIERARCHY_OUTGOING_CALLS)
@_guard
def on_outgoing_calls(ls: SpvServer, params: T.CallHierarchyOutgoingCallsParams):
    return [T.CallHierarchyOutgoingCall(it, ranges) for it, ranges in _call_edges(ls, params.item, calls.outgoing)]


@server.feature(T.WORKSPACE_SYMBOL)
@_guard
def on_workspace_symbol(ls: SpvServer, params: T.WorkspaceSymbolParams):
    mods = {uri: ls.ws.analysis(uri).module for uri in list(ls.ws.docs)}
    return [
        T.WorkspaceSymbol(
            name=s.name, kind=_SYMBOL_KIND[s.kind], location=T.Location(uri, _range(mods[uri].doc, s.line, *s.sel))
        )
        for uri, s in symbols.workspace_symbols(mods, params.query)
    ]


def _format_edits(ls: SpvServer, uri: str, first: int = 0, last: int | None = None) -> list[T.TextEdit] | None:
    doc = ls.ws.docs.get(uri)
    if doc is None:
        return None
    return [T.TextEdit(_range(doc, n, 0, len(old)), new) for n, old, new in formatting.format_lines(doc, first, last)]


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@_guard
def on_format(ls: SpvServer, params: T.DocumentFormattingParams):
    return _format_edits(ls, params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_RANGE_FORMATTING)
@_guard
def on_format_range(ls: SpvServer, params: T.DocumentRangeFormattingParams):
    r = params.range
    return _format_edits(ls, params.text_document.uri, r.start.line, r.end.line)


@server.feature(T.TEXT_DOCUMENT_FOLDING_RANGE)
@_guard
def on_folding(ls: SpvServer, params: T.FoldingRangeParams):
    m, _ = _module(ls, params.text_document.uri)
    return (
        [T.FoldingRange(a, b, kind=T.FoldingRangeKind.Region) for a, b, _k in symbols.folding_ranges(m)] if m else None
    )


LEGEND = T.SemanticTokensLegend(token_types=tokens.TOKEN_TYPES, token_modifiers=tokens.TOKEN_MODIFIERS)


def _encode(doc, toks) -> array:
    """LSP's relative encoding; columns move from code points to the negotiated units only on
    lines that are not ASCII."""
    return tokens.encode(doc.texts, toks, _from_cp)[0]


_result_ids = itertools.count(1)


def _full_tokens(ls: SpvServer, uri: str) -> tokens.Sent | None:
    """The document's tokens, remembered under a new result id for the next delta request."""
    m, doc = _module(ls, uri)
    if m is None:
        return None
    data, counts = tokens.encode(doc.texts, tokens.iter_tokens(m), _from_cp)
    ls.tokens_sent[uri] = sent = tokens.Sent(str(next(_result_ids)), data, counts, m)
    return sent


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
@_guard
def on_tokens_full(ls: SpvServer, params: T.SemanticTokensParams):
    sent = _full_tokens(ls, params.text_document.uri)
    # The kept array itself, not a copy: a synchronous handler's answer is sent as it returns,
    # before a later delta can splice the array (see _Protocol._send_data).
    return T.SemanticTokens(data=sent.data, result_id=sent.result_id) if sent else None


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA)
@_guard
def on_tokens_delta(ls: SpvServer, params: T.SemanticTokensDeltaParams):
    """After an edit, only what changed: a 100k-line module's tokens are megabytes of JSON."""
    uri = params.text_document.uri
    before = ls.tokens_sent.get(uri)
    if before is not None and before.result_id == params.previous_result_id:
        m, _ = _module(ls, uri)
        edit = tokens.splice(before, m, _from_cp) if m is not None else None
        if edit is not None:  # only the lines edited since: milliseconds at 100k lines
            before.result_id = str(next(_result_ids))
            return T.SemanticTokensDelta(
                edits=[T.SemanticTokensEdit(*edit)] if edit[1] or edit[2] else [], result_id=before.result_id
            )
    sent = _full_tokens(ls, uri)
    if sent is None:
        return None
    if before is None or before.result_id != params.previous_result_id:
        return T.SemanticTokens(data=sent.data, result_id=sent.result_id)
    start, deleted, inserted = tokens.delta(before.data, sent.data)
    edits = [T.SemanticTokensEdit(start, deleted, inserted)] if deleted or inserted else []
    return T.SemanticTokensDelta(edits=edits, result_id=sent.result_id)


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
@_guard
def on_tokens_range(ls: SpvServer, params: T.SemanticTokensRangeParams):
    m, doc = _module(ls, params.text_document.uri)
    if m is None:
        return None
    toks = tokens.semantic_tokens(m, params.range.start.line, params.range.end.line)
    return T.SemanticTokens(data=_encode(doc, toks))


@server.feature(T.TEXT_DOCUMENT_SIGNATURE_HELP, T.SignatureHelpOptions(trigger_characters=[" "]))
@_guard
@_positional
def on_signature(params: T.SignatureHelpParams, m, doc, line: int, col: int):
    sig = signature.signature_help(m, line, col)
    if sig is None:
        return None
    return T.SignatureHelp(
        signatures=[
            T.SignatureInformation(
                sig.label,
                T.MarkupContent(T.MarkupKind.Markdown, sig.documentation),
                [T.ParameterInformation(p) for p in sig.parameters],
            )
        ],
        active_signature=0,
        active_parameter=sig.active,
    )


@server.feature(T.TEXT_DOCUMENT_INLAY_HINT)
@_guard
def on_inlay(ls: SpvServer, params: T.InlayHintParams):
    m, doc = _module(ls, params.text_document.uri)
    if m is None:
        return []
    first, last = params.range.start.line, params.range.end.line
    hints = (
        [
            T.InlayHint(
                _pos(doc, line, col),
                label if kind == "type" else f"={label}",
                kind=T.InlayHintKind.Type if kind == "type" else T.InlayHintKind.Parameter,
            )
            for line, col, label, kind in inlay.inlay_hints(m, first, last)
        ]
        if ls.ws.settings.inlay_hints
        else []
    )
    if ls.ws.settings.source_hints:
        hints += [
            T.InlayHint(_pos(doc, line, col), label, padding_left=True)
            for line, col, label in source.source_hints(m, first, last)
        ]
    return hints


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
@_guard
def on_code_action(ls: SpvServer, params: T.CodeActionParams):
    a = ls.ws.analysis(params.text_document.uri)
    if a is None:
        return None
    doc, uri = a.module.doc, params.text_document.uri
    lo, hi = params.range.start.line, params.range.end.line
    out = []
    for d in a.diagnostics:
        if not (lo <= doc.position(d.line, d.start)[0] <= hi):
            continue
        fixes = check_fixes.offered(a.module, d)
        for fix in fixes:
            edits = [T.TextEdit(_range(doc, e.line, e.start, e.end), e.text) for e in fix.edits]
            out.append(
                T.CodeAction(
                    fix.title,
                    kind=T.CodeActionKind.QuickFix,
                    diagnostics=[_lsp_diagnostic(doc, uri, d, a.module, ls.ws.folders)],
                    is_preferred=fix is fixes[0],
                    edit=T.WorkspaceEdit(changes={uri: edits}),
                )
            )
    return out


# -- workspace/executeCommand: COMMANDS maps each name to fn(ls, *arguments) ------------------
def show_cfg(ls: SpvServer, *args):
    """[{"uri": U, "position": P, "svg"?: bool}] -> the CFG of the function at P: {"function", "dot", "svg" (null
    without Graphviz), "blocks": [{"node", "label", "range"}], "current": the node at P, "message"}."""
    where = args[0] if args and isinstance(args[0], dict) else {}
    uri, p = where.get("uri"), where.get("position") or {}
    if (
        not isinstance(uri, str)
        or not isinstance(p, dict)
        or not all(isinstance(p.get(k, 0), int) for k in ("line", "character"))
    ):
        raise JsonRpcInvalidParams('spvls.showCfg takes [{"uri": ..., "position": {"line", "character"}}]')
    a = ls.ws.analysis(uri)
    if a is None:
        raise JsonRpcInvalidParams(f"spvls.showCfg: {uri} is not open")
    doc = a.module.doc
    line, _ = _cursor(doc, T.Position(max(0, p.get("line", 0)), max(0, p.get("character", 0))))
    v = cfg_dot.view(a.module, a.diagnostics, line)
    # A client that draws the DOT itself (the VS Code panel) passes "svg": false: Graphviz takes a
    # second on a 300-block function.
    want_svg = where.get("svg", True) is not False
    return {
        "function": v.function,
        "dot": v.dot,
        "svg": cfg_dot.render_svg(v.dot) if v.dot and want_svg else None,
        "blocks": [
            {"node": node, "label": label, "range": _plain_range(_range(doc, *span))} for node, label, span in v.blocks
        ],
        "current": v.current,
        "message": v.message,
    }


def _plain_range(r: T.Range) -> dict:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def disassemble(ls: SpvServer, *args):
    """[{"uri": U}] -> {"text": the disassembly of the binary module at U}."""
    try:
        return binary_commands.disassemble(args)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


def assemble(ls: SpvServer, *args):
    """[{"uri": U, "text": T}] -> {"words": N}: T with U's ids, written over U atomically; refused
    with the assembler's message and line, U untouched."""
    try:
        return binary_commands.assemble(args, ls.ws.settings.target_env)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


COMMANDS = {"spvls.showCfg": show_cfg, "spvls.disassemble": disassemble, "spvls.assemble": assemble}


def _command(name: str, fn):
    """A failing command is logged with its name and answers that request alone with an error."""

    def run(ls: SpvServer, *args):
        try:
            return fn(ls, *args)
        except JsonRpcException:
            raise
        except Exception as e:
            _log_fault(ls, f"{name} failed", e)
            raise JsonRpcInternalError(f"spvls: {name} failed: {e}") from None

    return run


for _name, _fn in COMMANDS.items():
    server.command(_name)(_command(_name, _fn))


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> int:
    logging.basicConfig(level=logging.WARNING, format="spvls: %(levelname)s %(message)s")
    if tcp:
        server.start_tcp(host, port)
    else:
        server.start_io()
    return 0
