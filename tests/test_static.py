"""The type checker and the linter are clean over spvls/ (settings: [tool.mypy] and [tool.ruff] in pyproject.toml)."""
import hashlib
import tempfile
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is not installed (it comes with the [test] extra)")

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_is_clean_over_spvls(monkeypatch):
    """mypy's incremental mode (its default) with a cache of this checkout's own, outside it: a run
    re-checks the files changed since the last one and what depends on them (5.3 s -> 0.2 s of CPU
    when nothing changed). The cache is keyed by the files' contents and mypy's version and options,
    so the verdict is a full check's; a clean clone's first run is one."""
    monkeypatch.chdir(ROOT)  # mypy reads pyproject.toml from the working directory
    cache = Path(tempfile.gettempdir()) / "spvls-mypy" / hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]
    out, err, status = api.run(["--cache-dir", str(cache), "--config-file", str(ROOT / "pyproject.toml")])
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


def test_ruff_is_clean():
    """ruff's rules as [tool.ruff.lint] names them (explicitly, so a newer ruff changes nothing), over
    the package, its tests, the benchmarks and the generators."""
    r = _ruff("check", "spvls", "tests", "bench", "tools")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean_over_spvls():
    """The code is laid out by `ruff format` (the version pinned in the [test] extra), so diffs carry only meaning."""
    r = _ruff("format", "--check", "spvls", "tools")
    assert r.returncode == 0, r.stdout + r.stderr
