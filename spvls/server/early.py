"""The first answers, before the protocol library is imported: `initialize`, its result built from
the client's capabilities as pygls builds it (server.capabilities), settings changed before any
document is open, and the first `didOpen`, checked and published as the wire has it
(server.published), or for a client that pulls diagnostics, its first pull answered (the
requests that came between held, and handed to pygls after that answer: LSP lets a server answer
in any order). pygls and lsprotocol take ~0.4 s to import here, longer than everything the first
diagnostics of a 10k-line module need; they are imported after them. A large document is checked
here too, inside its progress: what the client sends meanwhile waits for that check (pygls' server,
once imported, would answer it while the document is built off its loop), so that the first
document's diagnostics come first.

At the first message this front does not answer (or a broken frame, or the end of input), the pygls
server takes over with the same Session, the framer's state and the messages left; `initialize`
is handed to it again (its answer not sent twice) so pygls knows the client."""

from __future__ import annotations

import logging
import os
import select
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from .. import __version__
from ..checks import parallel
from ..state import progress
from ..state.documents import Session
from ..state.warm import warm_checks
from ..transport import Framer, framed
from . import capabilities, published

log = logging.getLogger("spvls")

WARNING = 2  # LSP's MessageType.Warning
# Seconds without a message after which pygls takes over while a pull is awaited: a client that
# pulls later (or waits for a held request's answer first) is served by pygls from there.
PULL_WAIT = 0.25


def _fits(params: dict[str, Any]) -> bool:
    """Whether `initialize`'s params have the JSON types LSP gives them where pygls reads them first;
    others are left to pygls to answer (with the error its types find)."""
    process, folders, info = params.get("processId"), params.get("workspaceFolders"), params.get("clientInfo")
    return (
        isinstance(params.get("capabilities"), dict)
        and (process is None or (isinstance(process, int) and not isinstance(process, bool)))
        and all(params.get(k) is None or isinstance(params[k], str) for k in ("rootUri", "rootPath", "locale"))
        and params.get("trace") in (None, "off", "messages", "verbose")
        and (folders is None or (isinstance(folders, list) and all(_folder(f) for f in folders)))
        and (info is None or (isinstance(info, dict) and isinstance(info.get("name"), str)))
    )


def _folder(f: object) -> bool:
    return isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)


