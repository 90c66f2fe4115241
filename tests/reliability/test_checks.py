"""Issue 14: inputs that crashed the checker or that spirv-as rejects without a diagnostic."""
import subprocess

import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document
from tests.helpers import tool

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def _codes(text: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in analyze(Document(text)).diagnostics]


@pytest.mark.parametrize("digit", ["²", "①", "٣"])
def test_unicode_digit_where_an_integer_belongs_is_a_diagnostic(digit):
    # str.isdigit() is true for '²' and '①', and int() then raised.
    text = HEAD + f"%int = OpTypeInt {digit} 0\n%v = OpTypeVector %int {digit}\n%c = OpConstant %int 5\n"
    codes = _codes(text)
    assert (2, "operand.expected-integer") in codes and (3, "operand.expected-integer") in codes


@pytest.mark.parametrize("lines", [
    "%int = OpTypeInt \u246032 1\n%c = OpConstant %int 1\n%d = OpIAdd %int %c %c\n",  # fuzzer, seed 2311
    "%float = OpTypeFloat 32\n%v = OpTypeVector %float \u00b2\n%c = OpConstant %float 1\n%d = OpFAdd %float %c %c\n",
    # fuzzer, seed 3512862137: GLSL.std.450's result type a float of width '²'
    '%glsl = OpExtInstImport "GLSL.std.450"\n%float = OpTypeFloat \u00b2\n%c = OpConstant %float 1\n'
    "%d = OpExtInst %float %glsl Sqrt %c\n",
])
def test_unicode_digits_in_type_operands_are_diagnosed_by_every_family(lines):
    assert any(code.startswith(("operand.", "syntax.")) for _, code in _codes(HEAD + lines))


def test_validator_numbering_takes_ascii_digits_only():
    from spvls.checks import validator

    # spirv-as numbers every id by first appearance (the validator's run preserves no numeric id).
    doc = Document(HEAD + "%\u00b2 = OpTypeVoid\n%7 = OpTypeBool\n")
    assert list(validator.numbering(doc.lines).values())[-2:] == ["%\u00b2", "%7"]


def test_absurd_integer_widths_are_not_range_checked():
    text = HEAD + "%big = OpTypeInt 99999999999999 0\n%c = OpConstant %big 5\n%neg = OpTypeInt -3 0\n%d = OpConstant %neg 5\n"
    assert not [c for _, c in _codes(text) if c == "operand.literal-range"]


def test_module_level_instruction_after_a_leading_function():
    # layout.py added 1 to None: the first function had set no line to point at.
    text = "%f = OpFunction %void None %fn\nOpFunctionEnd\nOpCapability Shader\n"
    diags = analyze(Document(text)).diagnostics
    order = [d for d in diags if d.code == "layout.order"]
    assert len(order) == 1 and order[0].line == 2 and "(line 1)" in order[0].message


def _name_of(k: int) -> str:
    return HEAD + '%void = OpTypeVoid\nOpName %void "' + "a" * k + '"\n'


@pytest.mark.parametrize("k,too_long", [(262131, False), (262132, True)])
def test_instruction_over_65535_words(tmp_path, k, too_long):
    text = _name_of(k)
    assert ((3, "operand.too-long") in _codes(text)) == too_long
    spirv_as = tool("spirv-as")
    if spirv_as:  # the same line as spirv-as draws it
        p = tmp_path / "a.spvasm"
        p.write_text(text)
        r = subprocess.run([spirv_as, str(p), "-o", str(tmp_path / "a.spv")], capture_output=True, text=True)
        assert (r.returncode != 0) == too_long, r.stderr


def _unknown(k: int) -> str:
    return "".join(f"OpFrob{i}\n" for i in range(k))


def test_did_you_mean_names_the_closest_opcode_up_to_a_limit_then_on_request():
    """Issue 14.12, 1 MB of distinct unknown opcodes: past SUGGEST_OPCODES_UP_TO in a module the
    message names none (all lines alike), and a quick fix finds them when asked."""
    from spvls.checks import fixes
    from spvls.model.module import SUGGEST_OPCODES_UP_TO

    few = analyze(Document(HEAD + "OpIAd\n" + _unknown(SUGGEST_OPCODES_UP_TO - 1)))
    d = few.diagnostics[0]
    assert (d.line, d.message) == (2, "unknown instruction 'OpIAd'; did you mean 'OpIAdd'?")
    assert [f.title for f in d.fixes][:1] == ["Change to 'OpIAdd'"]
    many = analyze(Document(HEAD + "OpIAd\n" + _unknown(SUGGEST_OPCODES_UP_TO)))
    e = many.diagnostics[0]
    assert (e.line, e.message, e.fixes) == (2, "unknown instruction 'OpIAd'", ())
    assert not any("did you mean" in x.message for x in many.diagnostics)
    assert fixes.offered(many.module, e) == d.fixes


