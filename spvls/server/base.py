"""What every handler shares: the failure guard, the document a request names, and the table each
handler module gives the server (`Handler`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import traceback
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from .convert import Positions

if TYPE_CHECKING:
    from ..checks import Analysis
    from .app import SpvServer

log = logging.getLogger("spvls")

# Tests set this to a handler's name to prove a failure stays inside its own request.
FAULT = os.environ.get("SPVLS_FAULT_INJECT", "")

R = TypeVar("R")


class Handler(NamedTuple):
    """One LSP method: its name and fn(ls, params) (the options announced for it: capabilities.py)."""

    method: str
    fn: Callable[..., Any]


def log_fault(ls: SpvServer, what: str, e: BaseException) -> None:
    msg = f"spvls: {what}: {e!r}\n{traceback.format_exc()}"
    log.error(msg)
    with contextlib.suppress(Exception):
        ls.window_log_message(T.LogMessageParams(T.MessageType.Error, msg))


def where(params: object) -> str:
    uri = getattr(getattr(params, "text_document", None), "uri", "")
    pos = getattr(params, "position", None)
    return f"{uri}:{pos.line + 1}:{pos.character + 1}" if pos else str(uri)


def fault(ls: SpvServer, name: str, params: object, e: Exception) -> JsonRpcInternalError:
    """A handler's failure, logged with its context; the error that answers its request."""
    log_fault(ls, f"{name} failed at {where(params)}", e)
    return JsonRpcInternalError(f"spvls: {name} failed: {e}")


def guard(fn: Callable[[SpvServer, Any], R]) -> Callable[[SpvServer, Any], R]:
    """A request that fails is logged with its context (stderr and window/logMessage) and answers
    that request alone with an error; the server keeps serving. `fn` may be a coroutine function."""
    if asyncio.iscoroutinefunction(fn):

        @wraps(fn)
        async def waits(ls: SpvServer, params: Any) -> Any:
            try:
                if FAULT and fn.__name__ == FAULT:
                    raise RuntimeError(f"injected fault in {fn.__name__}")
                return await fn(ls, params)
            except JsonRpcException:
                raise
            except Exception as e:
                raise fault(ls, fn.__name__, params, e) from None

        return waits  # type: ignore[return-value]

    @wraps(fn)
    def run(ls: SpvServer, params: Any) -> R:
        try:
            if FAULT and fn.__name__ == FAULT:
                raise RuntimeError(f"injected fault in {fn.__name__}")
            return fn(ls, params)
        except JsonRpcException:
            raise  # a deliberate protocol error (e.g. a refused rename), not a fault
        except Exception as e:
            raise fault(ls, fn.__name__, params, e) from None

    return run


def analysis(ls: SpvServer, uri: str) -> Analysis | None:
    """The document's analysis as it is now; a document opened from the cache is confirmed first
    (the analysis this request needs is the one that confirms it)."""
    if ls.session.has_unconfirmed(uri):
        from .sync import confirm

        confirm(ls, uri)
    return ls.session.analysis(uri)


def positions(ls: SpvServer, a: Analysis) -> Positions:
    return Positions(a.module.doc, ls.session.client.encoding)


class At(NamedTuple):
    """A request at a position: the analysis, its positions, and the cursor in code points."""

    a: Analysis
    at: Positions
    line: int
    col: int


def positional(fn: Callable[[SpvServer, Any, At], R]) -> Callable[[SpvServer, Any], R | None]:
    """fn(ls, params, At) for a request at a position; an unknown document answers None."""

    @wraps(fn)
    def run(ls: SpvServer, params: Any) -> R | None:
        a = analysis(ls, params.text_document.uri)
        if a is None:
            return None
        at = positions(ls, a)
        return fn(ls, params, At(a, at, *at.cursor(params.position)))

    return run
