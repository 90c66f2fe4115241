"""Keep-going validation: after the validator's first error, set the failing instruction aside and
validate again to find the next, a bounded number of rounds.

Setting aside never moves an id or a block: in a function body an instruction without a result
becomes OpNop and one with a result `OpUndef` of its type (OpNop where that type is void); outside
function bodies an instruction without a result is left out, one with a result type becomes
`OpUndef` and a type an empty OpTypeStruct. What cannot be set aside that way ends the rounds:
control flow (labels, branches, merges, OpPhi), function and parameter declarations,
function-scope variables, capabilities, extensions, imports and the memory model.

A later round's error is reported only if it stands in the module as written. An id is *touched*
when it is the result of a set-aside instruction, or an instruction left out named it (a
decoration's target, say), or when its definition names a touched id (followed through every
definition: a type, a constant, a value). The error is kept only when its instruction was not
set aside, names no touched id (a word equal to one counts, literals included), and the message
names none; an error naming no instruction ends the rounds. What is kept therefore lies on an
instruction whose every id is defined, typed and decorated as the user wrote it, and whose function's
control flow is untouched.

The binding reads no grammar: the caller gives the opcodes (`KeepOps`).
"""

from __future__ import annotations

import re
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

# An id as the validator names it in a message: '30[%30]' (or '30[%name]').
_MESSAGE_ID = re.compile(r"(\d+)\[%")
ROUNDS = 24  # at most this many validations after the first
# How the validator begins the error that lists ids used but never defined (it names no instruction).
UNDEFINED = "The following forward referenced IDs have not been defined"


@dataclass(frozen=True)
class KeepOps:
    nop: int  # OpNop
    undef: int  # OpUndef
    function: int  # OpFunction
    function_end: int  # OpFunctionEnd
    type_void: int  # OpTypeVoid
    type_struct: int  # OpTypeStruct, which stands for a type set aside
    types: tuple[int, ...]  # the type declarations
    variable: int  # OpVariable
    entry_point: int  # OpEntryPoint
    fixed: tuple[int, ...]  # never set aside (see the module's docstring)
    results: tuple[tuple[int, int], ...]  # (opcode, the result id's word in it: 1 or 2)
    # (opcode, its operands after the result as `_ids` reads them): "i" an id, "w" a word, "s" a
    # string, "*" then what repeats to the end, "." words of unknown meaning to the end.
    shapes: tuple[tuple[int, str], ...]
    # What setting aside a line the assembler refuses reads (refused.py): each instruction's name
    # and opcode, and OpSourceExtension, which marks a line naming no id.
    names: tuple[tuple[str, int], ...] = ()
    source_extension: int = 0


def _ids(words: Sequence[int], start: int, end: int, shape: str) -> list[int]:
    """The ids among words[start:end] by the opcode's shape (an unknown word counts as an id)."""
    out: list[int] = []
    i, p = start, 0
    repeat = ""
    while i < end:
        if p >= len(shape):
            if not repeat:
                return out
            p = 0
            shape = repeat
        c = shape[p]
        if c == "*":
            repeat = shape[p + 1 :] or "."
            shape, p = repeat, 0
            continue
        if c == "i" or c == ".":
            out.append(words[i])
            i += 1
            if c == ".":
                out.extend(words[i:end])
                return out
        elif c == "s":
            while (
                i < end and (words[i] >> 24) and (words[i] >> 16) & 0xFF and (words[i] >> 8) & 0xFF and words[i] & 0xFF
            ):
                i += 1
            i += 1
        else:
            i += 1
        p += 1
    return out


@dataclass(frozen=True)
class _Inst:
    op: int
    result: int  # result id, 0 if none
    rtype: int  # result type id, 0 if none
    in_function: bool
    ids: tuple[int, ...]  # the ids among its other operands
    at: int  # word offset
    count: int  # word count


