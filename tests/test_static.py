"""The type checker is clean over spvls/ (its settings: [tool.mypy] in pyproject.toml)."""
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
