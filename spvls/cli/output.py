"""How diagnostics are printed: one line of text each, or JSON records."""
from __future__ import annotations

from ..checks.diagnostic import Diagnostic

_SEVERITY_WORD = {"information": "info"}


def format_text(path: str, d: Diagnostic) -> str:
    sev = _SEVERITY_WORD.get(d.severity, d.severity)
    return f"{path}:{d.line + 1}:{d.start + 1}: {sev}: {d.message} [{d.code}]"


def format_json(path: str, d: Diagnostic) -> dict:
    return {"path": path, "line": d.line + 1, "column": d.start + 1, "endColumn": d.end + 1,
            "severity": d.severity, "code": d.code, "message": d.message,
            "related": [{"line": r.line + 1, "column": r.start + 1, "message": r.message} for r in d.related],
            "fixes": [{"title": f.title, "edits": [{"line": e.line + 1, "column": e.start + 1, "endColumn": e.end + 1,
                                                   "text": e.text} for e in f.edits]} for f in d.fixes]}
