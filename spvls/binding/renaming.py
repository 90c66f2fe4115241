"""Unique OpNames for a module whose ids would share a friendly name, before it is validated.

Whenever SPIRV-Tools' validator reports an error at an instruction, it disassembles that
instruction with friendly names, which names every id of the module first (also with spvls'
friendly-names option off). An id without an OpName is named after its type or value (`uint_1`),
and the k-th id suggested the same name tries the suffixes _0, _1, … in turn: k equal constants
cost k²/2 tries (16,000 `OpConstant %int 1`: 8 s for an error that takes 0.01 s to find).

So when many ids would share a name, each id gets an OpName of its own: OpNames whose string
another named id already has are given a distinct string, and every other id an OpName holding its
number (what the trivial name mapper prints). The new OpNames go right after the instructions of
the sections before the debug names (SPIR-V 2.4: where the debug names start, so OpName is
allowed there and the new names come before the module's own, which the mapper then ignores),
so the validator's verdict is the same; an instruction number it reports past them is moved back.
Without an OpMemoryModel there, the first instruction that may not come before one (a type, a
constant or an early section's) is the validator's error, and the new OpNames go right after it.

The binding reads no grammar: the caller gives the opcodes (`NameOps`).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# At most this many ids sharing a name: below it the mapper's tries stay under ~2,000.
SHARED_LIMIT = 64


@dataclass(frozen=True)
class NameOps:
    name: int  # OpName
    decorate: int  # OpDecorate, whose BuiltIn decoration also names its target
    builtin: int  # the BuiltIn decoration
    function: int  # OpFunction: the module-level instructions end at the first
    memory_model: int  # OpMemoryModel: nothing after the early sections may come before it
    early: tuple[int, ...]  # the opcodes of the sections before the debug names
    before_model: tuple[int, ...]  # the opcodes of the sections before the memory model
    results: tuple[tuple[int, int], ...]  # (opcode, the result id's word in it: 1 or 2)
    by_content: tuple[int, ...]  # opcodes whose result the mapper names after its operands (types, constants)


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
    """The module with unique OpNames, or None when no name would be shared by SHARED_LIMIT ids, the
    early sections hold no OpMemoryModel, or the module is not a list of well-formed instructions."""
    n = len(words)
    early, by_content = frozenset(ops.early), frozenset(ops.by_content)
    result_at = dict(ops.results)
    named: dict[int, bytes] = {}  # target -> its first OpName's string, sanitized
    results: list[int] = []
    shapes: Counter[tuple[int, ...]] = Counter()
    at = None  # word offset and number of the first instruction after the early sections
    model = False  # an OpMemoryModel among them (an OpName before it is out of place)
    count = 0
    i = 5
    # Up to the first function: where OpNames, decorations, types and constants are (ids defined in
    # a function are named by their number, unique, unless a type or constant is misplaced there).
    while i < n:
        wc, op = words[i] >> 16, words[i] & 0xFFFF
        if wc == 0 or i + wc > n:
            return None
        if op == ops.function:
            break
        if at is None and op not in early:
            at = (i, count)
        if at is None and op == ops.memory_model:
            model = True
        if op == ops.name and wc >= 2:
            named.setdefault(words[i + 1], _sanitized(_string(words, i + 2, i + wc)))
        elif op == ops.decorate and wc >= 4 and words[i + 2] == ops.builtin:
            shapes[(op, words[i + 3])] += 1
        k = result_at.get(op)
        if k is not None and k < wc:
            results.append(words[i + k])
            if op in by_content:
                shapes[(op, *words[i + 1 : i + k]) + tuple(words[i + k + 1 : i + wc])] += 1
        i += wc
        count += 1
    if at is None:
        at = (i, count)
    if not model:
        at = _after_misplaced(words, ops, early | by_content)
        if at is None:
            return None
    names = Counter(named.values())
    worst = max(max(names.values(), default=0), max(shapes.values(), default=0))
    if worst < SHARED_LIMIT:
        return None
    # The new strings: a shared OpName string made distinct by its target; the others numbered.
    seen: set[bytes] = set()
    add: list[int] = []
    added = 0
    fresh: dict[int, bytes] = {}
    for target, name in named.items():
        if names[name] > 1 and name in seen:
            fresh[target] = name + b"_" + str(target).encode()
        seen.add(name)
    for target, name in fresh.items():
        text = _words(name)
        add += [(len(text) + 2) << 16 | ops.name, target, *text]
        added += 1
    for rid in dict.fromkeys(results):
        if rid not in named:
            text = _words(str(rid).encode())
            add += [(len(text) + 2) << 16 | ops.name, rid, *text]
            added += 1
    out = array("I", words[: at[0]])
    out.extend(add)
    out.extend(words[at[0] :])
    return Renamed(out, at[1], added)
