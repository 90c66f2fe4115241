"""Module._build indexes lines inline (lines in order, empty indexes); Module._index (an in-place
update's) must give the same indexes, line by line."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
from helpers import DATA_ROOT

from spvls.model.module import Module
from spvls.spec.grammar import load
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]

MIXED = """\
               OpCapability Shader
               OpCapability Shader
               OpExtension "SPV_KHR_bogus"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %later
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
               OpName %nowhere "nowhere"
               OpDecorate %later Location 0
       %void = OpTypeVoid
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
      %p_int = OpTypePointer Private %int
      %later = OpVariable %p_int Private
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpIAdd %int %y %undefined
          %y = OpIAdd %int %x %x
          %z = OpBogus %int %x
          %w = OpExtInst %int %missing Sqrt %x
          %v = OpLoad %int %later Bogus
               OpReturn
               OpFunctionEnd
"""

FIELDS = (
    "defs",
    "uses",
    "duplicates",
    "undefined_ids",
    "names",
    "decorations",
    "capabilities",
    "extensions",
    "entry_points",
    "unknown_opcodes",
    "unknown_names",
)


def _replayed(m: Module) -> Module:
    r = Module(m.doc, load(), (1, 6))  # a compiled Module is not copied: another, holding m's instructions
    r.insts = m.insts
    r.defs, r.uses, r.duplicates, r.names, r.decorations = {}, {}, [], {}, {}
    r.capabilities, r.extensions, r.entry_points = {}, {}, {}
    r.unknown_opcodes, r.unknown_names, r.undefined_ids, r._by_op = Counter(), Counter(), 0, None
    for inst in m.insts:
        r._index(inst)
    return r


def _texts() -> list[str]:
    out = [MIXED] + [p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests/data/rules").glob("*.spvasm"))]
    manifest = DATA_ROOT / "corpus" / "MANIFEST.tsv"
    rows = list(csv.DictReader(manifest.read_text(encoding="utf-8").splitlines(), delimiter="\t"))[::20]
    out += [(DATA_ROOT / "corpus" / r["path"]).read_text(encoding="utf-8", errors="replace") for r in rows]
    return out


@pytest.mark.parametrize("text", _texts())
def test_the_build_indexes_as_index_does_line_by_line(text):
    m = Module(Document(text), load(), (1, 6))
    r = _replayed(m)
    for name in FIELDS:
        if name == "uses":  # the build keeps an id used once as a 1-tuple, an edit's index as a list
            assert {k: list(v) for k, v in m.uses.items()} == {k: list(v) for k, v in r.uses.items()}
            continue
        assert getattr(m, name) == getattr(r, name), name
    lazy = Module(m.doc, load(), (1, 6))  # with_op's index over m's instructions, as its first call builds it
    lazy.insts = m.insts
    lazy._by_op = None
    lazy.with_op(["OpNop"])
    assert lazy._by_op == m._by_op
    assert [m.function_at(i.line) for i in m.insts] == [_function_at(m, i.line) for i in m.insts]


def _function_at(m: Module, line: int):
    for f in m.functions:
        if f.line <= line <= f.end_line:
            return f
    return None


def test_the_mixed_module_reaches_every_index():
    m = Module(Document(MIXED), load(), (1, 6))
    assert m.undefined_ids == 3  # %undefined, %nowhere, %missing
    assert [i.line for i in m.duplicates] == [10]
    assert [i.line for i in m.uses["%x"]] == [18, 18]  # once per operand; unmatched operands name nothing
    assert m.unknown_opcodes == Counter({"OpBogus": 1})
    assert m.unknown_names
