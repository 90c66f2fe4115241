"""Lines of one shape (ids aside) match the grammar alike, except where an id decides the grammar:
the extended-instruction set of OpExtInst and OpExtInstWithForwardRefsKHR."""
import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document

HEADER = """%glsl = OpExtInstImport "GLSL.std.450"
%ocl = OpExtInstImport "OpenCL.std"
%f = OpTypeFloat 32
%x = OpConstant %f 1
"""


@pytest.mark.parametrize("op", ["OpExtInst", "OpExtInstWithForwardRefsKHR"])
def test_same_shape_different_set(op):
    text = HEADER + f"%a = {op} %f %glsl Sqrt %x\n%b = {op} %f %ocl Sqrt %x\n"
    found = [(d.line, d.code) for d in analyze(Document(text)).diagnostics if d.code.startswith("operand.")]
    assert found == [(5, "operand.unknown-extinst")]  # Sqrt is GLSL.std.450's; OpenCL.std spells it sqrt


def test_lines_of_one_shape_match_alike():
    text = HEADER + "%a = OpFAdd %f %x %x\n%b = OpFAdd %f %x %x\n%c = OpFAdd %f %x\n"
    m = analyze(Document(text)).module
    first, second, short = (m.inst_at[n].match for n in (4, 5, 6))
    assert [o.spec for o in first.operands] == [o.spec for o in second.operands]
    assert [o.token.text for o in second.operands] == ["%f", "%x", "%x"]
    assert [p.code for p in short.problems] == ["operand.missing"]
