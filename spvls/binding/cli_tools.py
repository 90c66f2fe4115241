"""spirv-as / spirv-val from PATH, behind the same assemble/validate API as spirv_tools.py.

Used only where the C library cannot be loaded. Their messages carry the same positions:
spirv-as prints "error: LINE: COLUMN: message" (1-based), spirv-val "error: line N: message"
with N the instruction number.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from array import array
from collections.abc import Sequence

from .spirv_tools import Failure, ValidatorOptions
from .text import utf8

_AS_ERROR = re.compile(r"error: (\d+): (\d+): (.*)", re.DOTALL)
_VAL_ERROR = re.compile(r"error: line (\d+): (.*)", re.DOTALL)


def available() -> bool:
    return bool(shutil.which("spirv-as") and shutil.which("spirv-val"))


def _run(args: list[str], data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(args, input=data, capture_output=True, timeout=120, check=False)


def assemble(text: str, env: str = "spv1.6", preserve_numeric_ids: bool = True) -> array | Failure:
    with tempfile.TemporaryDirectory(prefix="spvls-") as tmp:
        out = os.path.join(tmp, "module.spv")
        args = [shutil.which("spirv-as") or "spirv-as", "--target-env", env, "-o", out, "-"]
        if preserve_numeric_ids:
            args.insert(1, "--preserve-numeric-ids")
        proc = _run(args, utf8(text))
        err = proc.stderr.decode("utf-8", "replace").strip()
        if proc.returncode != 0 or not os.path.exists(out):
            m = _AS_ERROR.search(err)
            if m:
                return Failure(m.group(3).strip(), line=int(m.group(1)) - 1, column=int(m.group(2)) - 1)
            return Failure(err or f"spirv-as failed (exit {proc.returncode})", line=0, column=0)
        words = array("I")
        with open(out, "rb") as f:
            words.frombytes(f.read())
        return words


def validate(words: Sequence[int], env: str = "spv1.6", options: ValidatorOptions | None = None) -> Failure | None:
    data = (words if isinstance(words, array) else array("I", words)).tobytes()
    flags = (options or ValidatorOptions()).flags()
    proc = _run([shutil.which("spirv-val") or "spirv-val", "--target-env", env, *flags, "-"], data)
    if proc.returncode == 0:
        return None
    err = proc.stderr.decode("utf-8", "replace") + proc.stdout.decode("utf-8", "replace")
    m = _VAL_ERROR.search(err)
    if m:
        return Failure(m.group(2).rstrip(), index=int(m.group(1)))
    return Failure(err.strip() or f"spirv-val failed (exit {proc.returncode})", index=0)