# Unknown names of the other kinds: (a module head they need, a line with one misspelt name, its
# message naming the closest, a line with the i-th distinct unknown name, close to a known one).
NAMES = {
    "enumerant": ("", "OpCapability Shadr", "unknown Capability 'Shadr'; did you mean 'Shader'?",
                  "OpCapability Shadr{}"),
    "extinst": ('%glsl = OpExtInstImport "GLSL.std.450"\n%f = OpTypeFloat 32\n%c = OpConstant %f 1\n',
                "%x = OpExtInst %f %glsl Sqrtt %c", "'Sqrtt' is not an instruction of GLSL.std.450; did you mean 'Sqrt'?",
                "%x{0} = OpExtInst %f %glsl Sqrtt{0} %c"),
    "spec-op": ("%int = OpTypeInt 32 0\n%c = OpSpecConstant %int 1\n", "%s = OpSpecConstantOp %int IAd %c %c",
                "OpSpecConstantOp takes an opcode name without 'Op', not 'IAd'; did you mean 'IAdd'?",
                "%s{0} = OpSpecConstantOp %int IAddd{0} %c %c"),
}


@pytest.mark.parametrize("kind", NAMES)
def test_did_you_mean_names_the_closest_name_up_to_a_limit_then_on_request(kind):
    """As for opcodes: 48,000 distinct unknown capabilities in 1 MB took 4.1 s of CPU, 23,000
    unknown OpSpecConstantOp opcodes 4.6 s. Past SUGGEST_NAMES_UP_TO distinct unknown names in a
    module no message names the closest (all lines alike); a quick fix finds them when asked."""
    from spvls.checks import fixes
    from spvls.model.module import SUGGEST_NAMES_UP_TO

    head, line, message, filler = NAMES[kind]

    def module(k: int):
        return analyze(Document(HEAD + head + line + "\n" + "".join(filler.format(i) + "\n" for i in range(k))))

    n = 2 + head.count("\n")
    few = module(SUGGEST_NAMES_UP_TO - 1)
    (d,) = [d for d in few.diagnostics if d.line == n and d.code.startswith("operand.unknown")]
    assert d.message == message
    assert d.fixes[0].title == f"Change to '{message.split(chr(39))[-2]}'"
    unknown = [x for x in few.diagnostics if x.code == d.code]
    assert len(unknown) == SUGGEST_NAMES_UP_TO and all("; did you mean" in x.message for x in unknown)
    many = module(SUGGEST_NAMES_UP_TO)
    (e,) = [e for e in many.diagnostics if e.line == n and e.code.startswith("operand.unknown")]
    assert (e.code, e.start, e.end, e.message, e.fixes) == (d.code, d.start, d.end, message.split(";")[0], ())
    assert not any("did you mean" in x.message for x in many.diagnostics)
    assert fixes.offered(many.module, e) == d.fixes


# Fuzzer seed 2701: two blocks named alike, the function without its end. Each block's missing
# terminator was told in the same words at the same place, and the fuzzer's in-place oracle could
# not sort the two (they differed only in their related information).
_TWO_UNENDED_BLOCKS = """OpCapability Shader
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpUndef %void
%entry = OpLabel
%y = OpUndef %void
"""


def test_a_block_without_terminator_at_a_missing_function_end_says_it_ends():
    from tests.fuzz.oracles import in_place

    a = analyze(Document(_TWO_UNENDED_BLOCKS))
    told = [(d.line, d.message.split(". SPIR-V")[0]) for d in a.diagnostics if d.code == "structure.terminator"]
    assert told == [
        (7, "block %entry has no terminator (OpBranch, OpReturn...) where it is followed by the next block"),
        (7, "block %entry has no terminator (OpBranch, OpReturn...) where it ends"),
    ]
    assert in_place(_TWO_UNENDED_BLOCKS) == []
