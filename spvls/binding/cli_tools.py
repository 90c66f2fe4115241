"""spirv-as / spirv-val as programs, behind the same assemble/validate API as spirv_tools.py.

Used only where the C library cannot be loaded; found as every SPIRV-Tools program is (tools.py).
Their messages carry the same positions: spirv-as prints "error: LINE: COLUMN: message"
(1-based), spirv-val "error: line N: message" with N the instruction number.
"""

from __future__ import annotations

import os
import re
import tempfile
from array import array
from collections.abc import Sequence

from . import tools
from .spirv_tools import Failure, ValidatorOptions
from .text import utf8

_AS_ERROR = re.compile(r"error: (\d+): (\d+): (.*)", re.DOTALL)
_VAL_ERROR = re.compile(r"error: line (\d+): (.*)", re.DOTALL)
_TIME_LIMIT = 120.0


def available() -> bool:
    return tools.found("spirv-as", "spirv-val")


def assemble(text: str, env: str = "spv1.6", preserve_numeric_ids: bool = True) -> array | Failure:
    with tempfile.TemporaryDirectory(prefix="spvls-") as tmp:
        out = os.path.join(tmp, "module.spv")
        args = ["--target-env", env, "-o", out, "-"]
        if preserve_numeric_ids:
            args.insert(0, "--preserve-numeric-ids")
        try:
            proc = tools.run("spirv-as", args, utf8(text), _TIME_LIMIT)
        except (tools.Missing, TimeoutError) as e:
            return Failure(str(e), line=0, column=0)
        err = proc.stderr.strip()
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
    try:
        proc = tools.run("spirv-val", ["--target-env", env, *flags, "-"], data, _TIME_LIMIT)
    except (tools.Missing, TimeoutError) as e:
        return Failure(str(e), index=0)
    if proc.returncode == 0:
        return None
    err = proc.stderr + proc.stdout.decode("utf-8", "replace")
    m = _VAL_ERROR.search(err)
    if m:
        return Failure(m.group(2).rstrip(), index=int(m.group(1)))
    return Failure(err.strip() or f"spirv-val failed (exit {proc.returncode})", index=0)
