"""The semantic model of a module: what each id is, and how the code is shaped.

Built from a document's parsed lines; no protocol types here.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Final

from ..compiled import let_others_run, mypyc_attr
from ..spec.grammar import Enumerant, Grammar, Instruction, is_type
from ..syntax.document import Document
from ..syntax.heap import building
from ..syntax.parser import Line, LineFields, Token, int_value, string_value
from .enablement import lacks
from .facts import keeps, module_fact
from .operands import ENUM_OF_ID, Match, Operand, Rest, match, templates_of
from .target import Stated


@dataclass(slots=True)
class Inst(Match):
    """One instruction line with its operands matched to the grammar: the line's Match itself, with
    where it is (one object per instruction, not two)."""

    line: int = 0
    src: Line = None  # type: ignore[assignment]  # always given (make_inst, Module._build)
    opname: str = ""  # the canonical name (aliases such as OpDecorateStringGOOGLE resolved)

    # Written out, as the dataclass would write it: the compiled build runs a dataclass's own __init__
    # as Python (through the type's init slot), and a model makes one Inst per instruction.
    def __init__(
        self, inst: Instruction | None, operands: Sequence[Operand], rest: Rest, line: int, src: Line, opname: str
    ) -> None:
        self.inst = inst
        self.operands = operands
        self.rest = rest
        self.line = line
        self.src = src
        self.opname = opname

    @property
    def match(self) -> Match:
        return self

    @property
    def grammar_inst(self) -> Instruction | None:
        return self.inst

    @property
    def is_type(self) -> bool:
        return self.inst.is_type if self.inst is not None else is_type(None, self.opname)

    @property
    def opcode(self) -> Token:
        """The opcode's token: the model makes an Inst only from a line that has one."""
        assert self.src.opcode is not None
        return self.src.opcode

    # These read a Line's fields through LineFields and an operand's token and grammar operand as
    # its items (`o[0]`, `o[1]`): the compiled build reads a tuple item there, where a field of a
    # class it does not compile (Line, Operand) is looked up by name; every family asks them.
    @property
    def result(self) -> str | None:
        fields: LineFields = self.src
        tok = fields.result
        return tok.text if tok is not None else None

    @property
    def result_type(self) -> str | None:
        for o in self.operands:
            tok = o[0]
            if tok.kind == "ID" and o[1].kind == "IdResultType":
                return tok.text
        return None

    def operand(self, name: str) -> Operand | None:
        """The operand the grammar names `name` (e.g. 'Component Type')."""
        for o in self.operands:
            if o[1].name == name:
                return o
        return None

    def ids(self, *, skip_type: bool = False) -> list[Operand]:
        if not skip_type:
            return [o for o in self.operands if o[0].kind == "ID"]
        return [o for o in self.operands if o[0].kind == "ID" and o[1].kind != "IdResultType"]

    def literal(self, index: int) -> str | None:
        """The text of the index-th non-id operand."""
        lits = [o for o in self.operands if o.token.kind != "ID"]
        return lits[index].token.text if index < len(lits) else None


def _inst_line(inst: Inst) -> int:
    return inst.line


def _file_use(uses: dict[str, list[Inst] | tuple[Inst, ...]], tok: Token, inst: Inst) -> None:
    """Module._build's filing of one operand in the uses index: what _index does, for lines that
    come in order into empty indexes (without _index's checks, which the build paid per operand)."""
    if tok.kind == "ID":
        lst = uses.get(tok.text)
        if lst is None:
            uses[tok.text] = (inst,)
        elif isinstance(lst, tuple):
            uses[tok.text] = [lst[0], inst]
        else:
            lst.append(inst)


def make_inst(n: int, line: Line, m: Match) -> Inst:
    name = m.inst.name if m.inst is not None else (line.opcode.text if line.opcode else "")
    return Inst(m.inst, m.operands, m.rest, n, line, name)


@dataclass(slots=True)
class Block:
    label: str
    line: int
    label_inst: Inst | None = None
    # A tuple once the build reached the block's terminator (no list's header and spare room, for
    # every block of a large module); an in-place edit makes a new one.
    insts: Sequence[Inst] = field(default_factory=list)
    merge: Inst | None = None  # OpSelectionMerge / OpLoopMerge
    terminator: Inst | None = None

    def __init__(  # written out, as Inst's is
        self,
        label: str,
        line: int,
        label_inst: Inst | None = None,
        insts: Sequence[Inst] | None = None,
        merge: Inst | None = None,
        terminator: Inst | None = None,
    ) -> None:
        self.label = label
        self.line = line
        self.label_inst = label_inst
        self.insts = [] if insts is None else insts
        self.merge = merge
        self.terminator = terminator


