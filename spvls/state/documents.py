"""The server's state across requests, with one owner: the open documents (through the
`Workspace`), what was last sent for each (semantic tokens, converted diagnostics), the client's
choices at `initialize`, the validator's jobs and the disk cache's unconfirmed answers.

Local handlers (text sync, settings) change it on the event loop's thread; a request that may take
long reads a `Snapshot` taken there (ruff's server splits its handlers the same way)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import cache
from .workspace import Settings, Workspace

if TYPE_CHECKING:
    import asyncio

    from ..checks import Analysis
    from ..checks.diagnostic import Diagnostic
    from ..features.tokens import Sent
    from ..model.module import Module
    from ..syntax.document import Document
    from .validation import Validation


@dataclass
class Client:
    """What the client chose at `initialize`."""

    encoding: str = "utf-16"  # columns' unit: its first choice among utf-8, utf-16, utf-32
    pull: bool = False  # diagnostics by pull (textDocument/diagnostic) instead of push
    refresh: bool = False  # it takes workspace/diagnostic/refresh
    takes_progress: bool = False  # it takes window/workDoneProgress/create
    item_defaults: bool = False  # completion lists may share editRange, data and insertTextFormat

    @classmethod
    def of(cls, caps: dict[str, Any], encoding: str) -> Client:
        """The choices from `initialize`'s capabilities, as the wire has them. Pull when the client
        offers it and can be told to pull again (spirv-val's result comes later); else push. Never
        both: a client that has both shows each diagnostic twice."""
        refresh = bool(nested(caps, "workspace", "diagnostics", "refreshSupport"))
        listing = nested(caps, "textDocument", "completion", "completionList", "itemDefaults")
        return cls(
            encoding=encoding,
            pull=nested(caps, "textDocument", "diagnostic") is not None and refresh,
            refresh=refresh,
            takes_progress=bool(nested(caps, "window", "workDoneProgress")),
            item_defaults={"editRange", "data", "insertTextFormat"}
            <= set(listing if isinstance(listing, list) else ()),
        )


def nested(value: object, *path: str) -> object:
    """value[path[0]][path[1]]..., or None where a step is missing or not an object."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


@dataclass(frozen=True)
class Recalled:
    """A cache lookup at open: the key the text's diagnostics are kept under, and what was kept
    (wire diagnostics, re-validated by state.cache), if anything."""

    key: str
    diagnostics: list[dict[str, Any]] | None


@dataclass
class Opening:
    """An open analysed off the loop (a large module): the changes that arrive meanwhile, applied
    once it is done, and the future requests on the document wait for."""

    done: asyncio.Future[None]
    changes: list[Any] = field(default_factory=list)


@dataclass
class Opened:
    """One open document's state beside its Document and analysis (which the Workspace keeps)."""

    version: int  # as opened: a close keeps its diagnostics in the cache only when edited since
    tokens: Sent | None = None  # the semantic tokens last sent, for the next delta
    # The model the converted diagnostics belong to, and each diagnostic's wire JSON by its id.
    converted: tuple[Module, dict[int, tuple[Diagnostic, dict[str, Any]]]] | None = None
    # Opened from the cache for a client that pulls: the version, the answer, its key, until the
    # analysis has confirmed it.
    unconfirmed: tuple[int, Recalled] | None = None
    opening: Opening | None = None  # its first analysis still running off the loop
    pulled: bool = False  # a client that pulls has pulled its diagnostics (settings changed: pull again)


@dataclass(frozen=True)
class Snapshot:
    """One document as a background request sees it: its analysis at one generation. The request
    answers only while the document is still at that generation (`current`). The module is the
    workspace's own, which an edit may update in place while the request runs: nothing computed from
    it meanwhile is cached on it (model.facts.keeps)."""

    uri: str
    generation: int
    analysis: Analysis
    folders: tuple[Any, ...]
    encoding: str
    settings: Settings

    @property
    def module(self) -> Module:
        return self.analysis.module

    @property
    def doc(self) -> Document:
        return self.analysis.module.doc


@dataclass
class Session:
    """Every piece of per-server state; `forget` drops a document's, all of it, in one place."""

    ws: Workspace = field(default_factory=Workspace)
    client: Client = field(default_factory=Client)
    opened: dict[str, Opened] = field(default_factory=dict)
    settings_reported: list[str] = field(default_factory=list)  # the settings problems last shown
    validation: Validation | None = None  # made at start, with the server's callbacks

    # -- initialize and settings ----------------------------------------------------------------
    def start(self, params: dict[str, Any], encoding: str) -> list[str]:
        """`initialize`'s params as the wire has them: the client's choices, the workspace folders
        (else the root) and the settings; returns the settings problems to show."""
        from ..features.sourcefiles import path_of

        problems = self.update_settings(params.get("initializationOptions"))
        folders = params.get("workspaceFolders")
        roots = [f.get("uri") or "" for f in folders if isinstance(f, dict)] if isinstance(folders, list) else []
        root = params.get("rootUri")
        self.ws.folders = [p for p in map(path_of, roots or [root if isinstance(root, str) else ""]) if p is not None]
        caps = params.get("capabilities")
        self.client = Client.of(caps if isinstance(caps, dict) else {}, encoding)
        return problems

    def update_settings(self, raw: object) -> list[str]:
        """Take the valid settings; returns the problems to show, empty when they were shown already."""
        problems = self.ws.settings.update(raw)
        new = problems if problems != self.settings_reported else []
        self.settings_reported = problems
        return new

    # -- documents ------------------------------------------------------------------------------
    def open(self, uri: str, text: str, version: int) -> Document:
        if uri in self.ws.docs or uri in self.opened:  # opened again without a close: nothing old stays
            self.forget(uri)
        doc = self.ws.open(uri, text, version)
        self.opened[uri] = Opened(version)
        return doc

    def close(self, uri: str) -> None:
        self.forget(uri)
        self.ws.close(uri)

    def forget(self, uri: str) -> None:
        """Everything kept for the document beside its text: validation, tokens, conversions, an
        open in flight (whose result is then dropped; what waits for it goes on)."""
        opened = self.opened.pop(uri, None)
        if opened is not None and opened.opening is not None and not opened.opening.done.done():
            opened.opening.done.set_result(None)
        if self.validation is not None:
            self.validation.forget(uri)

    def open_off_loop(self, uri: str, version: int) -> Opening:
        """A document whose Document and first analysis are built in a worker thread: until
        `adopt`, it is open with no text (requests that need its model wait: `opened_whole`)."""
        if uri in self.ws.docs or uri in self.opened:
            self.close(uri)
        import asyncio

        opening = Opening(asyncio.get_running_loop().create_future())
        self.opened[uri] = Opened(version, opening=opening)
        return opening

    def adopt(
        self, uri: str, opening: Opening, doc: Document, a: Analysis | None, env: str | None, marked: bool
    ) -> bool:
        """The open's Document and analysis, built off the loop, become the document's; False when
        the document was closed or opened again meanwhile (the result is dropped)."""
        opened = self.opened.get(uri)
        if opened is None or opened.opening is not opening:
            return False
        self.ws.adopt(uri, doc, a, env, marked)
        opened.opening = None
        return True

    def opening(self, uri: str) -> Opening | None:
        opened = self.opened.get(uri)
        return opened.opening if opened is not None else None

    async def opened_whole(self, uri: str) -> None:
        """Wait while the document's open is analysed off the loop (at once otherwise)."""
        opening = self.opening(uri)
        if opening is not None:
            import asyncio

            await asyncio.shield(opening.done)

    def state(self, uri: str) -> Opened:
        found = self.opened.get(uri)
        if found is None:  # a document the workspace has without an open (tests build it so)
            doc = self.ws.docs.get(uri)
            found = self.opened[uri] = Opened(doc.version if doc else 0)
        return found

    def edited_since_open(self, uri: str) -> bool:
        doc, opened = self.ws.docs.get(uri), self.opened.get(uri)
        return doc is not None and (opened is None or doc.version != opened.version)

    def snapshot(self, uri: str) -> Snapshot | None:
        """The document's analysis now (computed if needed), for a request run off the loop."""
        a = self.ws.analysis(uri)
        if a is None:
            return None
        folders, settings = tuple(self.ws.folders), dataclasses.replace(self.ws.settings)
        return Snapshot(uri, a.module.doc.generation, a, folders, self.client.encoding, settings)

    def current(self, snap: Snapshot) -> bool:
        """Whether the document is still as the snapshot saw it (not edited, closed or reopened)."""
        doc = self.ws.docs.get(snap.uri)
        return doc is snap.doc and doc.generation == snap.generation

    # -- the disk cache's protocol (storage: state/cache.py) ----------------------------------
    def recall(self, uri: str, text: str, max_published: int, can_send: bool) -> Recalled | None:
        """What the cache holds for this text opened here; None when the cache is off or the
        answer could not be sent before the document is parsed."""
        if not cache.enabled() or not (self.client.pull or can_send):
            return None
        settings = (dataclasses.asdict(self.ws.settings), self.ws.settings.validator_flags())
        folders = [str(f) for f in self.ws.folders]
        k = cache.key(text, uri, settings, self.client.encoding, folders, max_published)
        return Recalled(k, cache.get(k, uri))

    def await_confirmation(self, uri: str, version: int, recalled: Recalled) -> None:
        """A pulling client's open answered from the cache: its pulls are answered from it until
        the analysis confirms it."""
        self.state(uri).unconfirmed = (version, recalled)

    def unconfirmed(self, uri: str) -> list[dict[str, Any]] | None:
        """The cached answer to a pull, while it stands for the document as it is and unanalysed
        (or its open is still analysed off the loop)."""
        opened, doc = self.opened.get(uri), self.ws.docs.get(uri)
        if opened is None or opened.unconfirmed is None:
            return None
        version, recalled = opened.unconfirmed
        if opened.opening is not None:
            return recalled.diagnostics if not opened.opening.changes else None
        if doc is None or self.ws.analysed(uri):
            return None
        return recalled.diagnostics if doc.version == version else None

    def take_unconfirmed(self, uri: str) -> Recalled | None:
        """The cached answer to confirm now (dropped: confirmed once); None when there is none, or
        the document was edited since (the answer was for the text as opened)."""
        opened, doc = self.opened.get(uri), self.ws.docs.get(uri)
        if opened is None or opened.unconfirmed is None or doc is None:
            return None
        (version, recalled), opened.unconfirmed = opened.unconfirmed, None
        return recalled if doc.version == version else None

    def has_unconfirmed(self, uri: str) -> bool:
        opened = self.opened.get(uri)
        return opened is not None and opened.unconfirmed is not None

    def remember(self, key: str, native: list[dict[str, Any]] | None, shown: list[dict[str, Any]] | None) -> bool:
        """Keep the analysis' diagnostics for the next open of the text; True when they differ
        from what the cache showed (which the client must then be given again)."""
        if native is None or native == shown:
            return False
        cache.put(key, native)
        return shown is not None

    # -- the analyses ---------------------------------------------------------------------------
    def analysis(self, uri: str) -> Analysis | None:
        return self.ws.analysis(uri)

    def on_validated(self, callback: Callable[[str], None], note: Callable[[str], None]) -> None:
        """Start the validator's scheduling, which calls back when a document's results change."""
        from .validation import Validation

        self.validation = Validation(self.ws, callback, note=note)
