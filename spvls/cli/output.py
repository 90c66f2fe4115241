"""How `spvls check` prints diagnostics: text (with the source line and a caret on a terminal, as
rustc, clang and ruff do), JSON records, GitHub workflow commands, or one SARIF 2.1.0 log."""

from __future__ import annotations

import json

from .. import __version__
from ..checks import codes as code_registry
from ..checks.diagnostic import ERROR, WARNING, Diagnostic
from ..model.sourcemap import SourceLoc

_SEVERITY_WORD = {"information": "info"}
_SNIPPET_WIDTH = 120  # columns of a long line shown around the range

# ANSI SGR codes; the text is the same with colour off.
_COLOURS = {
    "error": "1;31",
    "warning": "1;33",
    "info": "1;36",
    "hint": "1;36",
    "note": "1;32",
    "path": "1",
    "code": "2",
    "gutter": "1;34",
    "fixed": "1;32",
}


class Paint:
    def __init__(self, on: bool):
        self.on = on

    def __call__(self, what: str, text: str) -> str:
        return f"\x1b[{_COLOURS[what]}m{text}\x1b[0m" if self.on and text else text


_PLAIN = Paint(False)


def format_text(path: str, d: Diagnostic, paint: Paint = _PLAIN) -> str:
    sev = _SEVERITY_WORD.get(d.severity, d.severity)
    text = (
        f"{paint('path', f'{path}:{d.line + 1}:{d.start + 1}:')} {paint(sev, sev + ':')} {d.message} "
        f"{paint('code', f'[{d.code}]')}"
    )
    # Where the instruction came from in the shader source, under the header as rustc puts it.
    return text + f"\n  {paint('gutter', '-->')} {d.source}" if d.source is not None else text


def format_related(path: str, d: Diagnostic, paint: Paint = _PLAIN) -> list[str]:
    """clang's form for the places a diagnostic points to: `path:line:col: note: message`."""
    return [
        f"{paint('path', f'{path}:{r.line + 1}:{r.start + 1}:')} {paint('note', 'note:')} {r.message}"
        for r in d.related
    ]


def snippet(lines: list[str], line: int, start: int, end: int, paint: Paint, sev: str) -> list[str]:
    """The source line under a gutter with its number, and carets under [start, end):

    9 | OpRetrun
      | ^^^^^^^^
    """
    if not 0 <= line < len(lines):
        return []
    text = lines[line].rstrip("\r\n")
    end = max(min(end, len(text)), start + 1)
    lo = 0
    if len(text) > _SNIPPET_WIDTH:  # keep the range in view, marking what is cut with '…'
        lo = max(0, min(start - 20, len(text) - _SNIPPET_WIDTH))
        shown = text[lo : lo + _SNIPPET_WIDTH]
        text = ("…" if lo else "") + shown + ("…" if lo + _SNIPPET_WIDTH < len(lines[line].rstrip("\r\n")) else "")
        start, end = start - lo + (1 if lo else 0), end - lo + (1 if lo else 0)
    # Tabs stay tabs under the text so the caret lines up whatever the tab width.
    pad = "".join(ch if ch == "\t" else " " for ch in text[:start])
    number = str(line + 1)
    gutter = " " * len(number)
    caret = "^" * max(1, min(end, len(text) + 1) - start)
    return [f"{paint('gutter', f'{number} |')} {text}", f"{paint('gutter', f'{gutter} |')} {pad}{paint(sev, caret)}"]


def format_json(path: str, d: Diagnostic) -> dict:
    return {
        "path": path,
        "line": d.line + 1,
        "column": d.start + 1,
        "endColumn": d.end + 1,
        "severity": d.severity,
        "code": d.code,
        "message": d.message,
        "source": {"file": d.source.file, "line": d.source.line, "column": d.source.column} if d.source else None,
        "related": [{"line": r.line + 1, "column": r.start + 1, "message": r.message} for r in d.related],
        "fixes": [
            {
                "title": f.title,
                "edits": [
                    {"line": e.line + 1, "column": e.start + 1, "endColumn": e.end + 1, "text": e.text} for e in f.edits
                ],
            }
            for f in d.fixes
        ],
    }


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def format_github(path: str, d: Diagnostic) -> str:
    """A GitHub Actions workflow command: the runner shows it as an annotation on the line."""
    kind = {ERROR: "error", WARNING: "warning"}.get(d.severity, "notice")
    props = (
        f"file={_gh_escape(path, True)},line={d.line + 1},col={d.start + 1},endColumn={d.end + 1},"
        f"title={_gh_escape('spvls ' + d.code, True)}"
    )
    notes = "".join(f"\n{path}:{r.line + 1}:{r.start + 1}: note: {r.message}" for r in d.related)
    return f"::{kind} {props}::{_gh_escape(d.message + notes)}"


def sarif_log(results: list[tuple[str, Diagnostic]]) -> dict:
    """A SARIF 2.1.0 log (OASIS; what GitHub code scanning uploads), one run, a rule per code."""
    codes = sorted({d.code for _, d in results})
    index = {c: i for i, c in enumerate(codes)}
    level = {ERROR: "error", WARNING: "warning"}

    def region(line: int, start: int, end: int) -> dict:
        return {"startLine": line + 1, "startColumn": start + 1, "endColumn": max(end, start + 1) + 1}

    out = []
    for path, d in results:
        uri = path.replace("\\", "/")
        loc = {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region(d.line, d.start, d.end)}}
        res = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": level.get(d.severity, "note"),
            "message": {"text": d.message},
            "locations": [loc],
        }
        related = [
            {
                "message": {"text": r.message},
                "physicalLocation": {"artifactLocation": {"uri": uri}, "region": region(r.line, r.start, r.end)},
            }
            for r in d.related
        ]
        if d.source is not None:  # the shader source line the instruction was compiled from (OpLine, DebugLine)
            related.append(
                {"message": {"text": f"compiled from {d.source}"}, "physicalLocation": _source_location(d.source)}
            )
        if related:
            res["relatedLocations"] = [{"id": i, **r} for i, r in enumerate(related)]
        out.append(res)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "spvls",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_sarif_rule(c) for c in codes],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": out,
            }
        ],
    }


def _sarif_rule(code: str) -> dict:
    """A SARIF reportingDescriptor from the code's rule: its summary, the spec sentence it cites and
    the page it links to."""
    rule = code_registry.rule(code)
    if rule is None:
        return {"id": code, "shortDescription": {"text": code}}
    out: dict = {"id": code, "shortDescription": {"text": rule.summary}}
    if rule.link:
        out["helpUri"] = rule.link
    if rule.sentence:
        out["fullDescription"] = {"text": f"{rule.where}: {rule.sentence}"}
    return out


def _source_location(source: SourceLoc) -> dict:
    """A SARIF physical location for a shader source position: its file as the module names it,
    with the line and column when they are known."""
    loc: dict = {"artifactLocation": {"uri": source.file.replace("\\", "/")}}
    if source.line > 0:
        loc["region"] = {"startLine": source.line, **({"startColumn": source.column} if source.column > 0 else {})}
    return loc


def dump_json(data: object) -> str:
    return json.dumps(data, indent=1)
