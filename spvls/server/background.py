"""Requests that may take long run off the event loop (ruff's server calls them background tasks):
the handler takes a `Snapshot` of the document on the loop as the request arrives, computes its
answer in a worker thread, and converts it on the loop. Meanwhile the loop keeps reading: other
requests are answered, edits applied, and `$/cancelRequest` answers the request at once with
RequestCancelled (the thread's result is then dropped). An answer computed from a document that
changed while it ran is not sent: the request fails with ContentModified, which clients retry.

A request on a document whose open is still being analysed off the loop (sync.did_open) waits for
that open first."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

from pygls.exceptions import JsonRpcContentModified, JsonRpcException

from ..state.documents import Snapshot
from .base import FAULT, analysis, fault

if TYPE_CHECKING:
    from .app import SpvServer

R = TypeVar("R")
A = TypeVar("A")

# Two threads: one long request (a 100k-line module's tokens) does not hold up another document's.
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="spvls-request")


def background(
    compute: Callable[[Snapshot, Any], A], finish: Callable[[SpvServer, Snapshot, Any, A], R] | None = None
) -> Callable[[SpvServer, Any], Awaitable[R | A | None]]:
    """A handler: compute(snapshot, params) in a worker thread, then finish(ls, snapshot, params,
    result) on the loop (by default the result is the answer). An unknown document answers None."""

    @wraps(compute)
    async def run(ls: SpvServer, params: Any) -> R | A | None:
        uri = params.text_document.uri
        snap: Snapshot | None = None
        try:
            await ls.session.opened_whole(uri)  # an open analysed off the loop: its model first
            analysis(ls, uri)  # confirms an answer a pull had from the cache
            snap = ls.session.snapshot(uri)
            if snap is None:
                return None
            if FAULT and compute.__name__ == FAULT:
                raise RuntimeError(f"injected fault in {compute.__name__}")
            found = await asyncio.get_running_loop().run_in_executor(_pool, compute, snap, params)
            if not ls.session.current(snap):
                raise JsonRpcContentModified(f"{uri} changed while the request ran")
            return finish(ls, snap, params, found) if finish is not None else found
        except (JsonRpcException, asyncio.CancelledError):
            raise
        except Exception as e:
            if snap is not None and not ls.session.current(snap):  # read while an edit changed the model
                raise JsonRpcContentModified(f"{uri} changed while the request ran") from None
            raise fault(ls, compute.__name__, params, e) from None

    del run.__wrapped__  # pygls reads the signature to pass the server: it must see (ls, params)
    return run