@dataclass(slots=True)
class Function:
    id: str
    line: int
    end_line: int
    inst: Inst
    blocks: list[Block] = field(default_factory=list)
    calls: list[tuple[str, Inst]] = field(default_factory=list)  # callee id, call site
    labels: dict[str, Block] = field(default_factory=dict)  # the first block of each label
    # Lines inside it carry diagnostics of rules that run only over the whole module: a misplaced
    # module-level instruction (header, annotation, type, constant), an id an entry point's
    # interface lists, or (at its OpFunction) the missing end of the function before it.
    # An edit inside it rebuilds the model (Module.update).
    foreign: bool = False

    def __init__(self, id: str, line: int, end_line: int, inst: Inst, *, foreign: bool = False) -> None:
        self.id = id  # (written out, as Inst's is)
        self.line = line
        self.end_line = end_line
        self.inst = inst
        self.blocks = []
        self.calls = []
        self.labels = {}
        self.foreign = foreign

    def block(self, label: str) -> Block | None:
        return self.labels.get(label)


@dataclass(slots=True)
class EntryPoint:
    id: str
    name: str
    model: str
    inst: Inst
    modes: list[Inst] = field(default_factory=list)


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class ByLine(list["Inst | None"]):
    """The instruction on each line (None on the others), read as a dict by line number: a list of
    the document's length, not a dict (a sixth of its size). The line count is fixed for
    the module's life (an edit that changes it rebuilds the model)."""

    def get(self, n: int, default: Inst | None = None) -> Inst | None:
        v = self[n] if 0 <= n < len(self) else None
        return default if v is None else v

    def __contains__(self, n: object) -> bool:
        return isinstance(n, int) and self.get(n) is not None

    def pop(self, n: int, default: Inst | None = None) -> Inst | None:  # type: ignore[override]
        v = self.get(n)
        if v is None:
            return default
        self[n] = None
        return v


TERMINATORS = {
    "OpBranch",
    "OpBranchConditional",
    "OpSwitch",
    "OpReturn",
    "OpReturnValue",
    "OpKill",
    "OpUnreachable",
    "OpTerminateInvocation",
    "OpIgnoreIntersectionKHR",
    "OpTerminateRayKHR",
    "OpEmitMeshTasksEXT",
}


# Instructions whose edit changes more than their own line's facts: function and block structure, the
# call graph, variables. Editing one rebuilds the model, as does editing a module header, name or
# decoration instruction, which _declares knows by its grammar class.
STRUCTURAL = TERMINATORS | {
    "OpFunction",
    "OpFunctionEnd",
    "OpFunctionParameter",
    "OpLabel",
    "OpFunctionCall",
    "OpSelectionMerge",
    "OpLoopMerge",
    "OpVariable",
}


# What _index files besides defs and uses.
_INDEXED = frozenset(
    (
        "OpCapability",
        "OpExtension",
        "OpName",
        "OpDecorate",
        "OpMemberDecorate",
        "OpDecorateId",
        "OpDecorateString",
        "OpMemberDecorateString",
        "OpEntryPoint",
        "OpExecutionMode",
        "OpExecutionModeId",
    )
)

# What _index files in Module.decorations, by target.
_DECORATIONS = frozenset(
    ("OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString", "OpMemberDecorateString")
)

# Allowed inside a function body although their grammar class is a module-level one.
_IN_BODIES = {"OpLine", "OpNoLine", "OpExtInst", "OpExtInstWithForwardRefsKHR"}


_HEADER_CLASSES = frozenset(("Mode-Setting", "Extension", "Debug"))
# Inside a function body, an instruction of these classes is misplaced and judged by rules that run
# over the whole module only (decorations, block layout...): its function is foreign.
_MODULE_LEVEL_CLASSES = _HEADER_CLASSES | {"Annotation", "Constant-Creation", "Type-Declaration"}


def _header(opname: str, grammar_inst: Instruction | None) -> bool:
    """Whether the instruction belongs to the module's header (capabilities to debug names, SPIR-V
    2.4), by its grammar class: rules about those run only over the whole module."""
    return grammar_inst is not None and opname not in _IN_BODIES and grammar_inst.cls in _HEADER_CLASSES


def _declares(opname: str, grammar_inst: Instruction | None) -> bool:
    """Whether editing the instruction changes more than its own line's facts: structure (above),
    what its result is to the semantic tokens and the folding of declaration runs (a type, a
    constant or an annotation, even misplaced inside a function), or what header rules read (the
    header's capabilities, extensions, entry points, modes and names)."""
    return (
        opname in STRUCTURAL
        or is_type(grammar_inst, opname)
        or (grammar_inst is not None and grammar_inst.cls in ("Constant-Creation", "Annotation"))
        or _header(opname, grammar_inst)
    )


