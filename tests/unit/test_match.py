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
    assert [o.grammar_operand for o in first.operands] == [o.grammar_operand for o in second.operands]
    assert [o.token.text for o in second.operands] == ["%f", "%x", "%x"]
    assert [p.code for p in short.problems] == ["operand.missing"]


def test_templates_match_as_the_matcher_does(data_root):
    """Every corpus instruction: the shape template's match equals matching the line itself."""
    from spvls.model import operands
    from spvls.spec.grammar import load

    g = load()
    for path in sorted((data_root / "corpus").rglob("*.asm.*"))[:300]:
        doc = Document(path.read_text(encoding="utf-8", errors="replace"))
        imports = {}
        for line in doc.lines:
            if line.opcode is None:
                continue
            if line.opcode.text == "OpExtInstImport" and line.result and line.operands:
                imports[line.result.text] = line.operands[0].text.strip('"')
            a, b = operands.match(g, line, imports), operands._match(g, line, line.opcode, imports)
            assert (a.inst, list(a.operands), a.problems, tuple(a.pending), a.ext_inst) == \
                (b.inst, list(b.operands), b.problems, tuple(b.pending), b.ext_inst), line.text
