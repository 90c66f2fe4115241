"""A SPIR-V binary read as words, in pure Python: magic number (either byte order), header,
and a walk over the instructions that says where a module is broken.

SPIR-V 2.3 "Physical Layout of a SPIR-V Module and Instruction": word 0 is the magic number,
then version, generator, bound ("all <id>s in this module are guaranteed to satisfy
0 < id < Bound") and schema; each instruction's first word holds its word count (high 16 bits)
and opcode (low 16 bits).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..spec import grammar as spec

MAGIC = 0x07230203
HEADER_WORDS = 5


class BinaryError(ValueError):
    """The bytes are not a readable SPIR-V module; `word` is where (a word offset), when known."""

    def __init__(self, message: str, word: int | None = None):
        super().__init__(message)
        self.message = message
        self.word = word

    def __str__(self) -> str:
        return self.message if self.word is None else f"word {self.word}: {self.message}"


def is_binary(data: bytes) -> bool:
    """Starts with SPIR-V's magic number, in either byte order."""
    return len(data) >= 4 and int.from_bytes(data[:4], "little") in (MAGIC, _swap(MAGIC))


def _swap(w: int) -> int:
    return int.from_bytes(w.to_bytes(4, "little"), "big")


@dataclass
class Module:
    words: array  # host order: the module as a little-endian reader sees it once swapped
    big_endian: bool  # the file's byte order, kept when it is written back
    offsets: list[int] = field(default_factory=list)  # each instruction's first word

    @property
    def version(self) -> int:
        return self.words[1]

    @property
    def generator(self) -> int:
        return self.words[2]

    @property
    def bound(self) -> int:
        return self.words[3]

    @property
    def schema(self) -> int:
        return self.words[4]


def to_bytes(words: Iterable[int], big_endian: bool = False) -> bytes:
    a = array("I", words)
    if big_endian != (sys.byteorder == "big"):
        a.byteswap()
    return a.tobytes()


