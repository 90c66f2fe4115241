"""Match a line's tokens to the operands the grammar JSON expects.

The result says, token by token, which grammar operand it fills (so ids,
enumerants and literals are known), what is still expected after the last
token (for completion and signature help), and any mismatch found.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import add, itemgetter
from typing import NamedTuple

from ..compiled import mypyc_attr
from ..spec.did_you_mean import suggest
from ..spec.grammar import Enumerant, Grammar, GrammarOperand, Instruction, OperandKind, ext_set
from ..syntax.parser import Line, Token, int_value


class _Filled(NamedTuple):
    token: Token
    grammar_operand: GrammarOperand


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class Operand(_Filled):
    """A token and the grammar operand it fills. A tuple of two items (64 bytes): an enum slot's
    operand, which also holds what its word names, is an EnumOperand (a third item). Most operands
    are ids and literals, so the third item is paid for only where it is used."""

    __slots__ = ()
    enumerants: tuple[Enumerant, ...] = ()  # for enum slots: what the word names

    @property
    def is_id(self) -> bool:
        return self.token.kind == "ID"


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class EnumOperand(Operand):
    """An enum slot's operand, with the enumerants its word names (never none: an operand whose word
    names none is a plain Operand, with a problem)."""

    __slots__ = ()
    enumerants = property(itemgetter(2))  # type: ignore[assignment]

    def __new__(cls, token: Token, grammar_operand: GrammarOperand, enumerants: tuple[Enumerant, ...]) -> EnumOperand:
        return tuple.__new__(cls, (token, grammar_operand, enumerants))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"EnumOperand(token={self.token!r}, grammar_operand={self.grammar_operand!r}, enumerants={self.enumerants!r})"


@dataclass(slots=True)
class Problem:
    code: str
    start: int
    end: int
    message: str
    suggestions: tuple[str, ...] = ()
    # An unknown name's pool (see name_suggestions): its did-you-mean is left to the checks, which
    # name one only while the module has few unknown names (Module.suggests_names).
    pool: str = ""

    # Written out, as the dataclass would write it: the compiled build runs a dataclass's own __init__
    # as Python (through the type's init slot). The matcher makes these for every line it reads.
    def __init__(
        self, code: str, start: int, end: int, message: str, suggestions: tuple[str, ...] = (), pool: str = ""
    ) -> None:
        self.code = code
        self.start = start
        self.end = end
        self.message = message
        self.suggestions = suggestions
        self.pool = pool


@dataclass(slots=True)
class Rest:
    """What a Match holds besides its instruction and operands: its problems, the operands expected
    after the last token, and the OpExtInst's instruction when resolved. One object, which the
    matches of a shape's template share (a model holds a Match per instruction). A class, not a
    tuple: the compiled build would hold a tuple's items in each Match."""

    problems: list[Problem]
    pending: Sequence[GrammarOperand]
    ext_inst: Instruction | None

    def __init__(  # written out, as Problem's is
        self, problems: list[Problem], pending: Sequence[GrammarOperand], ext_inst: Instruction | None
    ) -> None:
        self.problems = problems
        self.pending = pending
        self.ext_inst = ext_inst


@dataclass(slots=True)
class Match:
    inst: Instruction | None
    # A tuple when matched from a shape's template (no list's spare room, on every line of a module)
    operands: Sequence[Operand] = field(default_factory=list)
    rest: Rest = field(default_factory=lambda: Rest([], (), None))

    def __init__(  # written out, as Problem's is
        self,
        inst: Instruction | None,
        operands: Sequence[Operand] | None = None,
        problems: list[Problem] | None = None,
        pending: Sequence[GrammarOperand] = (),
        ext_inst: Instruction | None = None,
    ) -> None:
        self.inst = inst
        self.operands = [] if operands is None else operands
        self.rest = Rest([] if problems is None else problems, pending, ext_inst)

    @property
    def problems(self) -> list[Problem]:
        return self.rest.problems

    @property
    def pending(self) -> Sequence[GrammarOperand]:
        """Expected after the last token."""
        return self.rest.pending

    @pending.setter
    def pending(self, value: Sequence[GrammarOperand]) -> None:
        self.rest = Rest(self.rest.problems, value, self.rest.ext_inst)  # a template's is shared

    @property
    def ext_inst(self) -> Instruction | None:
        """The OpExtInst's instruction, when resolved."""
        return self.rest.ext_inst

    @ext_inst.setter
    def ext_inst(self, value: Instruction | None) -> None:
        self.rest = Rest(self.rest.problems, self.rest.pending, value)


