"""The pygls server: its protocol's departures from pygls, the transport it reads, and the table of
handlers (each handler module's HANDLERS) it registers."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from array import array
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from cattrs import ClassValidationError, transform_error
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__, transport
from ..binding.spirv_tools import trim, tune_heap
from ..state.documents import Session
from . import capabilities, wire

log = logging.getLogger("spvls")


_NO_CAPABILITIES: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": {}}


class _Unreadable(NamedTuple):
    """A request whose params do not fit the protocol's types: answered with InvalidParams."""

    id: int | str
    method: str
    reason: str


class _Protocol(LanguageServerProtocol):
    """Text sync goes straight to spvls' own documents, which re-parse only the edited lines.

    pygls would also keep a copy of each text and re-split all of it on every keystroke.
    """

    _server: SpvServer  # the only server made with this protocol
    muted: int | str | None = None  # initialize's id when server.early answered it: not answered twice
    # The ids of requests server.early sent (a progress' create): their answers are not pygls' own.
    foreign: frozenset[int | str] = frozenset()

    def structure_message(self, data: Any) -> Any:
        # pygls raises here, before it knows the request's id, and the request is never answered.
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            if not (isinstance(data, dict) and "method" in data and data.get("id") is not None):
                raise
            cause = e.__cause__
            reason = "; ".join(transform_error(cause)) if isinstance(cause, ClassValidationError) else repr(cause)
            return _Unreadable(data["id"], str(data["method"]), reason)

    def handle_message(self, message: Any) -> None:
        if not hasattr(message, "method") and getattr(message, "id", None) in self.foreign:
            return
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

    def _send_data(self, data: Any) -> None:
        if self.muted is not None and getattr(data, "id", None) == self.muted and not hasattr(data, "method"):
            self.muted = None  # initialize, handed over by server.early, which answered it
            return
        result = getattr(data, "result", None)
        if isinstance(result, wire.Raw):
            if self.writer is not None and self._include_headers:
                self.writer.write(transport.response_with_raw(data.id, result.json))
                return
            data.result = json.loads(result.json)
        # Semantic tokens kept as an array (tokens.Sent) go out without becoming a list first.
        if isinstance(result, T.SemanticTokens) and isinstance(result.data, array) and self._include_headers:
            keep: dict[str, object] = {"resultId": result.result_id} if result.result_id is not None else {}
            if self.writer is not None:
                # Part by part: the whole answer (megabytes on a large module) is never held. Every write
                # is on the loop's thread, so no other message lands between the parts.
                for part in transport.response_with_ints(data.id, keep, "data", result.data):
                    self.writer.write(part)
                trim()  # the encoding's freed pages go back to the system
            return
        super()._send_data(data)

    def send_raw(self, data: bytes) -> bool:
        """Write a message already framed (transport.notification_with_raw); False without a
        framed writer."""
        if self.writer is None or not self._include_headers:
            return False
        self.writer.write(data)
        return True

    def _to_handler(self, method: str, params: Any) -> Generator[Any, Any, None]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    @lsp_method(T.INITIALIZE)
    def lsp_initialize(self, params: T.InitializeParams) -> Generator[Any, Any, T.InitializeResult]:
        result = yield from super().lsp_initialize(params)
        if not self._server.session.client.pull:  # one diagnostics channel per client (see initialize)
            result.capabilities.diagnostic_provider = None
        return result

    @lsp_method(T.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: T.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(T.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: T.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(T.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: T.DidCloseTextDocumentParams) -> Generator[Any, Any, None]:
        yield from self._to_handler(T.TEXT_DOCUMENT_DID_CLOSE, params)


class SpvServer(LanguageServer):
    """pygls' server with spvls' `Session` (all state across requests) and transport."""

    protocol: _Protocol

    def __init__(self, session: Session | None = None) -> None:
        super().__init__(
            "spvls", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Incremental, protocol_cls=_Protocol
        )
        self.session = session or Session()

    def start_io(
        self,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
        framer: transport.Framer | None = None,
        first: Sequence[object] = (),
        opened: Sequence[str] = (),
    ) -> None:
        """pygls' stdio loop, with a reader that survives broken framing (spvls.transport). Taking
        over from server.early: its framer, the messages it left, the documents it opened."""
        self._stop_event = stop = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def main() -> None:
            if opened:
                asyncio.get_running_loop().call_soon(self._opened_early, opened)
            read = stdin or sys.stdin.buffer
            await transport.serve(stop, read, self._dispatch, self._framing_problem, framer, first)

        try:
            asyncio.run(main())
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

    def _opened_early(self, uris: Sequence[str]) -> None:
        """What sync.did_open does after publishing, for the documents server.early opened."""
        from ..checks import parallel
        from ..state.workspace import ON_SAVE, ON_TYPE
        from .sync import validate

        parallel.settle()
        for uri in uris:
            validate(self, uri, (ON_TYPE, ON_SAVE), delay=0)
        trim()

    def _dispatch(self, messages: list[Any]) -> None:
        try:  # the raw message goes once structured (see transport.Dispatch)
            message = messages.pop()
            if isinstance(message, transport.Refused):  # JSON-RPC: a parse error is answered with a null id
                self.protocol._send_response(None, error=JsonRpcParseError(message.reason).to_response_error())  # type: ignore[arg-type]
                return
            structured = self.protocol.structure_message(message)
            if (
                isinstance(structured, _Unreadable)
                and structured.method == T.INITIALIZE
                and self.protocol.muted is not None
            ):
                # server.early answered it from the params as they came, which pygls' types refuse: pygls
                # is told of no client capabilities (the session keeps what early read of them).
                log.warning("initialize: %s; the protocol library is told of no client capabilities", structured.reason)
                structured = self.protocol.structure_message({**message, "params": _NO_CAPABILITIES})
            self.protocol.handle_message(structured)
        except Exception as e:
            log.exception("cannot handle message")
            self._report_server_error(e, JsonRpcException)

    def _framing_problem(self, text: str) -> None:
        log.warning("input: %s", text)


class _AnsweredErrors(logging.Filter):
    """pygls logs every error answer with a traceback. Ours are deliberate (a refused rename) or
    already logged once, with the request's place, by base.guard: an editor's log shows neither twice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], JsonRpcException))


def create(session: Session | None = None) -> SpvServer:
    """A server with every handler registered (around server.early's session, if it ran)."""
    from . import commands, editing, lifecycle, navigate, outline, sync, tokens

    logging.getLogger("pygls.protocol.json_rpc").addFilter(_AnsweredErrors())
    ls = SpvServer(session)
    handlers = [h for module in (lifecycle, sync, navigate, outline, editing, tokens) for h in module.HANDLERS]
    # What server.early announces before pygls is imported must be what is registered here.
    if sorted(h.method for h in handlers) != sorted(capabilities.METHODS):
        raise RuntimeError("the handlers and server/capabilities.py name different methods")
    if tuple(commands.COMMANDS) != capabilities.COMMANDS:
        raise RuntimeError("commands.py and server/capabilities.py name different commands")
    for h in handlers:
        ls.feature(h.method, capabilities.structured(h.method, ls.protocol._converter))(h.fn)
    for name, fn in commands.COMMANDS.items():
        ls.command(name)(commands.guarded(name, fn))
    ls.session.on_validated(lambda uri: sync.validated(ls, uri), note=lambda text: sync.note(ls, text))
    return ls


def run(
    tcp: bool = False,
    host: str = "127.0.0.1",
    port: int = 2087,
    ls: SpvServer | None = None,
    framer: transport.Framer | None = None,
    first: Sequence[object] = (),
    opened: Sequence[str] = (),
    source_roots: Sequence[str] = (),
) -> int:
    logging.basicConfig(level=logging.WARNING, format="spvls: %(levelname)s %(message)s")
    tune_heap()
    ls = ls or create()
    if source_roots:
        ls.session.ws.given_roots = [Path(os.path.abspath(r)) for r in source_roots]
    if tcp:
        ls.start_tcp(host, port)
    else:
        ls.start_io(framer=framer, first=first, opened=opened)
    return 0