class Front:
    """The messages answered before pygls: what they did to the session, and what pygls must see."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.session = Session()
        self.replay: list[dict[str, Any]] = []  # initialize and initialized, handed to pygls again
        self.muted: int | str | None = None  # initialize's id: pygls' answer to the replay is not sent
        self.opened: list[str] = []  # documents opened here: validated once pygls runs
        self.pulling: str | None = None  # the document opened here whose first pull is awaited
        self.held: list[dict[str, Any]] = []  # requests that came meanwhile: pygls answers them after it
        self.done = False  # the first diagnostics are out
        self.asked: set[str] = set()  # ids of the requests sent here: their answers are not pygls'

    def _write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def _publish(self, uri: str, version: int, diags: list[dict[str, Any]]) -> None:
        self._write(published.notification(uri, version, diags))

    def handle(self, m: object) -> bool:
        """Answer the message here; False leaves it (and all after it) to pygls."""
        if not isinstance(m, dict) or self.done:
            return False
        if "method" not in m and m.get("id") in self.asked:  # the client's answer to a request of ours
            self.asked.discard(m["id"])
            return True
        method, params = m.get("method"), m.get("params")
        if not isinstance(params, dict):
            return False
        try:
            if method == "initialize" and self.muted is None and isinstance(m.get("id"), (int, str)):
                return self._initialize(m, params)
            if method == "initialized" and self.muted is not None:
                self.replay.append(m)
                return True
            if self.pulling is not None:
                return self._pulled(m, params)
            if method == "workspace/didChangeConfiguration" and self.muted is not None and not self.opened:
                return self._configure(params)
            if method == "textDocument/didOpen" and self.muted is not None:
                return self._open(params)
        except Exception:  # pygls' handlers answer it, and report what went wrong
            log.debug("left to pygls: %s", method, exc_info=True)
        return False

    def _initialize(self, m: dict[str, Any], params: dict[str, Any]) -> bool:
        if not _fits(params):
            return False
        caps = params["capabilities"]
        problems = self.session.start(params, capabilities.position_encoding(caps))
        result = capabilities.initialize_result(caps, self.session.client.pull, __version__)
        self._write(framed({"jsonrpc": "2.0", "id": m["id"], "result": result}))
        if problems:
            show = {"type": WARNING, "message": "\n".join(problems)}
            self._write(framed({"jsonrpc": "2.0", "method": "window/showMessage", "params": show}))
        self.muted = m["id"]
        self.replay.append(m)
        parallel.enabled = True  # as lifecycle.initialize: a large first open is checked here
        return True

    def _configure(self, params: dict[str, Any]) -> bool:
        """Settings changed while no document is open, or only one whose first pull is awaited (none
        to publish, none pulled to pull again): as lifecycle.did_change_configuration."""
        problems = self.session.update_settings(params.get("settings"))
        if problems:
            show = {"type": WARNING, "message": "\n".join(problems)}
            self._write(framed({"jsonrpc": "2.0", "method": "window/showMessage", "params": show}))
        self.session.ws.invalidate()
        return True

    def _open(self, params: dict[str, Any]) -> bool:
        """A document opened: as sync.did_open, a large one inside a progress. A client that pulls
        gets its first pull answered here too, unless the cache holds the text (pygls then answers
        the pull from it and confirms it after)."""
        item = params.get("textDocument")
        pull = self.session.client.pull
        if not isinstance(item, dict) or (pull and os.name != "posix"):  # waiting needs select() on a pipe
            return False
        uri, text, version = item.get("uri"), item.get("text"), item.get("version")
        if not isinstance(uri, str) or not isinstance(text, str) or type(version) is not int:
            return False
        session = self.session
        recalled = session.recall(uri, text, published.MAX_PUBLISHED, can_send=True)
        kept = recalled.diagnostics if recalled is not None else None
        if pull and kept is not None:
            return False
        if kept is not None:
            self._publish(uri, version, kept)
        lines = text.count("\n") + 1
        asked, end = progress.begin_raw(
            lambda m: self._write(framed(m)),
            session.client.takes_progress,
            lines,
            "spvls",
            progress.checking(uri, lines),
        )
        if asked is not None:
            self.asked.add(asked)
        try:
            doc = session.open(uri, text, version)
            del text
            item["text"] = ""  # the Document has it: not held through the analysis
            try:
                native = published.diagnostics(session, uri, validated=False)
            except Exception:
                item["text"] = doc.text  # pygls opens it again, and reports the failure
                raise
        finally:
            end()
        if kept is None and not pull:
            self._publish(uri, version, native)
        if recalled is not None and session.remember(recalled.key, native, kept) and not pull:
            self._publish(uri, version, native)
        self.opened.append(uri)
        if pull:
            self.pulling = uri
        else:
            self.done = True
        return True

    def _pulled(self, m: dict[str, Any], params: dict[str, Any]) -> bool:
        """While the first pull is awaited: that pull answered (as sync.pull_diagnostics), another
        request held; anything else is pygls' (a notification may change what the pull answers)."""
        method, ident = m.get("method"), m.get("id")
        if method == "workspace/didChangeConfiguration" and ident is None and not self.held:
            return self._configure(params)
        if not isinstance(ident, (int, str)) or not isinstance(method, str) or method.startswith("$/"):
            return False
        document, uri = params.get("textDocument"), self.pulling
        if method == "textDocument/diagnostic" and isinstance(document, dict) and uri and document.get("uri") == uri:
            items = published.diagnostics(self.session, uri)
            self.session.opened[uri].pulled = True
            self._write(framed({"jsonrpc": "2.0", "id": ident, "result": {"kind": "full", "items": items}}))
            self.done = True
            return True
        self.held.append(m)
        return True


def _pending(stream: Any) -> bool:
    """Input waits to be read (True where select() cannot tell, as for a pipe on Windows)."""
    try:
        return bool(select.select([stream], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def serve_stdio(source_roots: Sequence[str] = ()) -> int:
    """Answer what can be answered before pygls, then run the pygls server from there.
    source_roots: directories (--source-root) where a module's source files may also be read."""
    stdin: Any = sys.stdin.buffer
    stdout = sys.stdout.buffer
    front, framer = Front(stdout), Framer()
    front.session.ws.given_roots = [Path(os.path.abspath(r)) for r in source_roots]
    left: list[object] = []
    while not front.done:
        if front.muted is not None and not front.opened and not _pending(stdin):
            warm_checks()  # idle before the first open: what its analysis would build first
        if front.pulling is not None and not select.select([stdin], [], [], PULL_WAIT)[0]:
            break  # no pull yet: pygls takes over, and answers it when it comes
        data = os.read(stdin.fileno(), 65536)  # nothing buffered here, where select() could not see it
        if not data:
            break
        messages = framer.feed(data)
        if framer.problems:  # broken framing: pygls' reader reports it and resynchronises
            left = messages
            break
        taken = 0
        while taken < len(messages) and front.handle(messages[taken]):
            taken += 1
        left = messages[taken:]
        if left:
            break
    from .app import create, run

    ls = create(front.session)
    ls.protocol.muted = front.muted
    ls.protocol.foreign = frozenset(front.asked)
    return run(ls=ls, framer=framer, first=[*front.replay, *front.held, *left], opened=front.opened)