# <id> operands whose constant holds an enumerant of this kind (SPIR-V 2.2.1: Scope <id>, Memory Semantics <id>).
ENUM_OF_ID = {"IdScope": "Scope", "IdMemorySemantics": "MemorySemantics"}


def named_value(grammar: Grammar, id_kind: str, text: str) -> int | None:
    """The value a Scope or Memory Semantics name (or `|`-joined names) stands for in an <id> slot."""
    kind = grammar.kinds.get(ENUM_OF_ID.get(id_kind, ""))
    if kind is None:
        return None
    value = 0
    for part in text.split("|"):
        e = kind.enumerants.get(part)
        if e is None:
            return None
        value |= e.value
    return value


def _label(expected: GrammarOperand) -> str:
    return f"'{expected.name}'" if expected.name else expected.kind


class _Matcher:
    def __init__(self, grammar: Grammar, line: Line, ext_imports: dict[str, str], inst: Instruction):
        self.g = grammar
        self.line = line
        self.ext_imports = ext_imports
        self.tokens = line.operands
        self.pos = 0
        self.inst = inst
        self.ops: list[Operand] = []  # the Match's operands, as the matcher fills them in
        self.m = Match(inst, self.ops)

    def problem(
        self, code: str, tok_or_span: Token | tuple[int, int], message: str, suggestions: Iterable[str] = ()
    ) -> None:
        start, end = (tok_or_span.start, tok_or_span.end) if isinstance(tok_or_span, Token) else tok_or_span
        self.m.problems.append(Problem(code, start, end, message, tuple(suggestions)))

    def unknown(self, code: str, tok: Token, message: str, pool: str) -> None:
        """A name the grammar lacks (its closest in `pool` are found by the checks): say so, and
        take the rest of the line as-is."""
        self.m.problems.append(Problem(code, tok.start, tok.end, message, pool=pool))
        self.pos = len(self.tokens)

    def end_span(self) -> tuple[int, int]:
        text = self.line.text
        last = self.line.operands[-1] if self.line.operands else self.line.opcode
        end = last.end if last else len(text.rstrip())
        return max(end - 1, 0), end

    def run(self) -> Match:
        inst = self.inst
        queue = [o for o in inst.operands if o.kind != "IdResult"]
        while queue:
            expected = queue.pop(0)
            if expected.quantifier == "*":
                if self.pos >= len(self.tokens):
                    self.m.pending = [expected, *queue]
                    return self.m
                queue.insert(0, expected)
                queue[1:1] = self.take(expected) or []
                continue
            if self.pos >= len(self.tokens):
                self.m.pending = [expected, *queue]
                required = [s for s in [expected, *queue] if not s.quantifier]
                if required:
                    names = ", ".join(_label(s) for s in required)
                    who = self.m.ext_inst.name if self.m.ext_inst else inst.name
                    self.problem(
                        "operand.missing", self.end_span(), f"{who} expects {len(required)} more operand(s): {names}"
                    )
                return self.m
            inserted = self.take(expected)
            if expected.kind == "LiteralExtInstInteger" and self.m.ext_inst:
                queue[:] = inserted or []  # the set's own operands replace OpExtInst's '*'
            elif inserted:
                queue[0:0] = inserted
        if self.pos < len(self.tokens):
            extra = self.tokens[self.pos]
            last = self.tokens[-1]
            if extra.kind == "WORD" and self.g.instruction(extra.text):
                msg = f"{extra.text!r} starts a new instruction: put each instruction on its own line"
            else:
                n = len(self.tokens) - self.pos
                msg = f"{inst.name} takes no more operands: {n} extra operand(s)"
            self.problem("operand.extra", (extra.start, last.end), msg)
        return self.m

    def take(self, expected: GrammarOperand) -> list[GrammarOperand] | None:
        """Consume the token(s) for one operand; return operands it adds (enum parameters)."""
        kind = self.g.kinds.get(expected.kind)
        if kind and kind.category == "Composite":
            out: list[GrammarOperand] = []
            for base in kind.bases:
                if self.pos >= len(self.tokens):
                    self.m.pending = [GrammarOperand(base, expected.name, "")]
                    self.problem(
                        "operand.missing", self.end_span(), f"{_label(expected)} comes in pairs: the pair is incomplete"
                    )
                    return None
                self.take(GrammarOperand(base, expected.name, ""))
            return out
        tok = self.tokens[self.pos]
        self.pos += 1
        op = _new(Operand, (tok, expected))  # (not the NamedTuple's __new__, a Python function)
        self.ops.append(op)  # enum() replaces it once it knows the enumerants
        if tok.kind == "RAW":
            return None  # a raw word fills any one-word slot
        cat = kind.category if kind else "Id"
        if expected.kind in self.g.id_kinds:
            if tok.kind != "ID":
                value = named_value(self.g, expected.kind, tok.text)
                if value is not None:  # as the subgroup-rotate proposal's example writes it
                    msg = (
                        f"{_label(expected)} of {self.inst.name} is the <id> of a 32-bit integer constant, "
                        f"not the name {tok.text} itself: {tok.text} is {value}, "
                        f"e.g. %c{value} = OpConstant %uint {value}"
                    )
                else:
                    msg = f"{_label(expected)} of {self.inst.name} is an <id> (e.g. %name), not {tok.text!r}"
                self.problem("operand.expected-id", tok, msg)
            return None
        if tok.kind == "ID":
            self.problem(
                "operand.expected-literal",
                tok,
                f"{_label(expected)} of {self.inst.name} is a literal ({expected.kind}), not an <id>",
            )
            return None
        if kind is not None and cat in ("ValueEnum", "BitEnum"):
            return self.enum(op, kind, tok)
        return self.literal(op, expected, tok)

    def enum(self, op: Operand, kind: OperandKind, tok: Token) -> list[GrammarOperand] | None:
        if tok.kind == "INT" and kind.category == "BitEnum":
            return None
        if tok.kind != "WORD":
            self.problem(
                "operand.expected-enumerant",
                tok,
                f"{_label(op.grammar_operand)} of {self.inst.name} is a {kind.kind} name, not {tok.text!r}",
            )
            return None
        parts = tok.text.split("|")
        if len(parts) > 1 and kind.category != "BitEnum":
            self.problem(
                "operand.expected-enumerant", tok, f"{kind.kind} is not a mask: give one name, not {tok.text!r}"
            )
            return None
        found = []
        col = tok.start
        for part in parts:
            e = kind.enumerants.get(part)
            if e is None:
                self.m.problems.append(
                    Problem(
                        "operand.unknown-enumerant",
                        col,
                        col + len(part),
                        f"unknown {kind.kind} {part!r}",
                        pool=ENUM_POOL + kind.kind,
                    )
                )
            else:
                found.append(e)
            col += len(part) + 1
        if found:
            self.ops[-1] = EnumOperand(op.token, op.grammar_operand, tuple(found))
        params: list[GrammarOperand] = []
        for e in sorted(found, key=lambda e: e.value):
            params.extend(e.parameters)
        return params

    def literal(self, op: Operand, expected: GrammarOperand, tok: Token) -> list[GrammarOperand] | None:
        k = expected.kind
        inst_name = self.inst.name
        if k == "LiteralString":
            if tok.kind != "STRING":
                self.problem("operand.expected-string", tok, f"{_label(expected)} of {inst_name} is a quoted string")
        elif k == "LiteralInteger":
            if tok.kind != "INT":
                self.problem(
                    "operand.expected-integer",
                    tok,
                    f"{_label(expected)} of {inst_name} is an integer literal, not {tok.text!r}",
                )
            elif tok.text.startswith("-") and inst_name != "OpSwitch":  # OpSwitch's follow its selector's type
                self.problem(
                    "operand.negative-literal",
                    tok,
                    f"{_label(expected)} of {inst_name} is an unsigned literal: spirv-as puts no negative "
                    f"number ({tok.text}) in it",
                )
        elif k in ("LiteralFloat", "LiteralContextDependentNumber"):
            if tok.kind not in ("INT", "FLOAT"):
                self.problem(
                    "operand.expected-number", tok, f"{_label(expected)} of {inst_name} is a number, not {tok.text!r}"
                )
        elif k == "LiteralExtInstInteger":
            return self.ext_instruction(tok)
        elif k == "LiteralSpecConstantOpInteger":
            return self.spec_constant_op(tok)
        return None

    def ext_instruction(self, tok: Token) -> list[GrammarOperand] | None:
        # The set is the operand just before the instruction name.
        set_tok = self.ops[-2].token if len(self.ops) >= 2 else None
        set_name = self.ext_imports.get(set_tok.text) if set_tok else None
        ext = ext_set(self.g, set_name) if set_name else None
        if ext is None or set_name is None:
            # Unknown or non-semantic set we have no grammar for: take the rest as-is.
            self.pos = len(self.tokens)
            return None
        inst = None
        if tok.kind == "INT":
            number = int_value(tok.text)
            inst = ext.by_opcode.get(number) if number is not None else None
        elif tok.kind == "WORD":
            inst = ext.by_name.get(tok.text)
        if inst is None:
            self.unknown(
                "operand.unknown-extinst", tok, f"{tok.text!r} is not an instruction of {set_name}", EXT_POOL + set_name
            )
            return None
        self.m.ext_inst = inst
        self.ops[-1] = Operand(self.ops[-1].token, GrammarOperand("LiteralExtInstInteger", inst.name, ""))
        return list(inst.operands)

    def spec_constant_op(self, tok: Token) -> list[GrammarOperand] | None:
        inst = self.g.instruction("Op" + tok.text) if tok.kind == "WORD" else None
        if inst is None:
            self.unknown(
                "operand.unknown-opcode",
                tok,
                f"OpSpecConstantOp takes an opcode name without 'Op', not {tok.text!r}",
                SPEC_OP_POOL,
            )
            return None
        self.m.ext_inst = inst
        return [o for o in inst.operands if o.kind not in ("IdResultType", "IdResult")]


