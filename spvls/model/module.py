"""The semantic model of a module: what each id is, and how the code is shaped.

Built from a document's parsed lines; no protocol types here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..spec.grammar import Grammar, Instruction
from ..syntax.document import Document
from ..syntax.parser import Line, Token
from .operands import Match, Operand, match


@dataclass(slots=True)
class Inst:
    """One instruction line with its operands matched to the grammar."""

    line: int
    src: Line
    match: Match

    @property
    def spec(self) -> Instruction | None:
        return self.match.inst

    @property
    def opname(self) -> str:
        """The canonical name (aliases such as OpDecorateStringGOOGLE resolved)."""
        if self.match.inst is not None:
            return self.match.inst.name
        return self.src.opcode.text if self.src.opcode else ""

    @property
    def result(self) -> str | None:
        return self.src.result.text if self.src.result else None

    @property
    def result_type(self) -> str | None:
        for op in self.match.operands:
            if op.spec.kind == "IdResultType" and op.is_id:
                return op.token.text
        return None

    def operand(self, name: str) -> Operand | None:
        """The operand the grammar names `name` (e.g. 'Component Type')."""
        for op in self.match.operands:
            if op.spec.name == name:
                return op
        return None

    def ids(self, *, skip_type: bool = False) -> list[Operand]:
        return [o for o in self.match.operands if o.is_id and not (skip_type and o.spec.kind == "IdResultType")]

    def literal(self, index: int) -> str | None:
        """The text of the index-th non-id operand."""
        lits = [o for o in self.match.operands if not o.is_id]
        return lits[index].token.text if index < len(lits) else None


@dataclass(slots=True)
class Block:
    label: str
    line: int
    label_inst: Inst | None = None
    insts: list[Inst] = field(default_factory=list)
    merge: Inst | None = None  # OpSelectionMerge / OpLoopMerge
    terminator: Inst | None = None

    @property
    def successors(self) -> list[tuple[str, Token]]:
        t = self.terminator
        if t is None:
            return []
        if t.opname == "OpBranch":
            ids = t.ids()
        elif t.opname == "OpBranchConditional":
            ids = t.ids()[1:3]
        elif t.opname == "OpSwitch":
            ids = t.ids()[1:]
        else:
            return []
        return [(o.token.text, o.token) for o in ids]


@dataclass(slots=True)
class Function:
    id: str
    line: int
    end_line: int
    inst: Inst
    blocks: list[Block] = field(default_factory=list)
    calls: list[tuple[str, Inst]] = field(default_factory=list)  # callee id, call site

    def block(self, label: str) -> Block | None:
        for b in self.blocks:
            if b.label == label:
                return b
        return None


@dataclass(slots=True)
class EntryPoint:
    id: str
    name: str
    model: str
    inst: Inst
    modes: list[Inst] = field(default_factory=list)


TERMINATORS = {"OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue",
               "OpKill", "OpUnreachable", "OpTerminateInvocation", "OpIgnoreIntersectionKHR",
               "OpTerminateRayKHR", "OpEmitMeshTasksEXT"}


class Module:
    def __init__(self, doc: Document, grammar: Grammar, version: tuple[int, int]):
        self.doc = doc
        self.grammar = grammar
        self.version = version
        self.env: str | None = None  # the target env name, when one was given
        self.insts: list[Inst] = []
        self.inst_at: dict[int, Inst] = {}  # by line number
        self.defs: dict[str, Inst] = {}  # first definition of each id
        self.duplicates: list[Inst] = []
        self.uses: dict[str, list[tuple[Inst, Operand]]] = {}
        self.names: dict[str, str] = {}  # OpName
        self.decorations: dict[str, list[Inst]] = {}
        self.capabilities: dict[str, Inst] = {}
        self.extensions: dict[str, Inst] = {}
        self.ext_imports: dict[str, str] = {}
        self.entry_points: dict[str, EntryPoint] = {}
        self.functions: list[Function] = []
        self.function_of: dict[str, Function] = {}
        self._build()
        self.declared_caps = grammar.implied_capabilities(self.capabilities)

    # -- building ---------------------------------------------------------
    def _build(self) -> None:
        fn: Function | None = None
        block: Block | None = None
        for n, line in enumerate(self.doc.lines):
            if line.opcode is None:
                continue
            if line.opcode.text == "OpExtInstImport" and line.result and line.operands:
                self.ext_imports[line.result.text] = line.operands[0].text.strip('"')
            inst = Inst(n, line, match(self.grammar, line, self.ext_imports))
            self.insts.append(inst)
            self.inst_at[n] = inst
            self._index(inst)
            op = inst.opname
            if op == "OpFunction":
                fn = Function(inst.result or "", n, n, inst)
                block = None
                self.functions.append(fn)
                if inst.result:
                    self.function_of[inst.result] = fn
            elif op == "OpFunctionEnd":
                if fn:
                    fn.end_line = n
                fn = block = None
            elif fn is not None:
                if op == "OpLabel":
                    block = Block(inst.result or "", n, inst)
                    fn.blocks.append(block)
                elif block is not None:
                    block.insts.append(inst)
                    if op in ("OpSelectionMerge", "OpLoopMerge"):
                        block.merge = inst
                    elif op in TERMINATORS:
                        block.terminator = inst
                        block = None
                if op == "OpFunctionCall":
                    callee = inst.ids(skip_type=True)
                    if callee:
                        fn.calls.append((callee[0].token.text, inst))

    def _index(self, inst: Inst) -> None:
        res = inst.result
        if res:
            if res in self.defs:
                self.duplicates.append(inst)
            else:
                self.defs[res] = inst
        for op in inst.match.operands:
            if op.is_id:
                self.uses.setdefault(op.token.text, []).append((inst, op))
        op = inst.opname
        ops = inst.match.operands
        if op == "OpCapability" and ops:
            self.capabilities.setdefault(ops[0].token.text, inst)
        elif op == "OpExtension" and ops:
            self.extensions.setdefault(ops[0].token.text.strip('"'), inst)
        elif op == "OpName" and len(ops) >= 2:
            self.names.setdefault(ops[0].token.text, ops[1].token.text.strip('"'))
        elif op in ("OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString") and ops:
            self.decorations.setdefault(ops[0].token.text, []).append(inst)
        elif op == "OpEntryPoint" and len(ops) >= 3:
            ep = EntryPoint(ops[1].token.text, ops[2].token.text.strip('"'), ops[0].token.text, inst)
            self.entry_points.setdefault(ep.id, ep)
        elif op in ("OpExecutionMode", "OpExecutionModeId") and ops:
            ep = self.entry_points.get(ops[0].token.text)
            if ep:
                ep.modes.append(inst)

    # -- queries ----------------------------------------------------------
    def definition(self, id_: str | None) -> Inst | None:
        return self.defs.get(id_) if id_ else None

    def type_of(self, id_: str | None) -> Inst | None:
        """The type instruction of a value id (the id itself when it is a type)."""
        d = self.definition(id_)
        if d is None:
            return None
        if d.opname.startswith("OpType"):
            return d
        return self.definition(d.result_type)

    def strip_pointer(self, t: Inst | None) -> Inst | None:
        if t is not None and t.opname == "OpTypePointer":
            ids = t.ids()
            return self.definition(ids[0].token.text) if ids else None
        return t

    def int_value(self, id_: str | None) -> int | None:
        """The value of an OpConstant/OpSpecConstant of integer type, when known."""
        d = self.definition(id_)
        if d is None or d.opname not in ("OpConstant", "OpSpecConstant"):
            return None
        t = self.definition(d.result_type)
        text = d.literal(0)
        if t is None or t.opname != "OpTypeInt" or text is None:
            return None
        try:
            return int(text, 0)
        except ValueError:
            return None

    def is_constant(self, id_: str | None) -> bool:
        d = self.definition(id_)
        return d is not None and d.spec is not None and d.spec.cls == "Constant-Creation"

    def has_decoration(self, id_: str, name: str) -> Inst | None:
        for inst in self.decorations.get(id_, []):
            for op in inst.match.operands:
                if any(e.name == name for e in op.enumerants):
                    return inst
        return None

    def call_tree(self, root: str) -> dict[str, list[Inst]]:
        """Functions statically reachable from `root`, each with the call path that reaches it."""
        seen: dict[str, list[Inst]] = {root: []}
        stack = [root]
        while stack:
            f = self.function_of.get(stack.pop())
            if f is None:
                continue
            for callee, site in f.calls:
                if callee not in seen:
                    seen[callee] = [*seen[f.id], site]
                    stack.append(callee)
        return seen

    def name_of(self, id_: str) -> str:
        return self.names.get(id_, id_)


def build(doc: Document, grammar: Grammar, version: tuple[int, int]) -> Module:
    return Module(doc, grammar, version)
