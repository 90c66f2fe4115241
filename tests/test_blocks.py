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