def _plain(shape: str) -> int | None:
    """For a shape whose ids are simply its first words (k 'i's, then nothing: k) or all its words
    ('i's then '*i' or '.': -1), that; None for any other."""
    head = shape.rstrip(".").removesuffix("*i")
    if head.strip("i"):
        return None
    return len(head) if head == shape else -1


def _parse(words: Sequence[int], ops: KeepOps) -> list[_Inst] | None:
    result_at = dict(ops.results)
    shapes = dict(ops.shapes)
    plain = {op: _plain(shape) for op, shape in shapes.items()}
    out: list[_Inst] = []
    i, n, inside = 5, len(words), False
    while i < n:
        wc, op = words[i] >> 16, words[i] & 0xFFFF
        if wc == 0 or i + wc > n:
            return None
        k = result_at.get(op)
        result = words[i + k] if k is not None and k < wc else 0
        rtype = words[i + 1] if k == 2 and wc > 2 else 0
        if op == ops.function:
            inside = True
        start = i + 1 + (k or 0)
        first = plain.get(op, -1)
        if first is None:
            ids = tuple(_ids(words, start, i + wc, shapes[op]))
        else:
            ids = tuple(words[start : i + wc] if first < 0 else words[start : min(start + first, i + wc)])
        out.append(_Inst(op, result, rtype, inside and op not in (ops.function, ops.function_end), ids, i, wc))
        if op == ops.function_end:
            inside = False
        i += wc
    return out


