"""A document's diagnostics as they are published: native, merged with the validator's, converted
to the wire's JSON (each conversion kept in the session while its model lives), past MAX_PUBLISHED
the most severe after a note. No protocol library: server.early publishes with this too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..checks.diagnostic import ERROR, HINT, INFO, WARNING, Diagnostic
from ..state.cache import MAX_PUBLISHED
from ..transport import notification_with_raw
from . import wire

if TYPE_CHECKING:
    from ..model.module import Module
    from ..state.documents import Session
    from ..syntax.document import Document

_RANK = {ERROR: 0, WARNING: 1, INFO: 2, HINT: 3}
INFORMATION = 3  # LSP's DiagnosticSeverity
# A test hook (tests/e2e/test_faults.py): every analysis fails, before pygls as after it.
_FAILING = os.environ.get("SPVLS_FAULT_INJECT", "") == "analysis"


def _converter(session: Session, uri: str, doc: Document, m: Module, count: int) -> Callable[[Diagnostic], wire.Json]:
    """Diagnostic -> wire diagnostic, each kept while the model is: an edit it takes in place keeps
    the diagnostics outside the edited function (same objects, same lines), so a keystroke converts
    only the function's."""
    state = session.state(uri)
    kept = state.converted
    if kept is None or kept[0] is not m or len(kept[1]) > 4 * max(count, MAX_PUBLISHED):  # or full of the gone
        kept = state.converted = (m, {})
    memo = kept[1]
    folders, encoding = session.ws.folders, session.client.encoding

    def convert(d: Diagnostic) -> wire.Json:
        hit = memo.get(id(d))
        if hit is None or hit[0] is not d:
            hit = memo[id(d)] = (d, wire.diagnostic(doc, encoding, uri, d, m, folders))
        return hit[1]

    return convert


def diagnostics(session: Session, uri: str, validated: bool = True) -> list[wire.Json]:
    """The document's diagnostics as the wire has them: native, merged with the validator's unless
    `validated` is False; past MAX_PUBLISHED, the most severe, after a note saying how many more."""
    if _FAILING:
        raise RuntimeError("injected fault in analysis")
    a = session.analysis(uri)
    doc = session.ws.docs.get(uri)
    if a is None or doc is None:
        return []
    diags = a.diagnostics
    if validated and session.validation is not None:
        diags = session.validation.diagnostics(uri, a.diagnostics, len(doc.texts), a.module)
    convert = _converter(session, uri, doc, a.module, len(diags))
    if len(diags) <= MAX_PUBLISHED:
        return [convert(d) for d in diags]
    from ..checks import validator  # the binding: imported once a list is long enough to cut

    first = sorted(diags, key=lambda d: -1 if validator.is_note(d) else _RANK[d.severity])
    shown = sorted(first[:MAX_PUBLISHED], key=lambda d: (d.line, d.start))
    more = f"{len(diags) - MAX_PUBLISHED} more problems not shown; run `spvls check` for all"
    return [wire.note(code="spvls.truncated", message=more, severity=INFORMATION)] + [convert(d) for d in shown]


def notification(uri: str, version: int | None, diags: list[wire.Json]) -> bytes:
    """A publishDiagnostics of wire diagnostics, framed for the wire, the diagnostics written as they are
    (no protocol types built)."""
    fields: dict[str, object] = {"uri": uri} if version is None else {"uri": uri, "version": version}
    return notification_with_raw("textDocument/publishDiagnostics", fields, "diagnostics", json.dumps(diags).encode())
