"""Binary module <-> the text the editor shows, losing nothing.

`disassemble` gives spirv-dis's text (friendly names unless raw ids are asked for) and where
each instruction came from; `assemble` turns a text back into words, numbering the names that
came from a binary with that binary's ids (new names get fresh ids above its bound) and taking
the header words from the text's header comments, else from that binary.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..binding import spirv_tools
from ..binding import text as text_bytes
from ..spec import env as envs
from . import header, names
from .words import HEADER_WORDS, BinaryError, Module, is_binary, read, to_bytes

DIS_ENV = "spv1.6"  # the disassembler reads every older version under the newest env


@dataclass(frozen=True)
class Options:
    """spirv-dis's options of the same names."""

    raw_id: bool = False
    no_header: bool = False
    comment: bool = False
    nested_indent: bool = False


@dataclass
class Disassembly:
    text: str
    module: Module
    lines: list[int] = field(default_factory=list)  # the line each instruction starts on

    def word_offset(self, line: int) -> int | None:
        """The word offset of the instruction that starts on (or spans) `line`."""
        import bisect

        k = bisect.bisect_right(self.lines, line) - 1
        return self.module.offsets[k] if 0 <= k < len(self.module.offsets) else None


def listing(module_words: Sequence[int], raw_id: bool = False, opts: Options = Options()) -> str:
    """spirv-dis's text of a module (friendly names unless `raw_id`), with no check that its names
    number back; BinaryError when the disassembler refuses it."""
    text = spirv_tools.disassemble(
        module_words,
        DIS_ENV,
        raw_ids=raw_id,
        header=not opts.no_header,
        indent=True,
        comment=opts.comment,
        nested_indent=opts.nested_indent,
    )
    if isinstance(text, spirv_tools.Failure):
        raise BinaryError(f"the disassembler refuses it: {text.message}")
    return text


_GENERATOR_LINE = re.compile(r"^; Generator: .*$", re.MULTILINE)


def disassemble(data: bytes, opts: Options = Options()) -> Disassembly:
    """The text of a binary module; BinaryError (with the word offset) if it cannot be read."""
    module = read(data)
    text = listing(module.words, opts.raw_id, opts)
    if not opts.raw_id:
        try:
            names.pair(text, listing(module.words, True, opts))
        except names.Ambiguous:
            # Friendly names that could not be numbered back would lose ids on save.
            text = listing(module.words, True, opts)
    if not opts.no_header:
        text = _GENERATOR_LINE.sub(header.generator_line(module.generator), text, count=1)
    lines = names.instruction_lines(text, len(module.offsets))
    if len(lines) != len(module.offsets):
        lines = []  # word offsets unknown rather than wrong
    return Disassembly(text, module, lines)


class AssembleError(ValueError):
    """The text does not assemble: the assembler's message, at its 0-based line and column."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column

    def __str__(self) -> str:
        where = f"{self.line + 1}:{(self.column or 0) + 1}: " if self.line is not None else ""
        return f"{where}{self.message}"


def env_for(text: str, given: str | None, original: Module | None = None) -> str:
    """`--target-env` if given, else the version of the header comment, else of the binary, else 1.6."""
    if given:
        return envs.tools_name(given)
    return env_of(header.read_comments(text).get("version") or (original.version if original else 0))


def env_of(version: int) -> str:
    """The env of a header's version word (SPIR-V 1.x), else the newest."""
    minor = (version >> 8) & 0xFF
    return f"spv1.{minor}" if version >> 16 == 1 and minor <= 6 else "spv1.6"


def assemble(text: str, env: str | None = None, original: Module | None = None, *, saving: bool = True) -> array:
    """The words of `text`, numbered after `original` when given (else as the text numbers its
    ids: `%12` stays 12). An instruction the text shows unchanged keeps `original`'s exact words
    (a string's bytes that are not UTF-8, or after its terminating NUL, which no text can show).
    Raises AssembleError, also (when `saving`) for a module `disassemble` would refuse: what is
    saved reopens."""
    lone = text_bytes.lone_surrogate(text)
    if lone is not None:  # spirv-as would take its bytes into a string: a module that is not UTF-8
        raise AssembleError(lone[2], lone[0], lone[1])
    bad = header.unreadable(text)
    if bad is not None:
        raise AssembleError(bad[2], bad[0], bad[1])
    env = env_for(text, env, original)
    source = text
    kept: dict[tuple[int, ...], tuple[int, ...]] = {}
    largest = 0  # the original's largest id
    if original is not None:
        raw = listing(original.words, True)
        pairs = names.pair(listing(original.words), raw)
        first_free = max([original.bound, *[n + 1 for n in pairs.values()]])
        source, _ = names.renumber(text, pairs, first_free)
        kept = _lossy(original, raw, env)
        largest = max(pairs.values(), default=0)
    words = spirv_tools.assemble(source, env, preserve_numeric_ids=True)
    if isinstance(words, spirv_tools.Failure):
        failure = words
        if source is not text:  # the position in the user's own text
            again = spirv_tools.assemble(text, env, preserve_numeric_ids=True)
            if isinstance(again, spirv_tools.Failure):
                failure = again
        raise AssembleError(failure.message, failure.line, failure.column)
    if kept:
        words = _restore(words, kept)
    needed = words[3]  # spirv-as's bound: the largest id + 1
    if needed <= largest + 1:
        needed = 0  # no id beyond the original's own: its header's bound stands, as it was
    comments = header.read_comments(text)
    base = list(original.words[1:5]) if original is not None else list(words[1:5])
    for i, key in enumerate(("version", "generator", "bound", "schema")):
        words[1 + i] = comments.get(key, base[i])
    words[3] = max(words[3], needed)  # grows when the text needs more ids than the header says
    if saving:
        _reopens(words, text)
    return words


