"""Rename and every quick fix, applied by the test: the module re-parses with no new errors and
every line the edit does not touch stays byte-identical."""
from collections import Counter
from pathlib import Path

import pytest

from spvls.checks import analyze
from spvls.features import navigation
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parent
FILES = sorted((ROOT.parent / "examples").glob("*.spvasm")) + sorted((ROOT / "data" / "rules").glob("*.spvasm"))
GRAMMAR = {"syntax", "operand", "id"}


def apply(text: str, edits) -> tuple[str, set[int]]:
    """Apply (line, start, end, new) edits bottom-up; returns the text and the edited line numbers."""
    lines = text.split("\n")
    touched = set()
    for line, start, end, new in sorted(edits, reverse=True):
        if line == len(lines):
            lines.append("")
        lines[line] = lines[line][:start] + new + lines[line][end:]
        touched.add(line)
    return "\n".join(lines), touched


def fixes(path: Path):
    a = analyze(Document(path.read_text()))
    return [(d, f) for d in a.diagnostics for f in d.fixes]


CASES = [(p, i) for p in FILES for i in range(len(fixes(p)))]


@pytest.mark.parametrize("path,index", CASES, ids=[f"{p.stem}-{i}" for p, i in CASES])
def test_quick_fix(path, index):
    text = path.read_text()
    before = analyze(Document(text)).diagnostics
    diag, fix = fixes(path)[index]
    after_text, touched = apply(text, [(e.line, e.start, e.end, e.text) for e in fix.edits])
    inserted = after_text.count("\n") - text.count("\n")
    old_lines, new_lines = text.split("\n"), after_text.split("\n")
    if inserted == 0:
        assert all(a == b for n, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if n not in touched)
    else:  # an inserted line: the old lines are all there, in order, unchanged
        at = min(touched)
        assert new_lines[:at] + new_lines[at + inserted:] == old_lines
    after = analyze(Document(after_text)).diagnostics
    grammar_before = Counter(d.code for d in before if d.family in GRAMMAR and d.severity == "error")
    grammar_after = Counter(d.code for d in after if d.family in GRAMMAR and d.severity == "error")
    assert not (grammar_after - grammar_before), f"{fix.title} added {grammar_after - grammar_before}"
    assert Counter(d.code for d in after)[diag.code] < Counter(d.code for d in before)[diag.code], \
        f"{fix.title} did not fix {diag.code}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_rename_every_id(path):
    text = path.read_text()
    doc = Document(text)
    a = analyze(doc)
    codes = sorted((d.line, d.code) for d in a.diagnostics)
    for id_, d in list(a.module.defs.items())[:25]:
        tok = d.src.result
        edits = navigation.rename(a.module, d.line, tok.start, "%renamed_" + id_[1:])
        new_text, touched = apply(text, [(ln, s, e, new) for (ln, s, e), new in edits])
        old_lines, new_lines = text.split("\n"), new_text.split("\n")
        assert len(old_lines) == len(new_lines)
        assert all(x == y for n, (x, y) in enumerate(zip(old_lines, new_lines, strict=False)) if n not in touched)
        after = analyze(Document(new_text))
        assert sorted((x.line, x.code) for x in after.diagnostics) == codes, f"renaming {id_}"