class _Rounds:
    """The module, what has been set aside, and the ids it touched."""

    def __init__(self, words: Sequence[int], insts: list[_Inst], ops: KeepOps):
        self.words, self.insts, self.ops = words, insts, ops
        self.voids = {x.result for x in insts if x.op == ops.type_void}
        self.fixed = frozenset(ops.fixed)
        self.types = frozenset(ops.types)
        self.aside: dict[int, str] = {}  # instruction number (0-based) -> "nop", "undef", "struct" or "drop"
        self.unlisted: set[int] = set()  # global variables set aside: left out of entry points' interfaces
        self.touched: set[int] = set()
        self._users: dict[int, list[int]] | None = None  # id -> the instructions naming it

    def users(self, id_: int) -> list[int]:
        """The instructions naming the id (as an operand or their result type)."""
        if self._users is None:
            self._users = {}
            for k, y in enumerate(self.insts):
                for w in {y.rtype, *y.ids} - {0}:
                    self._users.setdefault(w, []).append(k)
        return self._users.get(id_, [])

    def set_aside(self, k: int, how: str | None = None) -> bool:
        """Set instruction k aside (`how`: as that, else as its kind says); False when it cannot be.
        A result of void type (an extended instruction's, say DebugInfo's) is left out with every
        instruction naming it, in turn."""
        plan = self._plan(k, how)
        if plan is None:
            return False
        for n, way in plan.items():
            self.aside[n] = way
            x = self.insts[n]
            if x.op == self.ops.variable and not x.in_function:
                self.unlisted.add(x.result)
        for n in plan:
            self._touch(self.insts[n], plan[n])
        return True

    def _how(self, x: _Inst) -> str | None:
        if x.op in self.fixed or (x.in_function and x.op == self.ops.variable):
            return None
        if x.result and not x.rtype:
            # A type becomes an empty structure (every use of it is then touched); any other result
            # without a type (a label, a string, an import) cannot be set aside.
            return "struct" if x.op in self.types and not x.in_function else None
        if x.rtype and x.rtype not in self.voids:
            return "undef"
        return "nop" if x.in_function else "drop"

    def refused_how(self, x: _Inst) -> str | None:
        """How a line the assembler refused is set aside: as any instruction, except that a result
        whose type could not be read goes (and every instruction naming it, in turn)."""
        how = self._how(x)
        if how is None and x.result and x.op not in self.fixed:
            return "nop" if x.in_function else "drop"
        return how

    def _plan(self, k: int, how: str | None = None) -> dict[int, str] | None:
        if k in self.aside:
            return None
        plan: dict[int, str] = {}
        work = [k]
        while work:
            n = work.pop()
            if n in plan or n in self.aside:
                continue
            way = how if n == k and how is not None else self._how(self.insts[n])
            if way is None or len(plan) > 256:
                return None
            plan[n] = way
            result = self.insts[n].result
            if result and way in ("nop", "drop"):  # its result is gone: so are its users
                work.extend(self.users(result))
        return plan

    def _touch(self, x: _Inst, how: str) -> None:
        """The set-aside instruction's result (and for one left out outside function bodies, the ids it
        names: what it decorated, named, declared as an entry point), then every definition naming a
        touched id. Nothing else can depend on an instruction that stands replaced but through its
        result."""
        new = {x.result} if x.result else set()
        if how == "drop":
            new.update(x.ids)
        work = list(new - self.touched)
        self.touched.update(work)
        while work:
            for k in self.users(work.pop()):
                result = self.insts[k].result
                if result and result not in self.touched:
                    self.touched.add(result)
                    work.append(result)

    def module(self) -> tuple[array, list[int]]:
        """The words with what is set aside, and the original number (0-based) of each instruction.
        The words between changed instructions are copied a run at a time."""
        changed = set(self.aside)
        if self.unlisted:
            changed.update(k for k, x in enumerate(self.insts) if x.op == self.ops.entry_point)
        out = array("I")
        at = 0  # the first word not yet copied
        for k in sorted(changed):
            x = self.insts[k]
            out.extend(self.words[at : x.at])
            at = x.at + x.count
            how = self.aside.get(k)
            if how == "nop":
                out.append(1 << 16 | self.ops.nop)
            elif how == "undef":
                out.extend((3 << 16 | self.ops.undef, x.rtype, x.result))
            elif how == "struct":
                out.extend((2 << 16 | self.ops.type_struct, x.result))
            elif how is None:  # an entry point
                out.extend(self._listing(x))
        out.extend(self.words[at:])
        dropped = {k for k, how in self.aside.items() if how == "drop"}
        numbers = [k for k in range(len(self.insts)) if k not in dropped] if dropped else list(range(len(self.insts)))
        return out, numbers

    def _listing(self, x: _Inst) -> list[int]:
        """An OpEntryPoint without the variables set aside in its interface (an OpUndef may not be
        listed there)."""
        words = self.words[x.at : x.at + x.count]
        i = 3
        while i < len(words) and all((words[i] >> s) & 0xFF for s in (0, 8, 16, 24)):
            i += 1
        kept = [w for w in words[i + 1 :] if w not in self.unlisted]
        return [(i + 1 + len(kept)) << 16 | x.op, *words[1 : i + 1], *kept]

    def stands(self, k: int, message: str) -> bool:
        """Whether an error on instruction k with this message stands in the module as written."""
        if k in self.aside:
            return False
        x = self.insts[k]
        touched = self.touched
        if x.result in touched or x.rtype in touched or any(w in touched for w in x.ids):
            return False
        return not any(int(m.group(1)) in self.touched for m in _MESSAGE_ID.finditer(message))


def later_failures(
    words: Sequence[int],
    first: int,
    message: str,
    validate: Callable[[Sequence[int]], object],
    ops: KeepOps,
    stop_at: float,
    rounds: int = ROUNDS,
) -> list:
    """The errors after the first (on 1-based instruction `first`, with this message) that stand in
    the module as written, each with its instruction's 1-based number in `words`. A first error
    naming no instruction but ids never defined sets aside every instruction naming them. validate:
    the words -> a Failure or None (index: 1-based, in the words given). stop_at: the process-time
    after which no round starts (a round is assumed to take as long as the longest so far)."""
    insts = _parse(words, ops)
    if insts is None:
        return []
    state = _Rounds(words, insts, ops)
    targets = _targets(state, first, message)
    if not targets or not all(state.set_aside(k) for k in targets):
        return []
    return _rounds(state, validate, stop_at, rounds)


