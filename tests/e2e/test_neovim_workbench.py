"""The workbench in a real Neovim (0.11 from the [test] extra and Debian's 0.7): the outline of an
entry point's resources, hover on a resource, the code lens, and :SpvlsOptimize's and
:SpvlsDiff's side-by-side diffs, against what spirv-opt and spirv-diff themselves make."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import tool

from spvls.binary import compare, optimize
from spvls.binding import spirv_tools
from spvls.cli.modules import read_words

pytestmark = pytest.mark.editors

ROOT = Path(__file__).resolve().parents[2]
WORKBENCH = ROOT / "tests" / "data" / "workbench"


def _nvims():
    return [pytest.param(label, path, id=label) for label, path in (("0.11", tool("nvim")), ("0.7", "/usr/bin/nvim"))]


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


@pytest.mark.parametrize("label,nvim", _nvims())
def test_neovim_workbench(label, nvim, tmp_path):
    if not nvim or not Path(nvim).exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI needs Neovim {label}")
        pytest.skip(f"no Neovim {label}")
    glslang = "glslangValidator"
    module, other = tmp_path / "lit.spvasm", tmp_path / "lit-o.spv"
    spv = tmp_path / "lit.spv"
    subprocess.run([glslang, "-V", str(WORKBENCH / "lit.frag"), "-o", str(spv)], check=True, capture_output=True)
    module.write_text(spirv_tools.disassemble(read_words(str(spv)), "spv1.6", raw_ids=False, indent=True))
    # The other build: the same shader at -Os (glslang's own optimizer).
    subprocess.run([glslang, "-V", "-Os", str(WORKBENCH / "lit.frag"), "-o", str(other)], check=True,
                   capture_output=True)
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_EXAMPLE=str(module), SPVLS_OTHER=str(other), PYTHONPATH=str(ROOT))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_workbench.lua'}"],
                   env=env, timeout=240, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    text = module.read_text()

    def line_of(pattern: str) -> int:
        return next(n for n, s in enumerate(text.split("\n")) if re.search(pattern, s))

    assert result["outline"] == [
        {"name": "albedo_map", "detail": "texture · set 1 · binding 0 · sampler2D", "line": line_of("%albedo_map = ")},
        {"name": "uv", "detail": "input · location 0 · vec2", "line": line_of("%uv = ")},
        {"name": "Materials", "detail": "SSBO · set 0 · binding 1 · 16 B × n", "line": line_of("%materials = ")},
        {"name": "push", "detail": "push constants · 68 B", "line": line_of("%push = ")},
        {"name": "color", "detail": "output · location 0 · vec4", "line": line_of("%color = ")},
        {"name": "normal", "detail": "input · location 1 · vec3", "line": line_of("%normal = ")},
        {"name": "Camera", "detail": "UBO · set 0 · binding 0 · 112 B", "line": line_of("%camera = ")},
    ]
    assert result["hover"].split("\n\n")[-2:] == [
        "**UBO** `Camera` · set 0 · binding 0 · 112 B · std140, std430, scalar",
        "| offset | size | member | type |\n| ---: | ---: | --- | --- |\n"
        "| 0 | 64 | `view_proj` | `mat4 · matrix stride 16` |\n"
        "| 64 | 12 | `eye` | `vec3` |\n"
        "| 76 | 4 | `exposure` | `float` |\n"
        "| 80 | 32 | `lights` | `vec4[2] · array stride 16` |",
    ]
    assert result["lenses"] == [
        {"line": line_of("OpEntryPoint"),
         "title": "1 UBO, 1 SSBO, 1 texture · push constants 68 B · 2 inputs, 1 output"}
    ]
    # :SpvlsOptimize: the module as spirv-dis shows it beside what spirv-opt -O makes, in diff mode.
    expected = optimize.optimize(read_words(str(module)), ["-O"], per_pass=True)
    views = result["optimized"]["views"]
    assert [v["lines"] for v in views] == [_lines(spirv_tools.disassemble(read_words(str(module)), "spv1.6",
                                                                           raw_ids=False, indent=True)),
                                           _lines(expected.text)]
    assert [v["diff"] for v in views] == [True, True] and {v["filetype"] for v in views} == {"spvasm"}
    assert (result["optimized"]["before"], result["optimized"]["after"]) == (expected.before, expected.after)
    changed = ", ".join(f"{p.name} {p.before}→{p.after}" for p in expected.passes if p.before != p.after)
    said = f"spvls: spirv-opt -O: {expected.before} → {expected.after} instructions ({changed})"
    assert said in result["messages"], result["messages"]
    # :SpvlsDiff: the other build in this module's ids, side by side.
    diff = compare.compare(read_words(str(module)), read_words(str(other)))
    assert [v["lines"] for v in result["compared"]["views"]] == [_lines(diff.left), _lines(diff.right)]
    assert result["compared"]["changed"] == diff.changed > 0
