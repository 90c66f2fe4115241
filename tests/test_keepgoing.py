"""Keep-going validation (spvls/binding/keepgoing.py) against the real SPIRV-Tools: every error
spirv-val finds after setting the earlier ones aside, and never one the setting-aside caused."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import SMALL_MODULE, required_program, tool

from spvls.binding import keepgoing
from spvls.binding import spirv_tools as st
from spvls.binding import worker as workers
from spvls.checks import validator
from spvls.checks.diagnostic import ERROR
from spvls.cli import check_file
from spvls.syntax.document import Document

# helpers.SMALL_MODULE with an array, a pointer into it and more instructions to break.
MODULE = (
    SMALL_MODULE.replace("      %int_1 = OpConstant %int 1\n", "      %int_0 = OpConstant %int 0\n      %int_1 = OpConstant %int 1\n")
    .replace(
        "    %float_1 = OpConstant %float 1\n",
        "    %float_1 = OpConstant %float 1\n"
        "        %arr = OpTypeArray %float %int_1\n"
        "      %p_arr = OpTypePointer Function %arr\n"
        "    %p_float = OpTypePointer Function %float\n",
    )
    .replace("          %l = OpLabel\n", "          %l = OpLabel\n          %v = OpVariable %p_arr Function\n")
    .replace(
        "          %x = OpIAdd %int %int_1 %int_1\n",
        "          %x = OpIAdd %int %int_1 %int_1\n"
        "          %e = OpAccessChain %p_float %v %int_0\n"
        "          %f = OpLoad %float %e\n"
        "          %y = OpFAdd %float %f %float_1\n"
        "          %z = OpIMul %int %int_1 %int_1\n",
    )
)


def _run(text: str, env: str = "spv1.6") -> list[tuple[int, str]]:
    doc = Document(text)
    return [(d.line, d.message) for d in validator.run(text, doc.lines, env)]


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.split("\n")) if needle in t)


def test_every_independent_error_is_found_in_order() -> None:
    assert _run(MODULE) == []
    bad = (MODULE.replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %float_1")
           .replace("OpFAdd %float %f %float_1", "OpFAdd %float %f %int_1")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert _run(bad) == [
        (_line(bad, "OpIAdd"), "Expected int scalar or vector type as operand: IAdd operand index 3"),
        (_line(bad, "OpFAdd"), "Expected arithmetic operands to be of Result Type: FAdd operand index 3"),
        (_line(bad, "OpIMul"), "Expected int scalar or vector type as Result Type: IMul"),
    ]


def test_an_error_the_setting_aside_caused_is_never_reported() -> None:
    # The access chain's index is a float: set aside, it becomes OpUndef, and the load from an
    # OpUndef pointer would be an error ("not a logical pointer") that the user's module has not.
    bad = MODULE.replace("OpAccessChain %p_float %v %int_0", "OpAccessChain %p_float %v %float_1")
    assert _run(bad) == [(_line(bad, "OpAccessChain"),
                          "Indexes passed to OpAccessChain must be of type integer.")]
    # Its users' own mistakes are not reported either: they name a value that was set aside.
    worse = bad.replace("OpFAdd %float %f %float_1", "OpFAdd %float %f %int_1")
    assert [n for n, _ in _run(worse)] == [_line(worse, "OpAccessChain")]
    # But a mistake that names nothing set aside is.
    other = bad.replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1")
    assert sorted(n for n, _ in _run(other)) == [_line(other, "OpAccessChain"), _line(other, "OpIMul")]
    # Nor one on an instruction naming a value set aside: %z names %x, whose IAdd is a mistake.
    named = (MODULE.replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %float_1")
             .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %x %int_1"))
    assert [n for n, _ in _run(named)] == [_line(named, "OpIAdd")]


def test_rounds_stop_at_their_bound_and_at_what_cannot_be_set_aside() -> None:
    lines = MODULE.split("\n")
    at = _line(MODULE, "%z = OpIMul")
    bad = "\n".join(lines[:at] + [f"%m{i} = OpIMul %float %int_1 %int_1" for i in range(40)] + lines[at:])
    found = _run(bad)
    assert len(found) == 1 + keepgoing.ROUNDS
    # A label cannot be set aside: the first error on one is the last.
    words = st.assemble(bad, preserve_numeric_ids=False)
    assert keepgoing.later_failures(words, 1, "", lambda w: None, validator.keep_ops(), 1e9) == []


def test_past_the_assemblers_error_the_later_errors_are_found() -> None:
    # A missing operand (noticed on the next line), an operand spirv-as cannot read: each line is
    # set aside in turn, then spirv-val finds the two mistakes that stand.
    bad = (MODULE.replace("LocalSize 1 1 1", "LocalSize 1 1")
           .replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %float_1")
           .replace("%y = OpFAdd %float %f %float_1", "%y = OpCompositeInsert %float %f 0")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert _run(bad) == [
        (_line(bad, "OpExecutionMode"),
         "Expected operand for OpExecutionMode instruction, but found the next instruction instead."),
        (_line(bad, "OpCompositeInsert"), "Expected id to start with %."),
        (_line(bad, "OpIAdd"), "Expected int scalar or vector type as operand: IAdd operand index 3"),
        (_line(bad, "OpIMul"), "Expected int scalar or vector type as Result Type: IMul"),
    ]


def test_a_line_set_aside_keeps_every_other_ids_name() -> None:
    # %y is first named on the refused line: every id keeps the number spirv-as gives it in the
    # module as written, so the validator's message names %int and %e, not their neighbours.
    bad = (MODULE.replace("LocalSize 1 1 1", "LocalSize 1 1 1\n               OpDecorate %y NoContraction 7")
           .replace("%f = OpLoad %float %e", "%f = OpLoad %int %e")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert _run(bad) == [
        (_line(bad, "OpDecorate"), "Expected <opcode> or <result-id> at the beginning of an instruction, found '7'."),
        (_line(bad, "OpLoad"), "OpLoad Result Type <id> '%int' does not match Pointer <id> '%e's type."),
        (_line(bad, "OpIMul"), "Expected int scalar or vector type as Result Type: IMul"),
    ]


def test_past_the_assembler_an_error_the_setting_aside_caused_is_never_reported() -> None:
    # %float loses its width: set aside, it is an empty structure, and the constant of that type
    # (an assembler error), the OpFAdd of that type (a validator error) are not the user's.
    bad = (MODULE.replace("%float = OpTypeFloat 32", "%float = OpTypeFloat")
           .replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %int_0 %int_0")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert _run(bad) == [
        (_line(bad, "OpTypeFloat"), "Expected operand for OpTypeFloat instruction, but found the next instruction instead."),
        # A word too many is read as the next instruction's result id: put on its own line.
        (_line(bad, "OpIAdd"), "'=' expected after result id but found '%e'."),
    ]
    # What cannot be set aside (a return) ends the rounds.
    stop = MODULE.replace("OpReturn", "OpReturn 5").replace("OpIMul %int %int_1", "OpIMul %float %int_1")
    assert _run(stop) == [
        (_line(stop, "OpReturn"), "Expected <opcode> or <result-id> at the beginning of an instruction, found '5'.")
    ]


def test_the_worker_process_answers_what_runs_in_process() -> None:
    bad = (MODULE.replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %float_1")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    options = st.ValidatorOptions(friendly_names=False, keep_going=validator.keep_ops())
    w = workers.Worker()
    try:
        here = workers.check(bad.encode(), "spv1.6", options)
        there = w.check(bad, "spv1.6", options)
    finally:
        w.close()
    assert here == there
    assert here[1] is not None and len(here[1].later) == 1
    refused = bad.replace("LocalSize 1 1 1", "LocalSize 1 1")
    w = workers.Worker()
    try:
        here = workers.check(refused.encode(), "spv1.6", options)
        there = w.check(refused, "spv1.6", options)
    finally:
        w.close()
    assert here == there
    assert here[0] == "as" and here[1] is not None and len(here[1].later) == 2


SHADER = """\
#version 450
layout(location = 0) in vec4 tint;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) buffer Lights { vec4 light; } lights;

