"""Target env names are spirv-val's, and each implies the SPIR-V version spirv-as writes for it."""
import re
import subprocess

from helpers import tool

from spvls.spec import env


def test_every_spirv_val_name_is_known():
    text = subprocess.run([tool("spirv-val"), "--help"], capture_output=True, text=True).stdout
    block = re.search(r"--target-env\s+\{([^}]*)\}", text).group(1)
    names = set(re.sub(r"\s+", "", block).split("|"))
    assert "opengl4.5" in names and len(names) > 20
    assert names <= set(env.NAMES)
    assert set(env.NAMES) - names == {f"universal1.{i}" for i in range(7)}  # spvls's older names, kept


def test_each_name_gives_the_version_spirv_as_writes(tmp_path):
    src = tmp_path / "m.spvasm"
    src.write_text("OpCapability Shader\nOpMemoryModel Logical GLSL450\n")
    for name in env.NAMES:
        if name.startswith("universal"):
            continue
        out = tmp_path / f"{name}.spv"
        subprocess.run([tool("spirv-as"), "--target-env", name, src, "-o", out], check=True)
        word = out.read_bytes()[4:8]
        assert (word[2], word[1]) == env.version_of(name), name
