"""Editor features as data, in-process: each case is a module under data/features/<feature>/ with a
`$0` cursor, and beside it `<case>.expected.json`, the feature's WHOLE answer there (ranges
included). Each case calls the function the server's handler calls (a feature, or the session's
`answers` where a request combines features), with no LSP between.

A first line `; args: key=value ...` gives a feature its other inputs (a rename's `new_name`, a
`query`, a `first`/`last` line range); it stays in the module, as any comment would.

Expectations are rewritten only on request, and reviewed by diff:
    SPVLS_UPDATE_EXPECTED=1 PYTHONPATH=$PWD python -m pytest -q tests/test_features.py
Under CI they are never rewritten.
"""

import dataclasses
import difflib
import json
import os
from pathlib import Path

import pytest

from spvls.features import calls, completion, formatting, inlay, lenses, navigation, signature, symbols, tokens
from spvls.state import answers
from spvls.state.workspace import Workspace

DATA = Path(__file__).resolve().parent / "data" / "features"
CASES = sorted(DATA.glob("*/*.spvasm"))
UPDATE = bool(os.environ.get("SPVLS_UPDATE_EXPECTED"))
URI = "file:///case.spvasm"


@dataclasses.dataclass
class Case:
    a: object  # the analysis, as the server's workspace makes it
    line: int
    col: int
    args: dict

    @property
    def m(self):
        return self.a.module


def _span(s) -> dict | None:
    """A feature's (line, start, end) in code points."""
    return None if s is None else {"line": s[0], "start": s[1], "end": s[2]}


def _lines(text: str) -> list[str]:
    """Markdown as a list of lines: an expectation file a reviewer can read in a diff."""
    return text.split("\n")


def _hover(c: Case):
    found = answers.hover(c.a, c.line, c.col)
    if found is None:
        return None
    text, (start, end) = found
    return {"range": _span((c.line, start, end)), "text": _lines(text)}


def _completion(c: Case):
    return completion.complete(c.m, c.line, c.col)


def _definition(c: Case):
    found = answers.definition(c.a, c.line, c.col)
    if found is None or found.span is None:
        return None if found is None else {"path": str(found.path), "line": found.line, "col": found.col}
    return _span(found.span)


def _references(c: Case):
    return [_span(s) for s in navigation.references(c.m, c.line, c.col, c.args.get("include_declaration", True))]


def _highlights(c: Case):
    return [{**_span(s), "write": w} for s, w in navigation.highlights(c.m, c.line, c.col)]


def _rename(c: Case):
    try:
        edits = [{**_span(s), "new_text": t} for s, t in navigation.rename(c.m, c.line, c.col, c.args["new_name"])]
    except navigation.RenameError as e:
        edits = {"refused": str(e)}
    return {"prepare": _span(navigation.prepare_rename(c.m, c.line, c.col)), "edits": edits}


def _signature(c: Case):
    sig = signature.signature_help(c.m, c.line, c.col)
    if sig is None:
        return None
    return {**dataclasses.asdict(sig), "documentation": _lines(sig.documentation)}


def _symbols(c: Case):
    return symbols.document_symbols(c.m)


def _workspace_symbols(c: Case):
    return [s for _uri, s in symbols.workspace_symbols({URI: c.m}, c.args["query"])]


def _folding(c: Case):
    return symbols.folding_ranges(c.m)


def _range_args(c: Case) -> tuple[int, int]:
    return c.args.get("first", 0), c.args.get("last", len(c.m.doc.texts) - 1)


def _inlay(c: Case):
    return [
        {"line": n, "col": col, "label": label, "kind": kind}
        for n, col, label, kind in inlay.inlay_hints(c.m, *_range_args(c))
    ]


def _tokens(c: Case):
    """One token a row: line, start, length, type and modifier names."""
    out = []
    for line, start, length, typ, mods in tokens.semantic_tokens(c.m, *_range_args(c)):
        names = [name for bit, name in enumerate(tokens.TOKEN_MODIFIERS) if mods >> bit & 1]
        out.append([line, start, length, tokens.TOKEN_TYPES[typ], names])
    return out


def _calls(c: Case):
    it = calls.function_at(c.m, c.line, c.col)
    if it is None:
        return None
    edges = {
        name: [{"item": other, "sites": [_span(s) for s in sites]} for other, sites in fn(c.m, it.id)]
        for name, fn in (("incoming", calls.incoming), ("outgoing", calls.outgoing))
    }
    return {"item": it, **edges}