# Past this many distinct unknown opcodes in a module, their diagnostics name no closest opcode (each
# is a search of the whole grammar, so a file of them would take seconds); a quick fix still finds it
# on request.
# All or none, so a re-check of one function says what a fresh check would (see Module.update).
SUGGEST_OPCODES_UP_TO = 1000
SUGGEST_IDS_UP_TO = 1000  # the same for undefined ids (each compared with the ids visible there)
# The same for the other unknown names: enumerants, extended instructions, OpSpecConstantOp's
# opcodes.
SUGGEST_NAMES_UP_TO = 1000


# What an instruction is to _build, by its opname: bits of _role (0 for most: an instruction of a
# block's body).
# Final: the compiled build makes each a constant.
_INDEX: Final = 1
_IMPORT: Final = 2
_FUNCTION: Final = 4
_FUNCTION_END: Final = 8
_LABEL: Final = 16
_MERGE: Final = 32
_TERMINATOR: Final = 64
_CALL: Final = 128
_VARIABLE: Final = 256
_MODULE_LEVEL: Final = 512
# _build offers the GIL (let_others_run) on each line whose number has these low bits all set: once
# per 1,024 lines
_OFFER_BITS: Final = 1023


def _role(op: str, grammar_inst: Instruction | None) -> int:
    """The bits of what _build does with an instruction besides filing its definition and uses."""
    cls = grammar_inst.cls if grammar_inst is not None else None
    return (
        (_INDEX if op in _INDEXED or op == "OpExtInstImport" else 0)
        | (_IMPORT if op == "OpExtInstImport" else 0)
        | (_FUNCTION if op == "OpFunction" else 0)
        | (_FUNCTION_END if op == "OpFunctionEnd" else 0)
        | (_LABEL if op == "OpLabel" else 0)
        | (_MERGE if op in ("OpSelectionMerge", "OpLoopMerge") else 0)
        | (_TERMINATOR if op in TERMINATORS else 0)
        | (_CALL if op == "OpFunctionCall" else 0)
        | (_VARIABLE if op in ("OpVariable", "OpUntypedVariableKHR") else 0)
        # Misplaced in a body: its function is foreign (see Function.foreign).
        | (
            _MODULE_LEVEL
            if cls in _MODULE_LEVEL_CLASSES and (cls not in _HEADER_CLASSES or _header(op, grammar_inst))
            else 0
        )
    )


