"""SPIRV-Tools' errors relayed at the right place, once, under the env the module states, against
real glslangValidator output and the real library: spirv-as's line count skips the lines of a
string (glslang -g embeds the shader source in OpSource), `%0` is a name as spirv-as takes it, and
glslang's `OpModuleProcessed` statements choose the env."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import required_program, tool

from spvls.checks import validator
from spvls.checks.diagnostic import ERROR, INFO
from spvls.cli import check_file
from spvls.syntax.document import Document

SHADER = """\
#version 450
layout(location = 0) in vec4 tint;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) buffer Lights { vec4 light; } lights;

vec4 shade(vec4 c)
{
    return c * lights.light;
}

void main()
{
    color = shade(tint);
}
"""


def _compiled(tmp: Path, *flags: str) -> str:
    """SHADER compiled by glslangValidator -V -g (and flags), disassembled by spirv-dis."""
    glslang = required_program("glslangValidator", ".ci/run installs glslang-tools")
    (tmp / "shade.frag").write_text(SHADER)
    subprocess.run([glslang, "-V", "-g", *flags, "-o", "shade.spv", "shade.frag"], cwd=tmp, check=True,
                   capture_output=True)
    return subprocess.run([tool("spirv-dis"), str(tmp / "shade.spv")], check=True, capture_output=True,
                          text=True).stdout


def _edited(text: str, needle: str, old: str, new: str) -> tuple[str, int]:
    """The text with `old` replaced by `new` on the last line holding `needle`, and that line."""
    lines = text.split("\n")
    n = max(i for i, x in enumerate(lines) if needle in x)
    lines[n] = lines[n].replace(old, new)
    return "\n".join(lines), n


def _check(tmp: Path, text: str, env: str | None = None) -> list:
    f = tmp / "m.spvasm"
    f.write_text(text)
    return check_file(f, env)


def test_assembler_error_after_a_multi_line_source_string_lands_on_its_line(tmp_path: Path) -> None:
    text = _compiled(tmp_path)
    assert text.count("\n", text.index("OpSource"), text.index("OpName")) > 10  # the source spans lines
    bad, n = _edited(text, "= OpLoad ", "OpLoad", "OpLaod")
    doc = Document(bad)
    [d] = validator.run(doc.text, doc.lines, "spv1.0")
    assert (d.code, d.line, d.message) == ("spirv-as", n, "Invalid Opcode name 'OpLaod'")
    assert bad.split("\n")[n][d.start:d.end] == "OpLaod"
    # With the native checks: one error, spirv-as's words as its related information.
    [e] = [d for d in _check(tmp_path, bad) if d.severity == ERROR]
    assert (e.line, e.code) == (n, "operand.unknown-opcode")
    assert [r.message for r in e.related] == ["spirv-as: Invalid Opcode name 'OpLaod'"]


def test_a_missing_operand_is_one_error_on_its_instruction(tmp_path: Path) -> None:
    text = _compiled(tmp_path)
    lines = text.split("\n")
    n = max(i for i, x in enumerate(lines) if "= OpLoad " in x)
    lines[n] = lines[n].rsplit(" ", 1)[0]  # its Pointer dropped
    bad = "\n".join(lines)
    doc = Document(bad)
    [d] = validator.run(doc.text, doc.lines, "spv1.0")
    # spirv-as notices at the next instruction; the error is put on the one that lacks the operand.
    assert (d.code, d.line) == ("spirv-as", n)
    assert d.message == "Expected operand for OpLoad instruction, but found the next instruction instead."
    errors = [d for d in _check(tmp_path, bad) if d.severity == ERROR]
    assert [(e.line, e.code) for e in errors] == [(n, "operand.missing")]
    assert [r.message for r in errors[0].related] == [f"spirv-as: {d.message}"]


ZERO = """\
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical32 OpenCL
               OpEntryPoint Kernel %1 "k"
          %0 = OpTypeVoid
          %2 = OpTypeFunction %0
          %4 = OpTypeInt 32 0
         %00 = OpConstant %4 7
          %1 = OpFunction %0 None %2
          %3 = OpLabel
          %5 = OpIAdd %4 %00 %00
               OpReturn
               OpFunctionEnd
"""


def test_zero_is_a_name_as_spirv_as_takes_it(tmp_path: Path) -> None:
    f = tmp_path / "zero.spvasm"
    f.write_text(ZERO)
    spv = tmp_path / "zero.spv"
    subprocess.run([tool("spirv-as"), str(f), "-o", str(spv)], check=True)
    subprocess.run([tool("spirv-val"), str(spv)], check=True)  # spirv-val accepts it: so must we
    assert check_file(f, None) == []
    # A real error in such a module is named as the document names it.
    bad = ZERO.replace("%5 = OpIAdd %4 %00 %00", "%5 = OpIAdd %0 %00 %00")
    doc = Document(bad)
    [d] = validator.run(doc.text, doc.lines, "spv1.0")
    assert (d.line, d.message) == (10, "Expected int scalar or vector type as Result Type: IAdd")


def test_a_glslang_module_is_checked_under_the_env_it_names(tmp_path: Path) -> None:
    text = _compiled(tmp_path, "--target-env", "vulkan1.1")
    assert 'OpModuleProcessed "target-env vulkan1.1"' in text
    bad = "\n".join(x for x in text.split("\n") if "DescriptorSet" not in x)
    var = next(i for i, x in enumerate(bad.split("\n")) if "%lights = OpVariable" in x)
    said = next(i for i, x in enumerate(bad.split("\n")) if 'OpModuleProcessed "target-env vulkan1.1"' in x)
    found = [(d.line, d.severity, d.code, d.message, [r.message for r in d.related if "spirv-val" in r.message])
             for d in _check(tmp_path, bad)]
    assert found == [
        (said, INFO, "env.stated", 'checked under the vulkan1.1 target env, because the module says '
         'OpModuleProcessed "target-env vulkan1.1" (choose another with --target-env or the targetEnv setting)', []),
        # The Vulkan rule, native; spirv-val's words, in the document's names, as its related information.
        (var, ERROR, "vulkan.descriptor-set",
         '%lights, a variable in StorageBuffer, has no DescriptorSet decoration. Vulkan '
         '(VUID-StandaloneSpirv-UniformConstant-06677): "Any variable in the UniformConstant, StorageBuffer, '
         'or Uniform Storage Class must be decorated with DescriptorSet and Binding"',
         ["spirv-val.VUID-StandaloneSpirv-UniformConstant-06677: StorageBuffer id '%lights' is missing "
          "DescriptorSet decoration.\nFrom Vulkan spec:\nThese variables must have DescriptorSet and Binding "
          "decorations specified"]),
    ]
    # An env given by the user decides: no statement is read, and spv1.3 has no such rule.
    assert _check(tmp_path, bad, "spv1.3") == []


def test_a_spirv_1_0_glslang_module_states_its_env_in_its_source_text(tmp_path: Path) -> None:
    text = _compiled(tmp_path)  # Vulkan 1.0: SPIR-V 1.0 has no OpModuleProcessed; -g puts it in OpSource
    assert "OpModuleProcessed \"" not in text and "// OpModuleProcessed target-env vulkan1.0" in text
    bad = "\n".join(x for x in text.split("\n") if "Binding" not in x)
    codes = [(d.severity, d.code) for d in _check(tmp_path, bad)]
    assert codes == [(INFO, "env.stated"), (ERROR, "vulkan.descriptor-set")]
