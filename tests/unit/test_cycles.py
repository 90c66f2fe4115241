"""Analyses leave no reference cycles. spvls paces the cyclic GC slowly (cli.tune_gc) because its
models are freed by reference counting alone; a cycle would make an old model linger."""
import gc
from pathlib import Path

import pytest

from spvls.checks import analyze
from spvls.features import cfg_dot, completion, hover, navigation, symbols
from spvls.syntax import parser
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(ROOT.glob("examples/*.spvasm")) + sorted(ROOT.glob("tests/data/rules/*.spvasm"))
JUNK = '\n%x = OpFoo "unterminated\n junk!!! \x00 \xff\n%y = OpIAdd %u32 %undefined %z\n'


def _clear_caches():
    parser._parse_whole.cache_clear()  # cached lines would keep objects alive
    parser._templates.clear()
    parser._lark_template.cache_clear()
    parser._plan.cache_clear()


@pytest.fixture
def heap_set_aside(monkeypatch):
    """Everything alive before the test (the rest of the suite's objects) is frozen, so the final
    collection counts this analysis' cycles alone and costs its objects, not the whole heap (two
    full collections of a late-suite heap were 1.2 s a case, 48 s in all). What spvls builds stays
    collectable: its own freeze after a build (syntax/heap.py) and its occasional unfreeze are held off for the test."""
    gc.freeze()
    monkeypatch.setattr(gc, "freeze", lambda: None)
    monkeypatch.setattr(gc, "unfreeze", lambda: None)
    yield
    monkeypatch.undo()
    gc.unfreeze()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_analysis_of_a_document_leaves_no_cycles(path, heap_set_aside):
    _clear_caches()
    doc = Document(path.read_text() + JUNK)
    a = analyze(doc)
    doc.replace((len(doc.texts) - 2, 0), (len(doc.texts) - 2, 0), "  ")
    a = analyze(doc, previous=a)
    m = a.module
    for line in range(0, len(doc.texts), 7):
        completion.complete(m, line, 12)
        hover.hover(m, line, 12)
        navigation.references(m, line, 12)
    symbols.document_symbols(m)
    if m.functions:
        cfg_dot.to_dot(cfg_dot.pictures(m, a.diagnostics, "all"))
    del doc, a, m
    _clear_caches()
    assert gc.collect() == 0
