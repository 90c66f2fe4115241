"""Block layout against glslang: the offsets spvls computes for std140, std430 and scalar are those
glslang declares for blocks of each layout (tests/data/workbench/layouts.comp), and each block is
recognised as following the layouts its declarations fit."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from spvls.cli.modules import numbered_module, read_words
from spvls.model import blocks

SHADER = Path(__file__).resolve().parent / "data" / "workbench" / "layouts.comp"


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    glslang = shutil.which("glslangValidator")
    if glslang is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs glslangValidator (Debian's glslang-tools)")
        pytest.skip("glslangValidator is not installed")
    out = tmp_path_factory.mktemp("layouts") / "layouts.spv"
    subprocess.run([glslang, "-V", "--target-env", "vulkan1.2", str(SHADER), "-o", str(out)], check=True,
                   capture_output=True)
    m = numbered_module(read_words(str(out)))
    return m, {name: id_ for id_, name in m.names.items()}


def test_glslangs_offsets_are_the_standard_ones(module):
    m, ids = module
    for block, rule in (("A", "std140"), ("B", "std430"), ("C", "scalar")):
        declared = [mb.offset for mb in blocks.declared_members(m, ids[block])]
        assert blocks.standard_offsets(m, ids[block], rule)[0] == declared, block
    assert [mb.offset for mb in blocks.declared_members(m, ids["A"])] == [0, 48, 60, 64, 112]
    assert [mb.offset for mb in blocks.declared_members(m, ids["B"])] == [0, 16, 28, 32, 80]
    assert [mb.offset for mb in blocks.declared_members(m, ids["C"])] == [0, 12, 24, 28, 36, 48]


def test_each_block_follows_its_layouts(module):
    m, ids = module
    assert {name: blocks.layouts(m, ids[name]) for name in "ABCD"} == {
        "A": ["std140"],
        "B": ["std430"],
        "C": ["scalar"],
        "D": ["std140", "std430", "scalar"],  # vec4s and a mat4: every layout places them alike
    }


def test_declared_sizes(module):
    m, ids = module
    # The last member's offset plus its size: Light (vec3, float, vec2) is 24 bytes in each.
    assert {name: blocks.declared_size(m, ids[name]) for name in "ABCD"} == {"A": 136, "B": 104, "C": 72, "D": 96}


def _nested(levels: int, offset_on_innermost: bool) -> str:
    """A block whose struct holds two of the struct below it, `levels` deep: 2**levels paths reach the
    innermost struct, one struct each level."""
    lines = [
        "OpCapability Shader",
        "OpMemoryModel Logical GLSL450",
        'OpEntryPoint GLCompute %main "main"',
        "OpExecutionMode %main LocalSize 1 1 1",
        f"OpDecorate %s{levels} Block",
        "OpDecorate %var DescriptorSet 0",
        "OpDecorate %var Binding 0",
    ]
    if offset_on_innermost:
        lines.append("OpMemberDecorate %s0 0 Offset 0")
    for i in range(1, levels + 1):
        lines += [f"OpMemberDecorate %s{i} 0 Offset 0", f"OpMemberDecorate %s{i} 1 Offset {4 << (i - 1)}"]
    lines += ["%void = OpTypeVoid", "%fn = OpTypeFunction %void", "%float = OpTypeFloat 32", "%s0 = OpTypeStruct %float"]
    lines += [f"%s{i} = OpTypeStruct %s{i - 1} %s{i - 1}" for i in range(1, levels + 1)]
    lines += [
        f"%ptr = OpTypePointer StorageBuffer %s{levels}",
        "%var = OpVariable %ptr StorageBuffer",
        "%main = OpFunction %void None %fn",
        "%entry = OpLabel",
        "OpReturn",
        "OpFunctionEnd",
    ]
    return "\n".join(lines) + "\n"


def test_a_struct_met_by_many_paths_is_walked_once():
    from spvls.checks import analyze
    from spvls.syntax.document import Document

    # 2**30 paths to the innermost struct: walking each path would never finish.
    valid = analyze(Document(_nested(30, offset_on_innermost=True)))
    assert [d.code for d in valid.diagnostics if d.severity == "error"] == []
    text = _nested(30, offset_on_innermost=False)
    broken = analyze(Document(text))
    block = text.split("\n").index("%s30 = OpTypeStruct %s29 %s29")
    assert [(d.line, d.code, d.message.split(".")[0]) for d in broken.diagnostics if d.severity == "error"] == [
        (block, "block.offset", "%s30 is a Block struct: member 0 of %s0 has no Offset")
    ]
