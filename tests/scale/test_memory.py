"""Issue 14.11-15: `check`'s memory is bounded on each 1 MB-class input. Memory is deterministic,
so it is bounded absolutely (time: test_growth.py)."""
import gc
import tracemalloc

import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document
from tests.scale.inputs import CASES


@pytest.mark.parametrize("name", CASES)
def test_memory_of_a_1mb_class_input(name):
    """Peak memory allocated while checking the issue's input (up to 1 MB): under 150 MB of
    Python objects, so the process stays under 300 MB (the 1 MB OpName took 650 MB; the
    5,000-deep call chain 2 GB)."""
    gen, _, big = CASES[name]
    text = gen(big)
    analyze(Document(gen(10)))
    gc.collect()
    tracemalloc.start()
    try:
        analyze(Document(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 150 << 20, f"{name}: {peak >> 20} MB for {len(text) >> 10} KB of text"