EnumSlots = tuple[tuple[type[Operand], ...], tuple[tuple[tuple[Enumerant, ...]] | tuple[()], ...]]

# Clean matches by line shape: lines that differ only in their ids fill the same operands
# (the ids are abstracted in the shape; OpExtInst and its kin, whose set is an id, match each time).
# Each: (instruction, its name, each operand's grammar operand, enum slots (see _enum_slots), the
# Match's rest (see Rest), the Operand last made for each slot (see Module._build)). Typed, so the
# compiled build reads the items natively.
Template = tuple[Instruction, str, tuple[GrammarOperand, ...], EnumSlots | None, Rest, list[Operand | None]]
_templates: dict[Grammar, dict[str, Template]] = {}  # by grammar, then shape: no key tuple per line
_MAX_TEMPLATES = 65536
_new = tuple.__new__  # an Operand without the NamedTuple's Python-level __new__
# The problems of every clean match, shared (100k lines held 100k empty lists): only the matches
# _Matcher and _match make for themselves are ever appended to.
_CLEAN: list[Problem] = []


def templates_of(grammar: Grammar) -> dict[str, Template]:
    """The grammar's templates by shape (see _templates)."""
    found = _templates.get(grammar)
    if found is None:
        found = _templates[grammar] = {}
    return found


