"""A real editor on the source map: headless Neovim, through editors/nvim, jumps from an opcode of
glslangValidator output to the GLSL line it came from."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import required_program
from shaders import build, line_of, source_text

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]


def test_neovim_goes_from_an_opcode_to_the_shader_source(tmp_path):
    nvim = required_program("nvim", ".ci/run installs it: apt-get install neovim")
    path = build(tmp_path, "sum.comp", "inlined")
    lines = path.read_text().split("\n")
    main = next(i for i, x in enumerate(lines) if "%main = OpFunction" in x)
    n = next(i for i in range(main, len(lines)) if "OpUMod" in lines[i])  # weight(), inlined into main
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_EXAMPLE=str(path), SPVLS_NVIM_LINE=str(n),
               SPVLS_NVIM_COL=str(lines[n].index("OpUMod")), SPVLS_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_source.lua'}"],
                   env=env, timeout=120, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    want = line_of("common.glsl", "return float(i % 7u)")
    call = line_of("sum.comp", "acc += square(")
    assert result["hover"].startswith(f"Source: `./common.glsl:{want}` in `weight`")
    assert f"inlined into `main` at `sum.comp:{call}`" in result["hover"]
    assert Path(result["buffer"]) == (tmp_path / "common.glsl").resolve()
    assert result["cursor"] == [want, 0] and result["text"] == source_text("common.glsl", want)
