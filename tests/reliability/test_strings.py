"""Issue 14.8-10: strings over lines in any instruction, escaped quotes, form feed and vertical tab.
`check` agrees with spirv-as on them, and `format` never changes what spirv-as makes or accepts."""
import pytest

from spvls.binding import spirv_tools
from spvls.checks import analyze
from spvls.features.formatting import format_lines
from spvls.syntax.document import Document

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n"
FN = "%fn = OpTypeFunction %void\n%f = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n"


def _formatted(text: str) -> str:
    doc = Document(text)
    lines = list(doc.texts)
    for n, _old, new in format_lines(doc):
        lines[n] = new
    return "\n".join(lines)


def _assembled(text: str):
    r = spirv_tools.assemble(text)
    return None if isinstance(r, spirv_tools.Failure) else bytes(r)


CASES = {
    # A string over lines outside OpString/OpSource: its middle line is text, not an instruction.
    "multi-line OpName": HEAD + 'OpName %void "first\nOpNop\n     %x   =   OpTypeBool\nlast"\n' + FN,
    # An escaped quote at the end of a line continues the string onto the next.
    "escaped quote": HEAD + 'OpName %void "a\\"\n   %x   = OpTypeInt 32 0  "\n' + FN,
    "escaped newline": HEAD + 'OpName %void "a\\\n;b"\n' + FN,
    "quote in a comment": HEAD + 'OpName %void "a" ; "\n  %b   = OpTypeBool\n' + FN,
}


@pytest.mark.parametrize("name", CASES)
def test_strings_over_lines_check_and_format_as_spirv_as_reads_them(name):
    text = CASES[name]
    before = _assembled(text)
    assert before is not None, "spirv-as accepts it"
    assert not [d for d in analyze(Document(text)).diagnostics if d.code.startswith("syntax.")]
    out = _formatted(text)
    assert _assembled(out) == before
    assert _formatted(out) == out


@pytest.mark.parametrize("char,name", [("\f", "form feed"), ("\v", "vertical tab")])
def test_form_feed_and_vertical_tab_are_not_whitespace(char, name):
    text = HEAD + f"%b = OpTypeBool\n%x{char}= OpTypeInt 32 0\nOpName{char}%void \"v\"\n" + FN
    assert _assembled(text) is None  # spirv-as rejects it
    diags = [d for d in analyze(Document(text)).diagnostics if d.code == "syntax.parse"]
    assert [(d.line, d.start) for d in diags] == [(4, 2), (5, 6)] and name in diags[0].message
    assert _assembled(_formatted(text)) is None  # and format does not make it assemble
    # In a comment or a string they are text: fine for both.
    ok = HEAD + f"OpName %void \"a{char}b\" ; c{char}d\n" + FN
    assert _assembled(ok) is not None
    assert not [d for d in analyze(Document(ok)).diagnostics if d.code.startswith("syntax.")]


@pytest.mark.parametrize("line", ["OpExecutionMode%main LocalSize 1 1 1", "%t= OpTypeBool", "%t =OpTypeBool",
                                  "%t=OpTypeBool", "%i = OpTypeInt 32 0\"x\"", "OpName %void\"x\""])
def test_tokens_spirv_as_reads_as_one_word(line):
    """spirv-as splits words at whitespace only: found by the fuzzer, where format's spaces made
    such a line assemble."""
    text = HEAD + line + "\n" + FN
    assert _assembled(text) is None
    assert [d.line for d in analyze(Document(text)).diagnostics if d.code == "syntax.parse"] == [3]
    assert _assembled(_formatted(text)) is None


# Issue 14: what spirv-as does with glued strings and comma-separated ids, asked of the real
# assembler; `check` must report a syntax or operand problem exactly when it rejects the line.
GLUED = ['"x""y"', '"a"b"c"', '"x"\\ "y"', '"x";c', '"x"y', '"x"y"', '"x" "y"', '"x"%y"', '"x""y"z"', '"x""']
COMMAS = ["%i32,%i32", "%i32, %i32", "%i32 ,%i32"]


@pytest.mark.parametrize(
    "line",
    [f"OpName %void {s}" for s in GLUED]
    + [f"%s = OpString {s}" for s in GLUED[:3]]
    + [f"%st = OpTypeStruct {ids}" for ids in COMMAS],
)
def test_check_rejects_exactly_what_spirv_as_rejects(line):
    text = HEAD + "%i32 = OpTypeInt 32 1\n" + line + "\n" + FN
    accepted = _assembled(text) is not None
    found = [
        d for d in analyze(Document(text)).diagnostics if d.line == 4 and d.code.startswith(("syntax.", "operand."))
    ]
    assert accepted == (not found), found
    if accepted:
        assert _assembled(_formatted(text)) == _assembled(text)


def test_a_glued_string_is_one_token_with_spirv_as_value():
    from spvls.syntax.parser import parse_line, string_value

    line = parse_line('%s = OpString "x""y" ; c')
    assert [t.text for t in line.operands] == ['"x""y"'] and line.error is None
    assert string_value(line.operands[0].text) == 'x""y'  # as spirv-dis shows what spirv-as made: "x\"\"y"
