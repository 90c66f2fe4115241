"""`initialize` and the settings: what the client chose, kept in the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as T
from pygls.capabilities import ServerCapabilitiesBuilder

from ..checks import parallel
from ..state.warm import warm
from ..state.workspace import OFF, ON_SAVE, ON_TYPE
from .base import Handler
from .sync import publish, validate

if TYPE_CHECKING:
    from .app import SpvServer


def update_settings(ls: SpvServer, raw: object) -> None:
    """Take the valid settings; tell the user about the others, once (not again while unchanged)."""
    problems = ls.session.update_settings(raw)
    if problems:
        ls.window_show_message(T.ShowMessageParams(T.MessageType.Warning, "\n".join(problems)))


def initialize(ls: SpvServer, params: T.InitializeParams) -> None:
    if ls.protocol.muted is None:  # else server.early answered it and started the session from these params
        # pygls announces this choice; columns must be counted in it.
        enc = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
        problems = ls.session.start(ls.protocol._converter.unstructure(params), str(getattr(enc, "value", enc)))
        if problems:
            ls.window_show_message(T.ShowMessageParams(T.MessageType.Warning, "\n".join(problems)))
    warm(ls.protocol._converter)  # what the first didOpen would build and no document needs
    parallel.enabled = True  # a large module's whole check on both cores (checks/parallel.py)


def did_change_configuration(ls: SpvServer, params: T.DidChangeConfigurationParams) -> None:
    session = ls.session
    update_settings(ls, params.settings)
    session.ws.invalidate()
    for uri in list(session.ws.docs):
        if session.ws.settings.validate == OFF and session.validation is not None:
            session.validation.forget(uri)
        validate(ls, uri, (ON_TYPE, ON_SAVE), delay=0)
        publish(ls, uri)
    if session.client.pull and session.client.refresh and any(o.pulled for o in session.opened.values()):
        ls.workspace_diagnostic_refresh(None)  # only what the client pulled is to pull again


HANDLERS = [
    Handler(T.INITIALIZE, initialize),
    Handler(T.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration),
]