def match(grammar: Grammar, line: Line, ext_imports: dict[str, str] | None = None) -> Match:
    """Match one parsed line against the grammar. Lines without an opcode match nothing."""
    if line.opcode is None:
        return Match(None)
    shape = line.shape
    templates = templates_of(grammar)
    if shape is not None:
        template = templates.get(shape)
        if template is not None:
            inst, _, kinds, enums, rest, _ = template
            return Match(inst, operands_of(line, kinds, enums), rest.problems, rest.pending, rest.ext_inst)
    m = _match(grammar, line, line.opcode, ext_imports)
    if shape is not None and not m.problems and m.inst is not None and not _by_set(m.inst):
        if len(templates) >= _MAX_TEMPLATES:
            templates.clear()  # in place: a build holds it
        templates[shape] = (
            m.inst,
            m.inst.name,
            tuple(o.grammar_operand for o in m.operands),
            _enum_slots(m.operands),
            Rest(_CLEAN, tuple(m.pending), m.ext_inst),
            [None] * len(m.operands),
        )
    return m


def _enum_slots(operands: Sequence[Operand]) -> EnumSlots | None:
    """A template's enum slots: None when it has none, else each operand's class and the items it
    adds to (token, grammar operand), (enumerants,) or ()."""
    if not any(type(o) is EnumOperand for o in operands):
        return None
    return tuple(type(o) for o in operands), tuple((o.enumerants,) if type(o) is EnumOperand else () for o in operands)


