"""Keep-going past the assembler: the line spirv-as refuses is set aside in the text, the text
assembled again (the next refused line is the next error), and once it assembles, validation goes
on as after the validator's first error (keepgoing.py).

A refused line is replaced by one marker line, so that no other line, instruction or id moves:
spirv-as numbers ids in order of first appearance, and the marker holds the line's ids in their
order (`OpEntryPoint Vertex %first "<mark><opcode>:<flags>" %rest...`, or `OpSourceExtension
"<mark>..."` for a line naming none). The assembler reads it as any instruction; keepgoing.py
turns it into what setting the line's instruction aside makes (`OpUndef` of its type when the type
is readable, `OpNop` or nothing when it is not, the result's users set aside in turn) before the
validator sees it. What cannot be set aside (keepgoing.py's fixed instructions, an opcode spirv-as
does not know, a line the marker could not stand for) ends the rounds.

The guarantee is keep-going's: every id a refused line names is touched, and so is each id whose
definition names a touched one; a later assembler error is kept only on a line not set aside that
names no touched id, and the validator's errors only as keepgoing.py keeps them.

The binding reads no grammar: the caller gives the instructions' names and opcodes (`KeepOps`).
"""

from __future__ import annotations

import os
import re
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from . import keepgoing
from .keepgoing import ROUNDS, KeepOps

# An assembler line: a line break inside a string does not end one (glslang -g's OpSource).
_PIECE = re.compile(rb'"(?:[^"\\]|\\.)*"?|;[^\n]*|\n', re.S)
# The tokens of one line, comments cut: strings, '=', words.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|=|[^\s;="]+')
_ID = re.compile(r"%[A-Za-z0-9_]+")
# The assembler notices a missing operand when it reads the next instruction, and a word too many
# when it reads it as the result id of an instruction that the next line then does not go on.
NEXT_INSTRUCTION = "found the next instruction instead"
WORD_TOO_MANY = "expected after result id but found"
MARK = "spvls-set-aside-"


@dataclass
class _Line:
    result: str | None
    opname: str
    ids: list[str]  # every id the line names, its result first, in order
    typed: bool  # an id follows the opcode (where a result type stands)


def _lines(data: bytes) -> list[bytes]:
    """The text as the assembler counts its lines, each with its line break."""
    starts = [0]
    for m in _PIECE.finditer(data):
        if m.group() == b"\n":
            starts.append(m.end())
    ends = starts[1:] + [len(data)]
    return [data[a:b] for a, b in zip(starts, ends, strict=True)]


def _read(line: bytes) -> _Line | None:
    """The line's result, opcode name and ids; None for a line holding no instruction."""
    text = line.decode("utf-8", "replace")
    toks = [t for t in _TOKEN.findall(text) if t]
    if len(toks) >= 3 and toks[1] == "=":
        result, head, rest = toks[0], toks[2], toks[3:]
    elif toks and toks[0] != "=":
        result, head, rest = None, toks[0], toks[1:]
    else:
        return None
    ids = [t for t in ([result] if result else []) + rest if t.startswith("%")]
    if not head.startswith("Op") or any(not _ID.fullmatch(t) for t in ids) or "=" in rest:
        return None
    return _Line(result, head, ids, bool(rest) and rest[0].startswith("%"))


@dataclass
class _Text:
    lines: list[bytes]
    ops: KeepOps
    mark: str
    opcodes: dict[str, int]
    result_at: dict[int, int]
    refused: set[int] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)
    _users: dict[str, list[str]] | None = None  # id -> results of the lines naming it

    def refuse(self, message: str, line: int, column: int) -> bool:
        """Set the line the assembler's error is about aside; False when it cannot be."""
        n = self._culprit(message, line, column)
        if n is None or n in self.refused:
            return False
        read = _read(self.lines[n])
        op = self.opcodes.get(read.opname) if read is not None else None
        if read is None or op is None or op in self.ops.fixed:
            return False
        typed = self.result_at.get(op) == 2 and read.result is not None and read.typed
        flags = f"{int(read.result is not None)}{int(typed)}"
        string = f'"{self.mark}{op}:{flags}"'
        if read.ids:
            marker = f"OpEntryPoint Vertex {read.ids[0]} {string} {' '.join(read.ids[1:])}"
        else:
            marker = f"OpSourceExtension {string}"
        self.lines[n] = marker.encode() + b"\n"
        self.refused.add(n)
        self._touch(read.ids)
        return True

    def _culprit(self, message: str, line: int, column: int) -> int | None:
        """The line the error is about: its own, or the instruction's before (`about_previous`)."""
        if not 0 <= line < len(self.lines):
            return None
        raw = self.lines[line]
        if about_previous(message, column <= len(raw) - len(raw.lstrip())):
            return next((k for k in range(line - 1, -1, -1) if _read(self.lines[k]) is not None), None)
        return line

    def _touch(self, ids: list[str]) -> None:
        if self._users is None:
            self._users = {}
            for k, raw in enumerate(self.lines):
                read = _read(raw) if k not in self.refused else None
                if read is not None and read.result is not None:
                    for i in read.ids[1:]:
                        self._users.setdefault(i, []).append(read.result)
        work = [i for i in ids if i not in self.touched]
        self.touched.update(work)
        while work:
            for r in self._users.get(work.pop(), ()):
                if r not in self.touched:
                    self.touched.add(r)
                    work.append(r)

    def stands(self, line: int, column: int, message: str) -> bool:
        """Whether a later assembler error stands in the text as written."""
        n = self._culprit(message, line, column)
        if n is None or n in self.refused:
            return False
        read = _read(self.lines[n])
        return read is None or not self.touched.intersection(read.ids)

    def data(self) -> bytes:
        return b"".join(self.lines)


def _column(fail: object) -> int:
    return getattr(fail, "column", None) or 0


def about_previous(message: str, at_first_word: bool) -> bool:
    """Whether an assembler error that lands on a line (on its first word or not) is about the
    instruction before."""
    return NEXT_INSTRUCTION in message or (at_first_word and WORD_TOO_MANY in message)


def later_failures(
    data: bytes,
    first: object,
    assemble: Callable[[bytes], array | object],
    validate: Callable[[Sequence[int]], object],
    ops: KeepOps,
    stop_at: float,
    rounds: int = ROUNDS,
) -> list:
    """After the assembler's first error (`first`, a Failure with its 0-based line and message): the
    later assembler errors and then the validator's that stand in the text as written, each as the
    tools give it (the assembler's with their line, the validator's with their 1-based instruction
    number: the markers keep both). assemble: bytes -> words or a Failure; validate as keepgoing's.
    stop_at: the process-time after which no round starts."""
    if not ops.names:
        return []
    text = _Text(
        _lines(data),
        ops,
        MARK + os.urandom(4).hex() + "-",
        dict(ops.names),
        dict(ops.results),
    )
    found: list = []
    fail = first
    longest = 0.0
    for used in range(rounds):
        if not text.refuse(getattr(fail, "message", ""), getattr(fail, "line", None) or 0, _column(fail)):
            return found
        start = time.process_time()
        if start + longest > stop_at:
            return found
        words = assemble(text.data())
        longest = max(longest, time.process_time() - start)
        if isinstance(words, array):
            return found + keepgoing.after_refused(words, text.mark, validate, ops, stop_at, rounds - used - 1)
        fail = words
        line = getattr(fail, "line", None)
        if line is not None and text.stands(line, _column(fail), getattr(fail, "message", "")):
            found.append(fail)
    return found