def _code_actions(c: Case):
    """The quick fixes of the diagnostics on the cursor's line, as the server offers them: each fix
    once, with the codes of the diagnostics it fixes."""
    return [
        {
            "diagnostic": ", ".join(d.code for d in diags),
            "title": fix.title,
            "edits": [{**_span((e.line, e.start, e.end)), "new_text": e.text} for e in fix.edits],
        }
        for fix, diags, _ in answers.code_actions(c.a, c.line, c.line)
    ]


def _lenses(c: Case):
    return lenses.lenses(c.m)


def _formatting(c: Case):
    first, last = _range_args(c)
    return [{"line": n, "old": old, "new": new} for n, old, new in formatting.format_lines(c.m.doc, first, last)]


FEATURES = {
    "hover": _hover,
    "completion": _completion,
    "definition": _definition,
    "references": _references,
    "highlights": _highlights,
    "rename": _rename,
    "signature": _signature,
    "symbols": _symbols,
    "workspace_symbols": _workspace_symbols,
    "folding": _folding,
    "inlay": _inlay,
    "tokens": _tokens,
    "calls": _calls,
    "code_actions": _code_actions,
    "formatting": _formatting,
    "lenses": _lenses,
}


def _plain(x):
    """The answer as JSON values: dataclasses as objects, tuples as lists."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def dump(x, indent: int = 0) -> str:
    """JSON with one item a line where a whole value would not fit in one (diffs stay readable)."""
    flat = json.dumps(x, ensure_ascii=False)
    if not isinstance(x, (list, dict)) or len(flat) <= 100 or _one_row(x):
        return flat
    pad = " " * (indent + 1)
    if isinstance(x, list):
        return "[\n" + ",\n".join(pad + dump(v, indent + 1) for v in x) + "\n" + " " * indent + "]"
    body = ",\n".join(pad + json.dumps(k, ensure_ascii=False) + ": " + dump(v, indent + 1) for k, v in x.items())
    return "{\n" + body + "\n" + " " * indent + "}"


def _one_row(x) -> bool:
    """A record of scalars and small values (a completion item, a token) is one line; lines of text
    are one a line."""
    if isinstance(x, list) and any(isinstance(v, str) for v in x):
        return False
    values = x.values() if isinstance(x, dict) else x
    return all(not isinstance(v, (list, dict)) or len(json.dumps(v, ensure_ascii=False)) <= 60 for v in values)


def parse_case(text: str) -> tuple[str, int, int, dict]:
    """(module without the marker, cursor line, cursor column, args)."""
    args = {}
    first = text.split("\n", 1)[0]
    if first.startswith("; args:"):
        for pair in first.removeprefix("; args:").split():
            key, _, value = pair.partition("=")
            try:
                args[key] = json.loads(value)
            except ValueError:
                args[key] = value
    if text.count("$0") > 1:
        raise ValueError("more than one $0 cursor")
    before, marker, after = text.partition("$0")
    lines = before.split("\n")
    line, col = (len(lines) - 1, len(lines[-1])) if marker else (0, 0)
    return before + after, line, col, args


def answer(feature: str, text: str):
    body, line, col, args = parse_case(text)
    ws = Workspace()  # the server's defaults: target env from the module, inlay hints on
    ws.open(URI, body, 1)
    return _plain(FEATURES[feature](Case(ws.analysis(URI), line, col, args)))


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_feature_case(path: Path):
    feature = path.parent.name
    assert feature in FEATURES, f"{path.parent} names no feature; known: {', '.join(FEATURES)}"
    got = answer(feature, path.read_text())
    expected = path.with_suffix(".expected.json")
    if UPDATE:
        if os.environ.get("CI"):
            pytest.fail("SPVLS_UPDATE_EXPECTED is for a person reviewing the diff, never CI")
        expected.write_text(dump(got) + "\n")
    assert expected.exists(), f"no {expected.name}: run with SPVLS_UPDATE_EXPECTED=1 and review it"
    want = json.loads(expected.read_text())
    if got != want:
        diff = difflib.unified_diff(dump(want).split("\n"), dump(got).split("\n"), "expected", "got", lineterm="")
        pytest.fail(f"{path.relative_to(DATA)}: the answer differs\n" + "\n".join(diff))


def test_every_feature_has_cases():
    assert {p.parent.name for p in CASES} == set(FEATURES)


def test_every_expectation_has_its_case():
    orphans = [
        p
        for p in DATA.glob("*/*.expected.json")
        if not p.with_name(p.name.replace(".expected.json", ".spvasm")).exists()
    ]
    assert orphans == []
