"""A real editor: headless Neovim attaches spvls through editors/nvim and reads its answers."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import required_program

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def nvim():
    return required_program("nvim", ".ci/run installs it: apt-get install neovim")


def test_neovim_gets_diagnostics_hover_completion_and_formatting(nvim, tmp_path):
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_EXAMPLE=str(ROOT / "examples" / "mistakes.spvasm"))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_client.lua'}"],
                   env=env, timeout=120, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    assert result["filetype"] == "spvasm"
    got = {(d["lnum"] + 1, d["code"]) for d in result["diagnostics"]}
    assert {(5, "operand.unknown-enumerant"), (23, "rotate.cluster-size"),
            (25, "reconvergence.same-labels")} <= got
    assert "OpGroupNonUniformRotateKHR" in result["hover"] and "SPV_KHR_subgroup_rotate" in result["hover"]
    assert "MaximallyReconvergesKHR" in result["completion"] and "LocalSize" in result["completion"]
    # A line typed without layout, formatted through the client: spirv-dis's column 15.
    assert result["format_edits"] >= 1
    assert result["first_line"] == "               OpNop ; inserted"