def words_of(data: bytes) -> tuple[array, bool]:
    """The file's words in host order and whether it was big-endian; BinaryError if it is no module."""
    if len(data) < 4 or not is_binary(data):
        raise BinaryError("not a SPIR-V binary: it does not start with the magic number 0x07230203", 0)
    if len(data) % 4:
        raise BinaryError(f"truncated: {len(data)} bytes is not a whole number of 32-bit words", len(data) // 4)
    words = array("I")
    words.frombytes(data)
    big = words[0] != MAGIC
    if big:
        words.byteswap()
    return words, big


def read(data: bytes) -> Module:
    """The module, walked: every instruction's word count is checked against the words left and
    every <id> the grammar lets us find against the header's bound. Raises BinaryError with the
    offending instruction's word offset."""
    words, big = words_of(data)
    if len(words) < HEADER_WORDS:
        raise BinaryError(f"truncated: the header needs {HEADER_WORDS} words, the file has {len(words)}", len(words))
    m = Module(words, big)
    bound = m.bound
    if bound == 0:
        raise BinaryError("the id bound (header word 3) is 0: every <id> must be below it", 3)
    g = spec.load()
    n, i = len(words), HEADER_WORDS
    offsets = m.offsets
    while i < n:
        first = words[i]
        count, opcode = first >> 16, first & 0xFFFF
        inst = g.by_opcode.get(opcode)
        name = inst.name if inst else f"opcode {opcode}"
        if count == 0:
            raise BinaryError(f"{name} has a word count of 0 (every instruction has at least 1 word)", i)
        if i + count > n:
            raise BinaryError(f"truncated: {name} needs {count} words, only {n - i} are left", i)
        if inst is not None:
            for ident in _ids(g, inst, words[i + 1 : i + count]):
                if ident >= bound:
                    raise BinaryError(f"{name} uses id {ident}, not below the header's id bound {bound}", i)
        offsets.append(i)
        i += count
    return m


class _Rest(Exception):
    """The operands left have a layout the grammar alone does not give (context-dependent)."""


# Operands whose size depends on another instruction (a type's width, an extended set): stop there.
_CONTEXT = {
    "LiteralContextDependentNumber",
    "LiteralExtInstInteger",
    "LiteralSpecConstantOpInteger",
    "PairLiteralIntegerIdRef",
}


# Per opcode: (positions of the <id>s among the fixed one-word operands, their count, what may
# follow: "" nothing, "ids" a trailing <id>*, "words" trailing literals), or None.
_Plan = tuple[tuple[int, ...], int, str]
_PLANS: dict[int, _Plan | None] = {}


def _plan(g: spec.Grammar, inst: spec.Instruction) -> _Plan | None:
    """The fast layout of an instruction whose operands are one word each, optionally ending
    with `<id>*`, `LiteralInteger*` or a LiteralString. None for anything else."""
    if inst.opcode in _PLANS:
        return _PLANS[inst.opcode]
    at: list[int] = []
    plan: _Plan | None = None
    last = len(inst.operands) - 1
    for i, s in enumerate(inst.operands):
        k = g.kinds.get(s.kind)
        cat = k.category if k else ""
        if s.quantifier == "" and (cat == "Id" or s.kind == "LiteralInteger"):
            if cat == "Id":
                at.append(i)
            continue
        if i == last and s.quantifier == "*" and cat == "Id":
            plan = (tuple(at), i, "ids")
        elif i == last and (
            s.quantifier == "*" and s.kind == "LiteralInteger" or s.quantifier == "" and s.kind == "LiteralString"
        ):
            plan = (tuple(at), i, "words")
        break
    else:
        plan = (tuple(at), len(inst.operands), "")
    _PLANS[inst.opcode] = plan
    return plan


def _ids(g: spec.Grammar, inst: spec.Instruction, ops: Sequence[int]) -> list[int]:
    """The <id> operands of one instruction, as far as the grammar determines them. When the
    decoded layout does not use up the word count exactly, only the result <id> is trusted."""
    plan = _plan(g, inst)
    if plan is not None:
        at, fixed, rest = plan
        if len(ops) == fixed or (rest and len(ops) > fixed):
            out = [ops[i] for i in at]
            if rest == "ids":
                out += ops[fixed:]
            return out
    ids: list[int] = []
    pos = 0

    def one(kind: str) -> None:
        nonlocal pos
        if kind in _CONTEXT:
            raise _Rest
        if pos >= len(ops):
            raise IndexError
        k = g.kinds.get(kind)
        cat = k.category if k else "Literal"
        if kind == "LiteralString":
            while pos < len(ops):
                w = ops[pos]
                pos += 1
                if not (w & 0xFF and w & 0xFF00 and w & 0xFF0000 and w & 0xFF000000):
                    return
            raise IndexError
        if cat == "Id":
            ids.append(ops[pos])
            pos += 1
        elif cat == "Composite" and k:
            for base in k.bases:
                one(base)
        elif cat in ("ValueEnum", "BitEnum") and k:
            value = ops[pos]
            pos += 1
            if cat == "ValueEnum":
                e = k.by_value.get(value)
                if e is None:
                    raise _Rest
                chosen = [e]
            else:
                chosen = [e for bit, e in sorted(k.by_value.items()) if bit and value & bit == bit]
            for e in chosen:
                operands(e.parameters)
        else:
            pos += 1

    def operands(specs: Iterable[spec.GrammarOperand]) -> None:
        for s in specs:
            if s.quantifier == "":
                one(s.kind)
            elif s.quantifier == "?":
                if pos < len(ops):
                    one(s.kind)
            else:
                while pos < len(ops):
                    one(s.kind)

    try:
        operands(inst.operands)
    except _Rest:
        return ids
    except IndexError:
        return _result_only(inst, ops)
    return ids if pos == len(ops) else _result_only(inst, ops)


def _result_only(inst: spec.Instruction, ops: Sequence[int]) -> list[int]:
    at = int(inst.has_result_type)
    return [ops[at]] if inst.has_result and at < len(ops) else []