# Tests subclass it to act inside an update (where a worker thread may read): the compiled build
# admits such a subclass only when told.
@mypyc_attr(allow_interpreted_subclasses=True)
class Module:
    def __init__(self, doc: Document, grammar: Grammar, version: tuple[int, int]):
        self.doc = doc
        self.grammar = grammar
        self.version = version
        self.env: str | None = None  # the target env name, when one was given or the module states one
        self.stated: Stated | None = None  # what the module states about its env (None: an env was given)
        self.insts: list[Inst] = []
        self.inst_at = ByLine([None] * len(doc.lines))  # by line number
        self.defs: dict[str, Inst] = {}  # first definition of each id
        self.duplicates: list[Inst] = []
        # The instruction naming each id, once per operand that names it, in line order (see references)
        # Each a tuple once built, half a list's size for an id used once (most ids); an edit that adds
        # to it makes it a list (see _index, _unindex).
        self.uses: dict[str, list[Inst] | tuple[Inst, ...]] = {}
        self.names: dict[str, str] = {}  # OpName
        self.decorations: dict[str, list[Inst]] = {}
        self.capabilities: dict[str, Inst] = {}
        self.extensions: dict[str, Inst] = {}
        self.ext_imports: dict[str, str] = {}
        self._imports_in_order: list[tuple[int, str, str]] = []  # (line, id, set name)
        self.entry_points: dict[str, EntryPoint] = {}
        self.functions: list[Function] = []
        self.function_of: dict[str, Function] = {}
        self.unknown_opcodes: Counter[str] = Counter()  # lines per unknown opcode
        self.undefined_ids = 0  # distinct ids used and never defined
        self.unknown_names: Counter[tuple[str, str]] = Counter()  # problems per (pool, unknown name)
        self._ints: dict[str | None, int | None] = {}
        self.facts: dict[tuple, object] = {}  # see model.facts: kept across in-place updates
        self.rewrites = 0  # even while the model is steady, odd while `update` rewrites it (model.facts.keeps)
        self.generation: int | None = None  # the document generation checked; None while updating
        self._by_op: dict[str, list[Inst]] | None = None  # built with the model, then kept current
        self._function_lines: list[int] = []
        with building(len(doc.texts)):
            self._build()
        self.declared_caps = grammar.implied_capabilities(self.capabilities)

    # -- building ---------------------------------------------------------
    def _build(self) -> None:
        fn: Function | None = None
        block: Block | None = None
        grammar, ext_imports, insts = self.grammar, self.ext_imports, self.insts
        inst_at: list[Inst | None] = self.inst_at  # as a list: the compiled build stores natively
        defs, uses, duplicates = self.defs, self.uses, self.duplicates
        templates, new = templates_of(grammar), tuple.__new__
        # Each opname's _role, found once per build, and its instructions (with_op's index: built
        # here, before a fork shares it).
        per_op: dict[str, tuple[int, list[Inst]]] = {}
        same_text: dict[str, Match] = {}  # see below
        body: list[Inst] = []
        m: Match
        tok: Token  # typed: the compiled build reads a Token's fields as tuple items
        for n, line in enumerate(self.doc.lines):
            if n & _OFFER_BITS == _OFFER_BITS:
                let_others_run()
            fields: LineFields = line  # (see LineFields)
            if fields.opcode is None:
                continue
            shape = fields.shape
            t = templates.get(shape) if shape is not None else None
            if t is not None:  # match's first case, made straight into the Inst
                gi, op, kinds, enums, rest, last = t
                m = inst = Inst(gi, (), rest, n, line, op)
                # A clean match fills one operand per token. A line with a shape is a plain Line, its
                # operands its items after LineFields (read by index: .operands is a property call,
                # and a slice of a tuple subclass a generic one in the compiled build).
                row: tuple[object, ...] = line
                pairs = []
                for k in range(len(kinds)):
                    tok = row[k + 4]  # type: ignore[assignment]  # (a Token)
                    # operands_of's Operands, each shared with the previous line of this shape that
                    # has the same token in its slot (see _templates)
                    pair = last[k]
                    if pair is None or pair[0] is not tok:
                        if enums is None:
                            pair = new(Operand, (tok, kinds[k]))
                        else:
                            pair = new(enums[0][k], (tok, kinds[k], *enums[1][k]))
                        last[k] = pair
                    pairs.append(pair)
                    _file_use(uses, tok, inst)
                inst.operands = tuple(pairs)
            else:
                # A line without ids matches alike wherever it is (no import can resolve it): its
                # Match is shared by the lines of its text (OpReturn, OpFunctionEnd...), in this
                # build only (a process-wide table would keep every text it met).
                text = fields.text
                idless = "%" not in text
                found = same_text.get(text) if idless else None
                if found is None:
                    found = match(grammar, line, ext_imports)
                    if idless:
                        same_text[text] = found
                m = inst = make_inst(n, line, found)
                op = inst.opname
                if m.inst is None or m.problems:
                    self._index_problems(inst)  # (a clean match has none)
                for operand in m.operands:
                    _file_use(uses, operand.token, inst)
            insts.append(inst)
            inst_at[n] = inst
            seen = per_op.get(op)
            if seen is None:
                role = _role(op, m.inst)
                per_op[op] = (role, [inst])
            else:
                role = seen[0]
                seen[1].append(inst)
            result = fields.result
            if result is not None and defs.setdefault(result.text, inst) is not inst:
                duplicates.append(inst)
            if not role:  # most lines: an instruction of a block's body
                if block is not None:
                    body.append(inst)
                continue
            if role & _INDEX and m.operands:
                if role & _IMPORT:
                    if result is not None:
                        ext_imports[result.text] = set_name = string_value(m.operands[0].token.text)
                        self._imports_in_order.append((n, result.text, set_name))
                else:
                    self._index_module(inst)
            if role & _FUNCTION:
                # A function still open: its structure.function-end lands on this line.
                fn = Function(inst.result or "", n, n, inst, foreign=fn is not None)
                block = None
                self.functions.append(fn)
                if inst.result:
                    self.function_of[inst.result] = fn
            elif role & _FUNCTION_END:
                if fn:
                    fn.end_line = n
                fn = block = None
            elif fn is not None:
                if role & _MODULE_LEVEL or (role & _VARIABLE and all(t.text != "Function" for t in line.operands)):
                    fn.foreign = True
                if role & _LABEL:
                    block = Block(inst.result or "", n, inst, body := [])
                    fn.blocks.append(block)
                    fn.labels.setdefault(block.label, block)
                elif block is not None:
                    body.append(inst)
                    if role & _MERGE:
                        block.merge = inst
                    elif role & _TERMINATOR:
                        block.terminator = inst
                        block.insts = tuple(body)
                        block = None
                if role & _CALL:
                    callee = inst.ids(skip_type=True)
                    if callee:
                        fn.calls.append((callee[0].token.text, inst))
        undefined = 0
        for id_, users in uses.items():
            if id_ not in defs:
                undefined += 1
            if type(users) is list:
                uses[id_] = tuple(users)  # no list's header and spare room (an edit makes it a list again)
        self.undefined_ids = undefined
        self._by_op = {op: seen[1] for op, seen in per_op.items()}
        self._function_lines = [f.line for f in self.functions]  # for function_at's bisection
        # An interface listing an id defined inside a function: the entry rules report on that line.
        for ep in self.entry_points.values():
            for o in [o for o in ep.inst.match.operands if o.is_id][1:]:
                d = self.defs.get(o.token.text)
                f = self.function_at(d.line) if d is not None else None
                if f is not None:
                    f.foreign = True

    def _index(self, inst: Inst) -> None:
        if self._by_op is not None:  # an in-place update after with_op built the index
            insort(self._by_op.setdefault(inst.opname, []), inst, key=_inst_line)
        m = inst.match
        self._index_problems(inst)
        result = inst.src.result
        if result is not None:
            res = result.text
            if res in self.defs:
                self.duplicates.append(inst)
            else:
                self.defs[res] = inst
                if self.uses.get(res):
                    self.undefined_ids -= 1
        line = inst.line
        uses = self.uses
        ops = m.operands
        for op in ops:
            tok = op.token
            if tok.kind == "ID":
                lst = uses.get(tok.text)
                if isinstance(lst, tuple):
                    lst = uses[tok.text] = list(lst)
                if not lst:
                    if lst is None:
                        lst = uses[tok.text] = []
                    if tok.text not in self.defs:
                        self.undefined_ids += 1
                    lst.append(inst)
                elif lst[-1].line <= line:
                    lst.append(inst)
                else:  # an incremental update re-indexes a line in the middle
                    insort(lst, inst, key=_inst_line)
        if inst.opname in _INDEXED and ops:
            self._index_module(inst)

    def _index_problems(self, inst: Inst) -> None:
        if inst.match.inst is None:
            self.unknown_opcodes[inst.opname] += 1
        for p in inst.match.problems:
            if p.pool:
                self.unknown_names[p.pool, inst.src.text[p.start : p.end]] += 1

    def _index_module(self, inst: Inst) -> None:
        """Capabilities, extensions, names, decorations, entry points and their modes."""
        opname, ops = inst.opname, inst.match.operands
        if opname == "OpCapability":
            self.capabilities.setdefault(ops[0].token.text, inst)
        elif opname == "OpExtension":
            self.extensions.setdefault(string_value(ops[0].token.text), inst)
        elif opname == "OpName":
            if len(ops) >= 2:
                self.names.setdefault(ops[0].token.text, string_value(ops[1].token.text))
        elif opname in _DECORATIONS:
            self.decorations.setdefault(ops[0].token.text, []).append(inst)
        elif opname == "OpEntryPoint":
            if len(ops) >= 3:
                ep = EntryPoint(ops[1].token.text, string_value(ops[2].token.text), ops[0].token.text, inst)
                self.entry_points.setdefault(ep.id, ep)
        elif opname in ("OpExecutionMode", "OpExecutionModeId"):
            target = self.entry_points.get(ops[0].token.text)
            if target:
                target.modes.append(inst)

    # -- incremental update -------------------------------------------------
    def function_at(self, line: int) -> Function | None:
        i = bisect_right(self._function_lines, line) - 1
        if i >= 0 and self.functions[i].line <= line <= self.functions[i].end_line:
            return self.functions[i]
        return None

    def scoped(self, scope: Function | None) -> list[Inst]:
        """The instructions a check looks at: all, or one function's."""
        return self.insts if scope is None else self.insts_in(scope)

    def with_op(self, opnames: Collection[str], scope: Function | None = None) -> list[Inst]:
        """The instructions (all, or one function's) with one of these opnames, in line order: checks
        that judge a few opcodes need not walk every instruction."""
        if self._by_op is None:
            by_op: dict[str, list[Inst]] = {}
            for inst in self.insts:
                lst = by_op.get(inst.opname)
                if lst is None:
                    by_op[inst.opname] = [inst]
                else:
                    lst.append(inst)
            self._by_op = by_op
        out: list[Inst] = []
        for name in dict.fromkeys(opnames):  # an opname named twice gives its instructions once
            lst = self._by_op.get(name)
            if not lst:
                continue
            if scope is not None:
                lst = lst[
                    bisect_left(lst, scope.line, key=_inst_line) : bisect_right(lst, scope.end_line, key=_inst_line)
                ]
            out += lst
        if len(opnames) > 1:
            out.sort(key=_inst_line)
        return out

    def insts_in(self, fn: Function) -> list[Inst]:
        lo = bisect_left(self.insts, fn.line, key=_inst_line)
        hi = bisect_right(self.insts, fn.end_line, key=_inst_line)
        return self.insts[lo:hi]

    def outside_functions(self) -> list[Inst]:
        """Module-level instructions: the gaps between functions, found by bisection."""
        return _outside_functions(self)

    def _declares_line(self, line: Line) -> bool:
        if line.opcode is None:
            return False
        grammar_inst = self.grammar.instruction(line.opcode.text)
        return _declares(grammar_inst.name if grammar_inst else line.opcode.text, grammar_inst)

    def update(self, lines: set[int]) -> Function | None:
        """Catch up with edits to `lines` (same line count) inside one function's body.

        Returns that function, or None when the edit reaches further and the model must be rebuilt:
        structural instructions, a definition read outside the function, or a change in which
        module-level variables the function names. So a check of one function (`scope`) may read
        anything outside function bodies, and a check of the whole module may read, inside a body,
        its structure (blocks, merges, terminators, calls, variables) and the module-level variables it
        names, but nothing else.
        """
        fn = None
        for n in lines:
            f = self.function_at(n)
            if f is None or f.foreign or n in (f.line, f.end_line) or (fn is not None and f is not fn):
                return None
            fn = f
            old, new = self.inst_at.get(n), self.doc.lines[n]
            if self.doc.span[n] != 1 or (old and _declares(old.opname, old.grammar_inst)) or self._declares_line(new):
                return None
            # DebugFunctionDefinition names a function for the outline, which is kept for the model's life.
            if "DebugFunctionDefinition" in self.doc.texts[n] or (old and "DebugFunctionDefinition" in old.src.text):
                return None
            if new.opcode is not None and self._block_at(f, n) is None:
                return None  # between blocks: structure changes
            old_res = old.result if old else None
            new_res = new.result.text if new.result and new.opcode else None
            if new_res and new_res != old_res and new_res in self.defs:
                return None  # would duplicate an id defined elsewhere
            if old_res and old_res != new_res and any(d.result == old_res for d in self.duplicates):
                return None  # another definition of it becomes the first, wherever it is
            # What the line defines may be read outside this function, where nothing is re-checked.
            # Debug instructions (OpName, OpLine...) read only that the id exists: when its name
            # stays, they read nothing that changed.
            if any(self._used_outside(r, f, names_read=old_res != new_res) for r in {old_res, new_res} if r):
                return None
            # Which global variables a function references is read at module level (an entry point's
            # interface must list them): an edit that changes it rebuilds.
            if self._globals_in(old.src if old else None) != self._globals_in(new):
                return None
        if fn is None or self.suggests_opcodes() != (self._unknown_opcodes_after(lines) <= SUGGEST_OPCODES_UP_TO):
            return None
        suggesting = self.suggests_ids(), self.suggests_names()
        self.rewrites += 1
        try:
            for n in sorted(lines):
                self._replace_line(fn, n)
            self._ints.clear()
        finally:
            self.rewrites += 1
        if (self.suggests_ids(), self.suggests_names()) != suggesting:
            return None  # the messages elsewhere change: a fresh module (this one is dropped)
        return fn

    def suggests_opcodes(self) -> bool:
        """Whether unknown opcodes' diagnostics name the closest opcode (SUGGEST_OPCODES_UP_TO)."""
        return len(self.unknown_opcodes) <= SUGGEST_OPCODES_UP_TO

    def suggests_ids(self) -> bool:
        """Whether undefined ids' diagnostics name the closest ids (SUGGEST_IDS_UP_TO)."""
        return self.undefined_ids <= SUGGEST_IDS_UP_TO

    def suggests_names(self) -> bool:
        """Whether unknown enumerants', extended instructions' and OpSpecConstantOp opcodes'
        diagnostics name the closest ones (SUGGEST_NAMES_UP_TO distinct names)."""
        return len(self.unknown_names) <= SUGGEST_NAMES_UP_TO

    def _unknown_opcodes_after(self, lines: set[int]) -> int:
        """How many distinct unknown opcodes the module names once `lines` are replaced."""
        delta: Counter[str] = Counter()
        for n in lines:
            old, new = self.inst_at.get(n), self.doc.lines[n].opcode
            if old is not None and old.match.inst is None:
                delta[old.opname] -= 1
            if new is not None and self.grammar.instruction(new.text) is None:
                delta[new.text] += 1
        have = self.unknown_opcodes
        return len(have) + sum((have[w] + d > 0) - (have[w] > 0) for w, d in delta.items())

    def _globals_in(self, line: Line | None) -> set[str]:
        """The module-level OpVariables a line names."""
        if line is None or line.opcode is None:
            return set()
        out = set()
        for tok in line.operands:
            if tok.kind == "ID":
                d = self.defs.get(tok.text)
                if d is not None and d.opname == "OpVariable" and self.function_at(d.line) is None:
                    out.add(tok.text)
        return out

    def _used_outside(self, id_: str, f: Function, names_read: bool) -> bool:
        uses = self.uses.get(id_)
        if not uses or (f.line <= uses[0].line and uses[-1].line <= f.end_line):
            return False  # uses are in line order: none outside
        return any(
            not f.line <= i.line <= f.end_line
            and (names_read or i.grammar_inst is None or i.grammar_inst.cls != "Debug")
            for i in uses
        )

    def _block_at(self, fn: Function, n: int) -> Block | None:
        i = bisect_right(fn.blocks, n, key=lambda b: b.line) - 1
        if i < 0:
            return None
        b = fn.blocks[i]
        if b.terminator is not None and n > b.terminator.line:
            return None
        return b

    def _imports_before(self, n: int) -> dict[str, str]:
        """The sets an instruction on line n can name, as the build saw them: an import further
        down (a forward reference, which id.forward-reference reports) does not resolve its
        instruction's operands there, so it must not here either."""
        out: dict[str, str] = {}
        for line, id_, name in self._imports_in_order:
            if line >= n:
                break
            out[id_] = name
        return out

    def _replace_line(self, fn: Function, n: int) -> None:
        old = self.inst_at.pop(n, None)
        block = self._block_at(fn, n)
        pos = bisect_left(self.insts, n, key=lambda i: i.line)
        if old is not None:
            del self.insts[pos]
            self._unindex(old)
            if block is not None:
                block.insts = [i for i in block.insts if i is not old]
        line = self.doc.lines[n]
        if line.opcode is None:
            return
        inst = make_inst(n, line, match(self.grammar, line, self._imports_before(n)))
        self.insts.insert(pos, inst)
        self.inst_at[n] = inst
        self._index(inst)
        if block is not None:
            k = bisect_left(block.insts, n, key=lambda i: i.line)
            block.insts = [*block.insts[:k], inst, *block.insts[k:]]

    def _unindex(self, inst: Inst) -> None:
        if self._by_op is not None:
            lst = self._by_op.get(inst.opname, [])
            lo = bisect_left(lst, inst.line, key=_inst_line)
            hi = bisect_right(lst, inst.line, key=_inst_line)
            lst[lo:hi] = [i for i in lst[lo:hi] if i is not inst]
        if inst.match.inst is None:
            self.unknown_opcodes[inst.opname] -= 1
            if not self.unknown_opcodes[inst.opname]:
                del self.unknown_opcodes[inst.opname]
        for p in inst.match.problems:
            if p.pool:
                key = (p.pool, inst.src.text[p.start : p.end])
                self.unknown_names[key] -= 1
                if not self.unknown_names[key]:
                    del self.unknown_names[key]
        res = inst.result
        if res and self.defs.get(res) is inst:
            del self.defs[res]
            if self.uses.get(res):
                self.undefined_ids += 1
        self.duplicates[:] = [d for d in self.duplicates if d is not inst]
        for op in inst.match.operands:
            if op.token.kind == "ID":
                uses = self.uses.get(op.token.text)
                if isinstance(uses, tuple):
                    uses = self.uses[op.token.text] = list(uses)
                if uses:
                    # The line's uses, found by bisection: an id such as %int_1 may be used 10,000 times.
                    lo = bisect_left(uses, inst.line, key=_inst_line)
                    hi = bisect_right(uses, inst.line, key=_inst_line)
                    uses[lo:hi] = [u for u in uses[lo:hi] if u is not inst]
                    if not uses and op.token.text not in self.defs:
                        self.undefined_ids -= 1

    # -- queries ----------------------------------------------------------
    def references(self, id_: str, uses: Sequence[Inst] | None = None) -> list[tuple[Inst, Operand]]:
        """Each operand naming the id, with its instruction, in line order: from `uses[id_]`, or
        from the given part of it (the index keeps no pair per use: 230k at 100k lines)."""
        out: list[tuple[Inst, Operand]] = []
        last = None
        for inst in self.uses.get(id_, ()) if uses is None else uses:
            if inst is not last:
                last = inst
                out += [(inst, op) for op in inst.match.operands if op.token.kind == "ID" and op.token.text == id_]
        return out

    def definition(self, id_: str | None) -> Inst | None:
        return self.defs.get(id_) if id_ else None

    def type_of(self, id_: str | None) -> Inst | None:
        """The type instruction of a value id (the id itself when it is a type)."""
        d = self.defs.get(id_) if id_ else None  # (definition, inlined: checks ask this per operand)
        if d is None:
            return None
        if d.is_type:
            return d
        rt = d.result_type
        return self.defs.get(rt) if rt else None

    def strip_pointer(self, t: Inst | None) -> Inst | None:
        if t is not None and t.opname == "OpTypePointer":
            ids = t.ids()
            return self.definition(ids[0].token.text) if ids else None
        return t

    def int_value(self, id_: str | None) -> int | None:
        """The value of an OpConstant/OpSpecConstant of integer type, when known."""
        try:
            return self._ints[id_]
        except KeyError:
            rewrites = self.rewrites
            v = self._int_value(id_)
            if keeps(self, rewrites):
                self._ints[id_] = v
            return v

    def _int_value(self, id_: str | None) -> int | None:
        d = self.definition(id_)
        if d is None or d.opname not in ("OpConstant", "OpSpecConstant"):
            return None
        t = self.definition(d.result_type)
        text = d.literal(0)
        if t is None or t.opname != "OpTypeInt" or text is None:
            return None
        return int_value(text)

    def allows(self, item: Instruction | Enumerant) -> bool:
        """Whether the module enables an instruction or enumerant (see model.enablement)."""
        return lacks(self, item) is None

    def spelled(self, op: Operand) -> tuple[str, int, str] | None:
        """A Scope or Memory Semantics <id> operand as (kind, value, names), when its constant is known."""
        kind = ENUM_OF_ID.get(op.grammar_operand.kind)
        if kind is None or op.token.kind != "ID":
            return None
        value = self.int_value(op.token.text)
        name = self.grammar.spell(kind, value) if value is not None else None
        return (kind, value, name) if value is not None and name else None

    def is_constant(self, id_: str | None) -> bool:
        d = self.definition(id_)
        return d is not None and d.grammar_inst is not None and d.grammar_inst.cls == "Constant-Creation"

    def has_decoration(self, id_: str, name: str) -> Inst | None:
        for inst in self.decorations.get(id_, []):
            for op in inst.match.operands:
                if any(e.name == name for e in op.enumerants):
                    return inst
        return None

    def call_tree(self, root: str) -> dict[str, tuple[str, Inst, int] | None]:
        """Functions statically reachable from `root`: each with the caller and call site that first
        reaches it and its depth (None for the root). Links, not paths: a chain n calls deep would
        hold n*n/2 sites as paths."""
        seen: dict[str, tuple[str, Inst, int] | None] = {root: None}
        stack = [(root, 0)]
        while stack:
            fid, depth = stack.pop()
            f = self.function_of.get(fid)
            if f is None:
                continue
            for callee, site in f.calls:
                if callee not in seen:
                    seen[callee] = (fid, site, depth + 1)
                    stack.append((callee, depth + 1))
        return seen

    @staticmethod
    def call_path(tree: dict[str, tuple[str, Inst, int] | None], fid: str, limit: int) -> tuple[list[Inst], int]:
        """The last `limit` call sites on the way from the tree's root to `fid`, and how many precede them."""
        sites: list[Inst] = []
        link = tree.get(fid)
        depth = link[2] if link else 0
        while link is not None and len(sites) < limit:
            sites.append(link[1])
            link = tree.get(link[0])
        return sites[::-1], depth - len(sites)

    def name_of(self, id_: str) -> str:
        return self.names.get(id_, id_)


def build(doc: Document, grammar: Grammar, version: tuple[int, int]) -> Module:
    return Module(doc, grammar, version)


@module_fact
def _outside_functions(m: Module) -> list[Inst]:
    # One walk over the instructions (in line order), not two bisections per function: a bisection's
    # key is a call for each step, which cost more than the walk's plain reads of each line.
    out: list[Inst] = []
    insts = m.insts
    n = len(insts)
    k = 0
    for f in m.functions:
        start, end = f.line, f.end_line
        while k < n and insts[k].line < start:
            out.append(insts[k])
            k += 1
        while k < n and insts[k].line <= end:
            k += 1
    return out + insts[k:]
