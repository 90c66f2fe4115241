"""A real editor: headless Neovim attaches spvls through editors/nvim and reads its answers."""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
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


def test_neovim_spvls_cfg_writes_and_opens_the_picture(nvim, tmp_path):
    """:SpvlsCfg's function through a real Neovim: the SVG of the function at the cursor, handed to the viewer."""
    out, viewed = tmp_path / "result.json", tmp_path / "viewed"
    viewed.mkdir()
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_NVIM_VIEWED=str(viewed),
               SPVLS_EXAMPLE=str(ROOT / "tests" / "data" / "cfg" / "nested.spvasm"))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_cfg.lua'}"],
                   env=env, timeout=180, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    assert result["fn"] == "%main"
    (shown,) = viewed.iterdir()  # the viewer got the written file
    if shutil.which("dot"):
        assert shown.suffix == ".svg"
        texts = {t.text for t in ET.fromstring(shown.read_text()).iter("{http://www.w3.org/2000/svg}text")}
        assert {"%entry", "%body", "%c1", "%dead"} <= texts
    else:
        assert shown.suffix == ".dot" and shown.read_text().startswith("digraph cfg {")