void main()
{
    color = tint + lights.light;
}
"""


def test_a_glslang_shader_with_three_mistakes_shows_three(tmp_path: Path) -> None:
    glslang = required_program("glslangValidator", ".ci/run installs glslang-tools")
    (tmp_path / "s.frag").write_text(SHADER)
    subprocess.run([glslang, "-V", "-g", "-o", "s.spv", "s.frag"], cwd=tmp_path, check=True, capture_output=True)
    text = subprocess.run([tool("spirv-dis"), str(tmp_path / "s.spv")], check=True, capture_output=True,
                          text=True).stdout
    lines = text.split("\n")
    for needle in ("OpDecorate %lights DescriptorSet", "OpDecorate %tint Location"):
        lines[_line(text, needle)] = ""
    add = _line(text, "= OpFAdd %v4float")
    lines[add] = lines[add].rsplit(" ", 1)[0] + " %int_0"
    f = tmp_path / "bad.spvasm"
    f.write_text("\n".join(lines))
    # spirv-val finds all three, one after the other.
    doc = Document(f.read_text())
    assert [d.line for d in validator.run(doc.text, doc.lines, "vulkan1.0")] == [
        add, _line(text, "%lights = OpVariable"), _line(text, "%tint = OpVariable")]
    # With the native rules, which find them too: one diagnostic each, spirv-val's words related.
    errors = [(d.line, d.code, [r.message.split(":")[0] for r in d.related if "spirv-val" in r.message])
              for d in check_file(f, None) if d.severity == ERROR]
    assert errors == [
        (_line(text, "%tint = OpVariable"), "vulkan.location", ["spirv-val.VUID-StandaloneSpirv-Location-04916"]),
        (_line(text, "%lights = OpVariable"), "vulkan.descriptor-set",
         ["spirv-val.VUID-StandaloneSpirv-UniformConstant-06677"]),
        (add, "arith.float", ["spirv-val"]),
    ]


def test_ids_never_defined_set_their_users_aside() -> None:
    # spirv-val names no instruction for an id used but never defined: every user is set aside.
    bad = (MODULE.replace("OpIAdd %int %int_1 %int_1", "OpIAdd %int %int_1 %nowhere")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert _run(bad) == [
        (_line(bad, "OpIAdd"), "ID '%nowhere' has not been defined"),
        (_line(bad, "OpIMul"), "Expected int scalar or vector type as Result Type: IMul"),
    ]
    # Used only where a forward reference is allowed, it is listed with no instruction: its users go aside.
    named = MODULE.replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1").replace("       %void = OpTypeVoid\n", "OpName %nowhere \"n\"\n       %void = OpTypeVoid\n")
    assert _run(named) == [
        (_line(named, "OpName"), "The following forward referenced IDs have not been defined:\n'%nowhere'"),
        (_line(named, "OpIMul"), "Expected int scalar or vector type as Result Type: IMul"),
    ]


def test_a_type_set_aside_stands_for_an_empty_structure() -> None:
    # A pointer type to a constant: set aside, its users are touched, and the next mistake is found.
    bad = (MODULE.replace("    %p_float = OpTypePointer Function %float\n",
                          "    %p_float = OpTypePointer Function %float\n      %p_bad = OpTypePointer Function %int_1\n")
           .replace("OpIMul %int %int_1 %int_1", "OpIMul %float %int_1 %int_1"))
    assert [n for n, _ in _run(bad)] == [_line(bad, "%p_bad ="), _line(bad, "OpIMul")]