def module_words(data: bytes | str, env: str | None = None) -> array:
    """A module's words from a file's bytes or an editor's text: a binary as it is, a text
    assembled (its numeric ids kept: `%12` stays 12). Raises BinaryError, AssembleError,
    spirv_tools.Unavailable."""
    if isinstance(data, bytes):
        if is_binary(data):
            return array("I", read(data).words)
        data = data.decode("utf-8", "replace")
    return assemble(data, env, saving=False)


def _instructions(words: Sequence[int]) -> list[tuple[int, ...]]:
    out, i = [], HEADER_WORDS
    while i < len(words):
        count = max(words[i] >> 16, 1)
        out.append(tuple(words[i : i + count]))
        i += count
    return out


def _lossy(original: Module, raw: str, env: str) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Each instruction of `original` that its own disassembly does not assemble back to: what the
    text gives -> the original's words."""
    again = spirv_tools.assemble(raw, env, preserve_numeric_ids=True)
    if isinstance(again, spirv_tools.Failure):
        return {}
    before, after = _instructions(original.words), _instructions(again)
    if len(before) != len(after):
        return {}
    return {a: b for a, b in zip(after, before, strict=True) if a != b}


def _restore(words: array, kept: dict[tuple[int, ...], tuple[int, ...]]) -> array:
    out = array("I", words[:HEADER_WORDS])
    for inst in _instructions(words):
        out.extend(kept.get(inst, inst))
    return out


def _reopens(words: array, text: str) -> None:
    """AssembleError at the instruction's line when `disassemble` would refuse these words."""
    data = to_bytes(words)
    try:
        disassemble(data)
        return
    except BinaryError as e:
        why = e.message
        count = _failing_instruction(words, e.word)
    lines = names.instruction_lines(text)
    line = lines[count] if count is not None and count < len(lines) else None
    raise AssembleError(f"`spvls dis` could not reopen the saved module: {why}", line, 0 if line is not None else None)


def _failing_instruction(words: array, word: int | None) -> int | None:
    """The index of the instruction at `word`; without one (the disassembler's own refusal), of the
    first instruction whose prefix of the module the disassembler refuses (a bisection)."""
    starts, i = [], HEADER_WORDS
    while i < len(words):
        starts.append(i)
        i += max(words[i] >> 16, 1)
    if word is not None:
        return sum(1 for s in starts if s <= word) - 1 if word >= HEADER_WORDS else None

    def refused(k: int) -> bool:  # the first k instructions
        end = starts[k] if k < len(starts) else len(words)
        return isinstance(spirv_tools.disassemble(words[:end], DIS_ENV), spirv_tools.Failure)

    if refused(0) or not refused(len(starts)):
        return None
    lo, hi = 0, len(starts)  # refused(lo) is False, refused(hi) is True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if refused(mid) else (mid, hi)
    return hi - 1


@dataclass(frozen=True)
class Invalid:
    """What spirv-val says of a module that assembles: its first error, at the text's line."""

    message: str
    line: int | None = None  # 0-based


def validation(text: str, env: str | None = None, original: Module | None = None) -> Invalid | None:
    """spirv-val's first error on the module `text` assembles to (in the validator's process, within
    its CPU budget), or None when it validates or no verdict came (stopped, tools missing): users
    save invalid modules on purpose, so this informs, it does not refuse."""
    from ..binding import worker  # the validator's process: only a save asks for it

    try:
        got = worker.shared().check(text, env_for(text, env, original))
    except (spirv_tools.Unavailable, ValueError, OSError):
        return None
    if isinstance(got, worker.Stopped):
        return None
    stage, fail = got
    if fail is None or stage != "val":
        return None
    lines = names.instruction_lines(text)
    k = (fail.index or 0) - 1
    return Invalid(fail.message, lines[k] if 0 <= k < len(lines) else None)
