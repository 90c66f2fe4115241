"""The type checker and the linter are clean over spvls/ (settings: [tool.mypy] and [tool.ruff] in pyproject.toml)."""
import os
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is not installed (it comes with the [test] extra)")

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_is_clean_over_spvls(monkeypatch):
    monkeypatch.chdir(ROOT)  # mypy reads pyproject.toml from the working directory
    out, err, status = api.run(["--no-incremental", "--cache-dir", os.devnull, "--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, out + err
    assert "Success: no issues found" in out


def _ruff(*args):
    import shutil
    import subprocess
    import sys

    ruff = Path(sys.executable).parent / "ruff"
    exe = str(ruff) if ruff.exists() else shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it comes with the [test] extra)")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_is_clean_over_spvls():
    """ruff's rules as [tool.ruff.lint] names them (explicitly, so a newer ruff changes nothing)."""
    r = _ruff("check", "spvls")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean_over_spvls():
    """The code is laid out by `ruff format` (the version pinned in the [test] extra), so diffs carry only meaning."""
    r = _ruff("format", "--check", "spvls")
    assert r.returncode == 0, r.stdout + r.stderr
