"""The outline: blocks under their functions, until a module has too many to list."""
from pathlib import Path

from spvls.checks import analyze
from spvls.features import symbols
from spvls.syntax.document import Document

MATMUL = (Path(__file__).resolve().parents[2] / "examples" / "matmul.spvasm").read_text()


def _functions(m):
    return [s for s in symbols.document_symbols(m) if s.kind == "function"]


def test_blocks_are_listed_under_their_function():
    (main,) = _functions(analyze(Document(MATMUL)).module)
    assert main.name == "main" and [c.name for c in main.children] == ["%entry"]


def test_past_the_limit_functions_are_listed_without_blocks(monkeypatch):
    monkeypatch.setattr(symbols, "MAX_BLOCK_SYMBOLS", 0)
    (main,) = _functions(analyze(Document(MATMUL)).module)
    assert main.children == [] and main.detail.endswith("· 1 block")
