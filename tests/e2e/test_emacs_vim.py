"""Real editors beyond Neovim: Emacs 28 + eglot (editors/emacs/spvasm-mode.el) and Vim 9 + ALE
(editors/vim), driven headless; each shows diagnostics, hover, completion, definition and applies a
quick fix from spvls, and gives SPIR-V assembly files their type."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import required_program

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
VALID = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
FILES = {  # name -> (content, is SPIR-V assembly)
    "a.spvasm": (VALID, True),
    "b.spv.asm": (VALID, True),
    "c.spirv": (VALID, True),
    "d.asm.comp": (VALID, True),
    "e.asm.vk.nocompat.frag": (VALID, True),
    "g.asm": ("; SPIR-V\n" + VALID, True),
    "boot.asm": ("mov eax, 1\n", False),
}


def _setup(tmp_path):
    ft = tmp_path / "ft"
    ft.mkdir()
    for name, (content, _) in FILES.items():
        (ft / name).write_text(content)
    example = tmp_path / "mistakes.spvasm"
    shutil.copy(ROOT / "examples" / "mistakes.spvasm", example)
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_EDITOR_OUT=str(out), SPVLS_PYTHON=sys.executable, SPVLS_EXAMPLE=str(example),
               SPVLS_FT_DIR=str(ft), SPVLS_FT_FILES=",".join(FILES), PYTHONPATH=str(ROOT))
    return env, out


def _common(result, spvasm_type, other_type):
    assert result["filetypes"] == {n: (spvasm_type if ours else other_type) for n, (_, ours) in FILES.items()}
    assert "OpGroupNonUniformRotateKHR" in result["hover"] and "SPV_KHR_subgroup_rotate" in result["hover"]
    assert {"MaximallyReconvergesKHR", "LocalSize"} <= set(result["completion"])
    assert result["definition_line"] == 16  # %subgroup = OpConstant %uint 3
    assert result["action_title"] == "Change to 'GroupNonUniformRotateKHR'"
    assert result["fixed_line"] == "               OpCapability GroupNonUniformRotateKHR"


def test_emacs_eglot(tmp_path):
    emacs = required_program("emacs", ".ci/run installs emacs-nox and elpa-eglot")
    env, out = _setup(tmp_path)
    env["SPVLS_MODE_EL"] = str(ROOT / "editors" / "emacs" / "spvasm-mode.el")
    r = subprocess.run([emacs, "--batch", "-Q", "-l", str(HERE / "emacs_client.el")], env=env, timeout=180,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["mode"] == "spvasm-mode"
    lines = {line for line, _ in result["diagnostics"]}
    assert {5, 23, 25} <= lines
    assert any("GroupNonUniformShuffleRotateKHR" in text for _, text in result["diagnostics"])
    _common(result, "spvasm-mode", "asm-mode")


def test_vim_ale(tmp_path):
    vim = required_program("vim", ".ci/run installs vim and vim-ale")
    ale = Path("/usr/share/vim-ale")
    if not ale.is_dir():
        if os.environ.get("CI"):
            pytest.fail("CI needs ALE (.ci/run installs vim-ale)")
        pytest.skip("ALE is not installed")
    env, out = _setup(tmp_path)
    exe = tmp_path / "spvls"  # as a venv's bin/spvls would be
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} -m spvls \"$@\"\n")
    exe.chmod(0o755)
    env.update(SPVLS_VIM_RTP=str(ROOT / "editors" / "vim"), SPVLS_ALE=str(ale), SPVLS_EXE=str(exe))
    r = subprocess.run([vim, "-N", "-u", "NONE", "-i", "NONE", "-Es", "-S", str(HERE / "vim_client.vim")], env=env,
                       timeout=180, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["filetype"] == "spvasm"
    got = {(line, code) for line, code, _ in result["diagnostics"]}
    assert {(5, "operand.unknown-enumerant"), (23, "rotate.cluster-size"), (25, "reconvergence.same-labels")} <= got
    _common(result, "spvasm", "asm")
