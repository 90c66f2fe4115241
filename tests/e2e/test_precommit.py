"""The pre-commit hooks (.pre-commit-hooks.yaml) run by pre-commit itself, offline.

pre-commit installs the hook's repository into a fresh virtualenv with pip. Offline, pip gets no
index and no dependencies (PIP_NO_INDEX, PIP_NO_DEPS); the runtime dependencies come from this
interpreter's site-packages through PYTHONPATH (minus its setuptools, so the build uses the
virtualenv's own)."""
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
CLEAN = """               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
          %l = OpLabel
               OpReturn
               OpFunctionEnd
"""
# Left out: the build tools (the hook's virtualenv has its own) and spvls itself (the hook installs it).
_LEFT_OUT = ("setuptools", "_distutils_hack", "pkg_resources", "pip", "wheel", "distutils-precedence.pth", "spvls",
             "__editable__")


def _deps(where: Path) -> Path:
    """A directory of links to this interpreter's packages (spvls's dependencies), for PYTHONPATH."""
    site = Path(sysconfig.get_paths()["purelib"])
    where.mkdir()
    for p in site.iterdir():
        if not p.name.startswith(_LEFT_OUT):
            (where / p.name).symlink_to(p)
    return where


def test_hooks_through_pre_commit(tmp_path):
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("CI runs from a git clone; the hooks are tried from it")
        pytest.skip("not a git checkout")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "bad.spvasm").write_text(CLEAN.replace("OpReturn", "OpRetrun"))
    messy = CLEAN.replace("       %void = OpTypeVoid", "%void  =   OpTypeVoid")
    (repo / "messy.asm.vk.comp").write_text(messy)
    (repo / "x86.asm").write_text("mov eax, 1\n")  # another assembly language: left alone
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1",
           "PIP_NO_BUILD_ISOLATION": "0", "PYTHONPATH": str(_deps(tmp_path / "deps"))}
    r = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "--all-files"], cwd=repo,
                       env=env, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    lines = out.splitlines()
    assert any(x.startswith("spvls check") and x.endswith("Failed") for x in lines), out
    assert "bad.spvasm:9:16: error: unknown instruction 'OpRetrun'; did you mean 'OpReturn'? " \
           "[operand.unknown-opcode]" in lines
    assert any(x.startswith("spvls format") and x.endswith("Failed") for x in lines), out
    assert "files were modified by this hook" in out and "messy.asm.vk.comp: formatted 1 line(s)" in out
    assert (repo / "messy.asm.vk.comp").read_text() == CLEAN
    assert "x86.asm" not in out and (repo / "x86.asm").read_text() == "mov eax, 1\n"


def test_the_contributors_hooks_pass_on_the_repository(tmp_path):
    """.pre-commit-config.yaml is valid, and its read-only hooks (ruff, mypy, spvls check) pass over
    the repository, run by pre-commit with this environment's tools."""
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("CI runs from a git clone; the hooks are tried from it")
        pytest.skip("not a git checkout")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    pre_commit = [sys.executable, "-m", "pre_commit"]
    r = subprocess.run([*pre_commit, "validate-config", ".pre-commit-config.yaml"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    for hook in ("ruff", "mypy", "spvls-check"):
        r = subprocess.run([*pre_commit, "run", hook, "--all-files"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0 and "Passed" in r.stdout, r.stdout + r.stderr
