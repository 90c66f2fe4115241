"""Unique OpNames for a module whose ids would share a friendly name, before it is validated.

Whenever SPIRV-Tools' validator reports an error at an instruction, it disassembles that
instruction with friendly names, which names every id of the module first (also with spvls'
friendly-names option off). An id without an OpName is named after its type or value (`uint_1`),
and the k-th id suggested the same name tries the suffixes _0, _1, … in turn: k equal constants
cost k²/2 tries (16,000 `OpConstant %int 1`: 8 s for an error that takes 0.01 s to find).

So when many ids would share a name, each of those ids gets an OpName of its own: an OpName whose
string many named ids have is given a distinct one (the first keeps it), and an unnamed id an OpName
holding its number (what the trivial name mapper prints). The new OpNames go right after the instructions of
the sections before the debug names (SPIR-V 2.4: where the debug names start, so OpName is
allowed there and the new names come before the module's own, which the mapper then ignores),
so the validator's verdict is the same; an instruction number it reports past them is moved back.
Without an OpMemoryModel there, the first instruction that may not come before one (a type, a
constant or an early section's) is the validator's error, and the new OpNames go right after it.

The binding reads no grammar: the caller gives the opcodes (`NameOps`).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

# At most this many ids sharing a name: below it the mapper's tries stay under ~2,000.
SHARED_LIMIT = 64
# The name mapper takes an OpName string up to this many bytes; a longer one never clashes (the id
# stands for it), so it is left alone.
NAME_MAX = 256


@dataclass(frozen=True)
class NameOps:
    name: int  # OpName
    decorate: int  # OpDecorate, whose BuiltIn decoration also names its target
    builtin: int  # the BuiltIn decoration
    memory_model: int  # OpMemoryModel: nothing after the early sections may come before it
    early: tuple[int, ...]  # the opcodes of the sections before the debug names
    before_model: tuple[int, ...]  # the opcodes of the sections before the memory model
    results: tuple[tuple[int, int], ...]  # (opcode, the result id's word in it: 1 or 2)
    by_content: tuple[int, ...]  # opcodes whose result the mapper names after its operands (types, constants)
    opaque: int  # OpTypeOpaque, named after its string


@dataclass(frozen=True)
class Renamed:
    words: array
    at: int  # how many instructions come before the new OpNames
    added: int  # how many OpNames were added

    def original_index(self, index: int) -> int:
        """The 1-based number, in the module given, of the instruction numbered `index` in this
        one (0: an added OpName, or none named)."""
        if index <= self.at:
            return index
        if index <= self.at + self.added:
            return 0
        return index - self.added


def _string(words: Sequence[int], start: int, end: int) -> bytes:
    raw = b"".join(w.to_bytes(4, "little") for w in words[start:end])
    return raw.split(b"\0", 1)[0]


def _sanitized(name: bytes) -> bytes:
    # The name mapper's own: a character other than [A-Za-z0-9_] becomes '_'.
    return bytes(c if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95) else 95 for c in name) or b"_"


def _words(text: bytes) -> list[int]:
    text += b"\0" * (4 - len(text) % 4)
    return [int.from_bytes(text[i : i + 4], "little") for i in range(0, len(text), 4)]


def _after_misplaced(words: Sequence[int], ops: NameOps, erring: frozenset[int]) -> tuple[int, int] | None:
    """Where the new OpNames go in a module whose OpMemoryModel is missing or late: after the first
    instruction that may not come before it, when that is one the validator reports (else None)."""
    allowed = frozenset(ops.before_model)
    i, count = 5, 0
    while i < len(words):
        op = words[i] & 0xFFFF
        if op not in allowed:
            return (i + (words[i] >> 16), count + 1) if op in erring and op != ops.memory_model else None
        i += words[i] >> 16
        count += 1
    return None


def rename(words: Sequence[int], ops: NameOps) -> Renamed | None:
    """The module with unique OpNames for the ids in crowded groups (SHARED_LIMIT or more ids that
    would share a name), or None when there is none, the early sections hold no OpMemoryModel and
    no instruction there is the validator's first error, or the module is not a list of
    well-formed instructions. Only crowded ids are named: an OpName is a use of its target, and a
    use of some ids is an error of its own (an 8- or 16-bit result without Int16 or Float16)."""
    try:
        return _rename(words, ops)
    except (ValueError, OverflowError, IndexError):  # a module too odd to rename is validated as it is
        return None


def _rename(words: Sequence[int], ops: NameOps) -> Renamed | None:
    n = len(words)
    early, by_content = frozenset(ops.early), frozenset(ops.by_content)
    result_at = dict(ops.results)
    named: dict[int, bytes | None] = {}  # target -> its first OpName's string, sanitized (None: too long to clash)
    groups: dict[tuple, list[int]] = {}  # what the mapper would name alike -> the ids
    at = None  # word offset and number of the first instruction after the early sections
    model = False  # an OpMemoryModel among them (an OpName before it is out of place)
    count = 0
    i = 5
    # The whole module: an OpName may name an id defined later, and a type or constant misplaced in
    # a function is named as one at module level.
    while i < n:
        wc, op = words[i] >> 16, words[i] & 0xFFFF
        if wc == 0 or i + wc > n:
            return None
        if at is None and op not in early:
            at = (i, count)
        if at is None and op == ops.memory_model:
            model = True
        if op == ops.name and wc >= 2:
            if words[i + 1] not in named:
                name = _string(words, i + 2, i + wc)
                named[words[i + 1]] = _sanitized(name) if len(name) <= NAME_MAX else None
        elif op == ops.decorate and wc >= 4 and words[i + 2] == ops.builtin:
            groups.setdefault((op, words[i + 3]), []).append(words[i + 1])
        k = result_at.get(op)
        if k is not None and k < wc and op in by_content:
            if op == ops.opaque:  # named after its string, sanitized
                shape: tuple = (op, _sanitized(_string(words, i + k + 1, i + wc)))
            else:
                shape = (op, *words[i + 1 : i + k]) + tuple(words[i + k + 1 : i + wc])
            groups.setdefault(shape, []).append(words[i + k])
        i += wc
        count += 1
    if at is None:
        at = (i, count)
    if not model:
        at = _after_misplaced(words, ops, early | by_content)
        if at is None:
            return None
    by_name: dict[bytes, list[int]] = {}
    for target, sane in named.items():
        if sane is not None:
            by_name.setdefault(sane, []).append(target)
    fresh: dict[int, bytes] = {}  # target -> its new name
    for shared, targets in by_name.items():
        if len(targets) >= SHARED_LIMIT:
            for target in targets[1:]:  # the first keeps its name
                fresh[target] = shared + b"_" + str(target).encode()
    for ids in groups.values():
        if len(ids) >= SHARED_LIMIT:
            for rid in ids:
                if rid not in named:
                    fresh.setdefault(rid, str(rid).encode())  # what the trivial mapper prints
    if not fresh:
        return None
    add: list[int] = []
    for target, name in fresh.items():
        text = _words(name)
        add += [(len(text) + 2) << 16 | ops.name, target, *text]
    out = array("I", words[: at[0]])
    out.extend(add)
    out.extend(words[at[0] :])
    return Renamed(out, at[1], len(fresh))