def operands_of(line: Line, kinds: tuple[GrammarOperand, ...], enums: EnumSlots | None) -> tuple[Operand, ...]:
    """A template's operands over the line's own tokens, as a tuple: no list's spare room, and made
    without a Python-level call per operand. (zip without its strict keyword, which costs a slower
    call per line; a line of the template's shape has a token per operand.)"""
    if enums is None:
        return tuple(map(_new, repeat(Operand), zip(line.operands, kinds)))  # noqa: B905
    classes, extra = enums
    return tuple(map(_new, classes, map(add, zip(line.operands, kinds), extra)))  # noqa: B905


ENUM_POOL, EXT_POOL, SPEC_OP_POOL = "enum:", "extinst:", "specop"


@lru_cache(maxsize=4096)
def name_suggestions(grammar: Grammar, pool: str, word: str) -> list[str]:
    """The names closest to an unknown one in its pool: a kind's enumerants (ENUM_POOL + kind), an
    extended set's instructions (EXT_POOL + set) or the opcodes OpSpecConstantOp takes. Kept per
    word, as opcode_suggestions; asked by the checks, not while matching."""
    names: Iterable[str]
    if pool.startswith(ENUM_POOL):
        kind = grammar.kinds.get(pool[len(ENUM_POOL) :])
        names = kind.enumerants.keys() if kind else ()
    elif pool.startswith(EXT_POOL):
        ext = ext_set(grammar, pool[len(EXT_POOL) :])
        names = ext.by_name.keys() if ext else ()
    else:
        names = _spec_op_names(grammar)
    return suggest(word, names)


@lru_cache(maxsize=8)
def _spec_op_names(grammar: Grammar) -> tuple[str, ...]:
    return tuple(n[2:] for n in grammar.instructions)


@lru_cache(maxsize=4096)
def opcode_suggestions(grammar: Grammar, word: str) -> list[str]:
    """The opcodes closest to an unknown one. Kept per word: a misspelling is usually repeated, and
    each costs a search of every opcode. Asked by the checks (Module.suggests_opcodes), not here."""
    return suggest(word, grammar.instructions.keys())


def _by_set(inst: Instruction) -> bool:
    """Whether the instruction's operands depend on the extended-instruction set its <id> names."""
    return any(o.kind == "LiteralExtInstInteger" for o in inst.operands)


def _match(grammar: Grammar, line: Line, opcode: Token, ext_imports: dict[str, str] | None) -> Match:
    inst = grammar.instruction(opcode.text)
    if inst is None:
        m = Match(None)
        m.problems.append(
            Problem("operand.unknown-opcode", opcode.start, opcode.end, f"unknown instruction {opcode.text!r}")
        )
        return m
    ops = line.operands
    plain = inst.plain_ids
    if (
        plain is not None
        and len(plain) == len(ops)
        and (line.result is not None) == inst.has_result
        and all(t.kind == "ID" for t in ops)
    ):
        # The common case (OpIAdd %t %a %b, OpLoad %t %p, ...): every operand an <id>, all present.
        return Match(inst, [_new(Operand, pair) for pair in zip(ops, plain, strict=True)], _CLEAN)
    matcher = _Matcher(grammar, line, ext_imports or {}, inst)
    if inst.has_result and line.result is None:
        matcher.problem(
            "operand.missing-result", opcode, f"{inst.name} produces a result: write '%name = {inst.name} ...'"
        )
    elif line.result is not None and not inst.has_result:
        matcher.problem(
            "operand.unexpected-result", line.result, f"{inst.name} produces no result: remove '{line.result.text} ='"
        )
    return matcher.run()