def after_refused(
    words: Sequence[int],
    mark: str,
    validate: Callable[[Sequence[int]], object],
    ops: KeepOps,
    stop_at: float,
    rounds: int = ROUNDS,
) -> list:
    """The validator's errors that stand in the module as written, for words assembled from a text
    whose refused lines were replaced by markers (refused.py: an OpEntryPoint or OpSourceExtension
    whose string starts with `mark`, holding the line's ids in order). Each marker is set aside as
    the instruction it stands for would be, then the rounds go on as after a first error."""
    insts = _parse(words, ops)
    if insts is None:
        return []
    marked = _marked(words, insts, ops, mark)
    for k, x in marked.items():
        insts[k] = x
    state = _Rounds(words, insts, ops)
    for k, x in marked.items():
        how = state.refused_how(x)
        if how is None or not (k in state.aside or state.set_aside(k, how)):
            return []
    return _rounds(state, validate, stop_at, rounds)


def _string(words: Sequence[int], i: int, end: int) -> tuple[str, int]:
    """The literal string starting at words[i], and the index of the word after it."""
    out = bytearray()
    while i < end:
        w = words[i]
        i += 1
        for shift in (0, 8, 16, 24):
            b = (w >> shift) & 0xFF
            if not b:
                return out.decode("utf-8", "replace"), i
            out.append(b)
    return out.decode("utf-8", "replace"), i


def _marked(words: Sequence[int], insts: list[_Inst], ops: KeepOps, mark: str) -> dict[int, _Inst]:
    """The markers among the instructions, each as the instruction it stands for: its string is
    `mark`, the opcode, ':', then whether its first id is the result and its second the result type."""
    out: dict[int, _Inst] = {}
    for k, x in enumerate(insts):
        if x.op == ops.entry_point:
            start = x.at + 3
        elif x.op == ops.source_extension:
            start = x.at + 1
        else:
            continue
        text, after = _string(words, start, x.at + x.count)
        if not text.startswith(mark):
            continue
        opcode, _, flags = text[len(mark) :].partition(":")
        ids = [words[x.at + 2], *words[after : x.at + x.count]] if x.op == ops.entry_point else []
        result = ids[0] if flags[:1] == "1" and ids else 0
        rest = ids[1:] if result else ids
        rtype = rest[0] if flags[1:2] == "1" and rest else 0
        out[k] = _Inst(int(opcode), result, rtype, x.in_function, tuple(rest[1:] if rtype else rest), x.at, x.count)
    return out


def _targets(state: _Rounds, first: int, message: str) -> list[int]:
    """The instructions to set aside after an error on 1-based instruction `first` (0: none named):
    it, or for ids never defined every instruction naming them."""
    if 1 <= first <= len(state.insts):
        return [first - 1]
    if message.startswith(UNDEFINED):
        missing = {int(m.group(1)) for m in _MESSAGE_ID.finditer(message)}
        return [k for k, x in enumerate(state.insts) if x.rtype in missing or missing.intersection(x.ids)]
    return []


def _rounds(state: _Rounds, validate: Callable[[Sequence[int]], object], stop_at: float, rounds: int) -> list:
    """Validate what is set aside, keep the error if it stands, set its instruction aside; again."""
    found: list = []
    longest = 0.0
    for _ in range(rounds):
        start = time.process_time()
        if start + longest > stop_at:
            break
        module, numbers = state.module()
        fail = validate(module)
        longest = max(longest, time.process_time() - start)
        if fail is None:
            break
        index = getattr(fail, "index", 0) or 0
        message: str = fail.message  # type: ignore[attr-defined]
        if not 1 <= index <= len(numbers):
            # Ids never defined: they stand if none of them is touched, then their users go.
            targets = _targets(state, 0, message)
            if targets and not any(int(m.group(1)) in state.touched for m in _MESSAGE_ID.finditer(message)):
                found.append(fail)
        else:
            at = numbers[index - 1]
            if state.stands(at, message):
                found.append(replace(fail, index=at + 1))  # type: ignore[type-var]
            targets = [at]
        if not targets or not all(state.set_aside(k) for k in targets):
            break
    return found
