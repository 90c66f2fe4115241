"""What spirv-opt makes of a module, as friendly text, with what each pass did to its size.

spirv-opt runs in a child process with a time limit (binding.tools). With `--print-all` it prints
the module before each pass; those listings give each pass's instruction counts and, when a pass
fails, which pass it was."""

from __future__ import annotations

import os
import re
import tempfile
from array import array
from dataclasses import dataclass, field

from ..binding import spirv_tools, tools
from . import convert, words

_BEFORE_PASS = re.compile(r"^; IR before pass (\S+)\s*$", re.MULTILINE)


class OptimizeError(ValueError):
    """spirv-opt refused the module or a pass failed: `message` says which and why."""

    def __init__(self, message: str, failed_pass: str | None = None) -> None:
        super().__init__(message)
        self.message, self.failed_pass = message, failed_pass


@dataclass(frozen=True)
class PassEffect:
    name: str
    before: int  # instructions
    after: int


@dataclass
class Optimized:
    text: str  # the optimized module, spirv-dis's friendly text
    before: int  # instructions
    after: int
    passes: list[PassEffect] = field(default_factory=list)


def count_instructions(text: str) -> int:
    """Instructions in a disassembly: its lines that are neither blank nor comments."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith(";"))


def _listings(stderr: str) -> list[tuple[str, str]]:
    """(pass, the module before it) for each `; IR before pass` listing of --print-all."""
    marks = list(_BEFORE_PASS.finditer(stderr))
    return [
        (mk.group(1), stderr[mk.end() : marks[i + 1].start() if i + 1 < len(marks) else len(stderr)])
        for i, mk in enumerate(marks)
    ]


def _messages(stderr: str) -> str:
    """spirv-opt's own words in a --print-all stderr: the lines no listing holds."""
    marks = list(_BEFORE_PASS.finditer(stderr))
    if not marks:
        return stderr.strip()
    tail = stderr[marks[-1].end() :]
    # A listing is instructions and comments; the failure follows the last one.
    kept = [ln for ln in tail.splitlines() if ln.startswith(("error", "warning", "fatal")) or ": error" in ln]
    return "\n".join(kept).strip()


def optimize(module_words: array, flags: list[str], time_limit: float = tools.TIME_LIMIT) -> Optimized:
    """Run spirv-opt with `flags` (its own: -O, -Os, --inline-entry-points-exhaustive, …) over the
    module. Raises OptimizeError, tools.Missing, TimeoutError, spirv_tools.Unavailable."""
    if not flags:
        raise OptimizeError("no passes given: pass spirv-opt's flags, e.g. -O, -Os or --eliminate-dead-code-aggressive")
    bad = [f for f in flags if not f.startswith("-") or f in ("-o", "-")]
    if bad:
        raise OptimizeError(f"not a pass flag: {bad[0]} (spvls opt reads the module and writes the result itself)")
    with tempfile.TemporaryDirectory(prefix="spvls-opt-") as tmp:
        source, target = os.path.join(tmp, "in.spv"), os.path.join(tmp, "out.spv")
        with open(source, "wb") as out:
            out.write(words.to_bytes(module_words, False))
        run = tools.run("spirv-opt", [*flags, "--print-all", source, "-o", target], time_limit=time_limit)
        listings = _listings(run.stderr)
        if run.returncode != 0 or not os.path.exists(target):
            why = _messages(run.stderr) or f"spirv-opt failed (exit {run.returncode})"
            if not listings:
                raise OptimizeError(f"spirv-opt refuses the module: {why}")
            failed = listings[-1][0]
            raise OptimizeError(f"pass {failed} failed: {why}", failed)
        with open(target, "rb") as f:
            result = array("I", words.read(f.read()).words)
    text = spirv_tools.disassemble(result, convert.DIS_ENV, raw_ids=False, header=True, indent=True)
    if isinstance(text, spirv_tools.Failure):
        raise OptimizeError(f"the disassembler refuses spirv-opt's output: {text.message}")
    counts = [count_instructions(listing) for _, listing in listings]
    after = count_instructions(text)
    before = counts[0] if counts else _count_words(module_words)
    effects = [
        PassEffect(name, counts[i], counts[i + 1] if i + 1 < len(counts) else after)
        for i, (name, _) in enumerate(listings)
    ]
    return Optimized(text, before, after, effects)


def _count_words(module_words: array) -> int:
    return len(words.read(words.to_bytes(module_words, False)).offsets)
