"""What spirv-opt makes of a module, as friendly text, with what each pass did to its size.

spirv-opt runs in a child process with a time limit (binding.tools). With `--print-all` it prints
the module before each pass; those listings give each pass's instruction counts and, when a pass
fails, which pass it was. A refusal that names one of the flags is about the command line."""

from __future__ import annotations

import os
import re
import tempfile
from array import array
from dataclasses import dataclass, field

from ..binding import tools
from . import convert, words

# --print-all's heading of each listing: before each pass, and after the last.
_LISTING = re.compile(r"^; IR (?:before pass (\S+)|after last pass)\s*$", re.MULTILINE)


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
    marks = list(_LISTING.finditer(stderr))
    return [
        (mk.group(1), stderr[mk.end() : marks[i + 1].start() if i + 1 < len(marks) else len(stderr)])
        for i, mk in enumerate(marks)
        if mk.group(1) is not None
    ]


def _messages(stderr: str) -> str:
    """spirv-opt's own words in a --print-all stderr: the lines no listing holds."""
    marks = list(_LISTING.finditer(stderr))
    if not marks:
        return stderr.strip()
    tail = stderr[marks[-1].end() :]
    # A listing is instructions and comments; the failure follows the last one.
    kept = [ln for ln in tail.splitlines() if ln.startswith(("error", "warning", "fatal")) or ": error" in ln]
    return "\n".join(kept).strip()


def refused_flags(flags: list[str]) -> str | None:
    """Why these are not flags to hand spirv-opt (none, a file, an output), or None."""
    if not flags:
        return "no passes given: pass spirv-opt's flags, e.g. -O, -Os or --eliminate-dead-code-aggressive"
    for flag in flags:
        if flag == "-o":
            return "-o: the result goes to standard output (> FILE writes it to a file)"
        if not flag.startswith("-") or flag == "-":
            return f"not a pass flag: {flag} (one module is optimized at a time)"
    return None


def optimize(
    module_words: array, flags: list[str], time_limit: float = tools.TIME_LIMIT, per_pass: bool = False
) -> Optimized:
    """Run spirv-opt with `flags` (its own: -O, -Os, --inline-entry-points-exhaustive, …) over the
    module; `per_pass`: with each pass's instruction counts (--print-all, several times slower on a
    large module, so asked for). Raises OptimizeError, tools.Missing, TimeoutError,
    spirv_tools.Unavailable."""
    refused = refused_flags(flags)
    if refused is not None:
        raise OptimizeError(refused)
    with tempfile.TemporaryDirectory(prefix="spvls-opt-") as tmp:
        source, target = os.path.join(tmp, "in.spv"), os.path.join(tmp, "out.spv")
        with open(source, "wb") as out:
            out.write(words.to_bytes(module_words, False))

        def spirv_opt(print_all: bool) -> tuple[tools.Run, list[tuple[str, str]]]:
            listing = ["--print-all"] if print_all else []
            run = tools.run("spirv-opt", [*flags, *listing, source, "-o", target], time_limit=time_limit)
            return run, _listings(run.stderr) if print_all else []

        run, listings = spirv_opt(per_pass)
        if run.returncode != 0 or not os.path.exists(target):
            why = _messages(run.stderr) or f"spirv-opt failed (exit {run.returncode})"
            flag = _named_flag(why, flags)
            if flag is not None:
                raise OptimizeError(f"spirv-opt does not accept {flag}: {_words(why)}")
            if not per_pass:  # again, listing each pass, to say which one failed
                run, listings = spirv_opt(True)
                why = _messages(run.stderr) or why
            if not listings:
                raise OptimizeError(f"spirv-opt refuses the module: {why}")
            failed = listings[-1][0]
            raise OptimizeError(f"pass {failed} failed: {why}", failed)
        with open(target, "rb") as f:
            result = array("I", words.read(f.read()).words)
    try:
        text = convert.listing(result)
    except words.BinaryError as e:
        raise OptimizeError(f"spirv-opt's output: {e}") from None
    counts = [count_instructions(listing) for _, listing in listings]
    after = count_instructions(text)
    before = counts[0] if counts else _count_words(module_words)
    effects = [
        PassEffect(name, counts[i], counts[i + 1] if i + 1 < len(counts) else after)
        for i, (name, _) in enumerate(listings)
    ]
    return Optimized(text, before, after, effects)


_TOOL_PREFIX = re.compile(r"^error: (line \d+: )?")


def _words(message: str) -> str:
    """spirv-opt's message without its `error: line 0:` prefix."""
    return _TOOL_PREFIX.sub("", message.strip())


def _named_flag(message: str, flags: list[str]) -> str | None:
    """The flag spirv-opt's refusal names first (`Unknown flag '--bogus'`, `-Q is not a valid flag
    … also accepted: -O and -Os`, `--scalar-replacement must have …`): it refused the command line,
    not the module."""
    named = []
    for flag in flags:
        name = flag.split("=", 1)[0]
        found = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message)
        if found:
            named.append((found.start(), flag))
    return min(named)[1] if named else None


def _count_words(module_words: array) -> int:
    return len(words.read(words.to_bytes(module_words, False)).offsets)
