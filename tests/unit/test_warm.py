"""The warm-up at `initialize` (spvls.state.warm): what the first didOpen no longer builds."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from spvls.checks import analyze
from spvls.state.warm import SAMPLE
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]


def test_the_sample_reaches_a_diagnostic_and_nothing_else():
    # The sample must stay a module the checks take whole, with one diagnostic to convert.
    diags = analyze(Document(SAMPLE)).diagnostics
    assert [(d.line, d.code) for d in diags] == [(33, "id.undefined")]


def test_after_warm_the_parser_grammar_and_converter_are_built():
    # In a fresh process: nothing built before warm(); everything the first didOpen needs after.
    code = textwrap.dedent(
        """
        from spvls.server.app import create
        server = create()
        from spvls.syntax.parser import _parser
        from spvls.spec.grammar import load
        from spvls.state.warm import warm
        before = (_parser.cache_info().currsize, load.cache_info().currsize)
        warm(server.protocol._converter)
        print(before, (_parser.cache_info().currsize, load.cache_info().currsize))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True
    )
    assert out.stdout.split("\n")[0] == "(0, 0) (1, 1)"
