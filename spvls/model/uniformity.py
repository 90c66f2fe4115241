"""Uniformity: for every value, how widely the invocations that compute it agree on it, and for every
block, how widely the invocations that run together reach it together — with the chain of ids that
makes a value or a block divergent, back to its source.

Levels, narrowest first: INVOCATION (divergent), GROUP (a derivative group: a quad, or in a fragment
shader the primitive), SUBGROUP, WORKGROUP, ALL (uniform across the draw or
dispatch). A fact is (level, deps): uniform at least to `level`, and, within that, only as uniform as
the parameters (bit 1 << (i + 1)) and the call site's control flow (CALLER) named in `deps`. So each
function is analysed once, alone, from its body and its callees' summaries; a call instantiates the
callee's facts with its arguments and its own control, and an instruction that needs uniform control
flow in a function reached only uniformly through its parameters or its caller becomes a requirement
the function's callers check at the call (as WGSL's analysis does).

The rules (ARCHITECTURE.md states them once; docs/uniformity.md says what a user sees):
- Sources of divergence: Input variables (builtins as `BUILTINS` says), loads of memory other
  invocations may write (Workgroup, writable StorageBuffer, Private and Output: any function may
  store to them), atomics, OpGroupNonUniformElect and the subgroup operations that do not broadcast,
  pointers the analysis cannot follow. Uniform: constants, spec constants, Uniform, UniformConstant
  and PushConstant memory, read-only storage buffers, a Workgroup load between two workgroup barriers.
- A result is as uniform as its operands; a subgroup or group operation that broadcasts is uniform
  across its Execution scope; a Function variable is as uniform as every value stored to it, the
  control flow of each store included; a call's result and the variables it writes through pointer
  parameters are the callee's facts instantiated.
- Control: a conditional branch or switch on a divergent condition makes divergent the blocks from
  its targets up to the merge block of the construct it heads (or, without a merge instruction, its
  loop's merge); a path out of that region to anywhere but that merge (a break, a continue, a return,
  a kill) makes the blocks from the merge up to where that path rejoins divergent as well. Control
  reconverges at merge blocks; at continue targets only under MaximallyReconvergesKHR (without it, a
  divergent continue keeps the rest of the loop divergent). After a call of a function that may end
  some invocations (OpKill, OpTerminateInvocation in divergent flow), the rest is divergent. An OpPhi
  is divergent when a predecessor is reached less uniformly than its block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..compiled import let_others_run
from ..syntax.parser import LineFields
from .cfg import Cfg, cfg_of, continue_target, merge_block
from .facts import keeps, module_fact
from .module import TERMINATORS, Function, Inst, Module

# Final: the compiled build reads a final name as a constant, not from the module's dict.
INVOCATION: Final = 0
GROUP: Final = 1
SUBGROUP: Final = 2
WORKGROUP: Final = 3
ALL: Final = 4
LEVELS = (
    "each invocation",
    "the derivative group",
    "the subgroup",
    "the workgroup",
    "the whole draw or dispatch",
)
# What a Scope enumerant spans, as a level.
SCOPE_LEVEL: Final = {
    "Invocation": INVOCATION,
    "Subgroup": SUBGROUP,
    "Workgroup": WORKGROUP,
    "QueueFamily": ALL,
    "Device": ALL,
    "CrossDevice": ALL,
    "ShaderCallKHR": INVOCATION,
}
CALLER: Final = 1
Fact = tuple[int, int]  # (level, deps)
UNIFORM: Final[Fact] = (ALL, 0)

# Built-in inputs uniform across more than one invocation (the Vulkan built-in variables chapter says
# what each holds); every other Input variable differs per invocation. A test keeps the names the
# grammar's BuiltIn enumerants.
BUILTINS = {
    "WorkgroupId": WORKGROUP,
    "NumWorkgroups": ALL,
    "WorkgroupSize": ALL,
    "EnqueuedWorkgroupSize": ALL,
    "GlobalSize": ALL,
    "SubgroupSize": ALL,
    "SubgroupMaxSize": ALL,
    "NumSubgroups": WORKGROUP,
    "NumEnqueuedSubgroups": WORKGROUP,
    "SubgroupId": SUBGROUP,
    "SubgroupEqMask": INVOCATION,
    "DrawIndex": ALL,
    "BaseVertex": ALL,
    "BaseInstance": ALL,
    # One value for the primitive a fragment shader's derivative group processes.
    "ViewIndex": GROUP,
    "PrimitiveId": GROUP,
    "Layer": GROUP,
    "ViewportIndex": GROUP,
    "FrontFacing": GROUP,
    "DeviceIndex": ALL,
}
# Subgroup operations whose result every active invocation of the scope shares, whatever their
# operands; the other OpGroupNonUniform* results are as uniform as their operands (Elect and the
# scans and the inverse ballot: divergent).
BROADCASTS = {
    "OpGroupNonUniformAll",
    "OpGroupNonUniformAny",
    "OpGroupNonUniformAllEqual",
    "OpGroupNonUniformBroadcast",
    "OpGroupNonUniformBroadcastFirst",
}
# The same among the older group operations, and the subgroup operations that give one value across
# the scope whatever their operands are (a ballot of the active invocations).
_GROUP_BROADCASTS = {"OpGroupAll", "OpGroupAny", "OpGroupBroadcast"}
_COLLECTIVE = {"OpGroupNonUniformBallot"}
DIVERGING = {"OpGroupNonUniformElect", "OpGroupNonUniformInverseBallot"}
_SCANS = {"InclusiveScan", "ExclusiveScan", "PartitionedInclusiveScanNV", "PartitionedExclusiveScanNV"}
_POINTER_OPS = {
    "OpAccessChain",
    "OpInBoundsAccessChain",
    "OpPtrAccessChain",
    "OpInBoundsPtrAccessChain",
    "OpCopyObject",
    "OpBitcast",
}
_TRANSPARENT: Final = {"OpLine", "OpNoLine", "OpNop", "OpExtInst"}
_KILLS: Final = {"OpKill", "OpTerminateInvocation", "OpTerminateRayKHR", "OpIgnoreIntersectionKHR"}
_READ_ONLY = {"Uniform", "UniformConstant", "PushConstant"}
# The terminators that leave the function: all but the branches and OpUnreachable.
_EXITS = TERMINATORS - {"OpBranch", "OpBranchConditional", "OpSwitch", "OpUnreachable"}


def meet(a: Fact, b: Fact) -> Fact:
    """The narrower level, and both deps. `a` or `b` itself when it is that (most meets change
    nothing, and each value's fact is kept: no new tuple)."""
    level, deps = a[0] if a[0] < b[0] else b[0], a[1] | b[1]
    if level == a[0] and deps == a[1]:
        return a
    if level == b[0] and deps == b[1]:
        return b
    return (level, deps)


# The classes made per value, instruction or function write out their __init__ (init=False): the
# compiled build compiles a written one, a dataclass's generated one stays interpreted (and a frozen
# one's, which sets each field through object.__setattr__, is slow in either build). Equality and
# hashing stay the dataclass's.
@dataclass(slots=True, init=False, unsafe_hash=True)
class Why:
    """One link of a chain: where a value or block became less uniform, and the id it came from."""

    line: int
    start: int
    end: int
    text: str
    next: str | None  # the id (or, for a block, the branch's condition) that made it so
    block: str | None  # for a block: the block holding that branch

    def __init__(
        self, line: int, start: int, end: int, text: str, next: str | None = None, block: str | None = None
    ) -> None:
        self.line, self.start, self.end, self.text, self.next, self.block = line, start, end, text, next, block


@dataclass(slots=True, init=False, unsafe_hash=True)
class Need:
    """An instruction that must be reached in control flow uniform across `level`."""

    kind: str  # barrier, derivative, coopmat
    level: int
    inst: Inst
    deps: int  # what the control flow reaching it depends on (in its function)
    via: tuple[Inst, ...]  # the calls that lead to it, outermost first

    def __init__(self, kind: str, level: int, inst: Inst, deps: int = 0, via: tuple[Inst, ...] = ()) -> None:
        self.kind, self.level, self.inst, self.deps, self.via = kind, level, inst, deps, via


@dataclass(eq=False, slots=True, init=False)
class Summary:
    """What callers read of a function: its return value's fact, the facts it stores through
    pointer parameters, the needs its callers must meet at the call, and how uniformly it may end
    the invocations that call it (after a call that ends some, the caller's flow is divergent)."""

    returns: Fact
    writes: dict[int, Fact]
    needs: tuple[Need, ...]
    kills: Fact  # how uniformly it may end invocations (OpKill, OpTerminateInvocation...)

    def __init__(
        self,
        returns: Fact = UNIFORM,
        writes: dict[int, Fact] | None = None,
        needs: tuple[Need, ...] = (),
        kills: Fact = UNIFORM,
    ) -> None:
        self.returns, self.writes, self.needs, self.kills = returns, {} if writes is None else writes, needs, kills

    def key(self) -> tuple:
        return (
            self.returns,
            self.kills,
            tuple(sorted(self.writes.items())),
            tuple((n.kind, n.level, n.deps, n.inst.line, tuple(c.line for c in n.via)) for n in self.needs),
        )


@dataclass(eq=False, slots=True, init=False)
class Uniformity:
    """One function's facts: values and blocks less uniform than the function's entry (others are
    uniform, up to the entry's own control), with why."""

    fn: Function
    values: dict[str, Fact]
    why: dict[str, Why]
    blocks: dict[str, Fact]
    block_why: dict[str, Why]
    params: dict[str, int]  # parameter id -> its index
    summary: Summary
    diverges: dict[str, str]  # header -> where it reconverges (merge)
    leaves: set[str]  # headers some of whose invocations leave before it
    contents: dict[str, Fact]  # variable or pointer parameter -> what loads give
    root: dict[str, str | None]  # pointer -> the variable it points into
    # Needs this function does not meet itself: (need, the control fact that fails it).
    unmet: list[tuple[Need, Fact]]
    # Calls whose callee's need the call fails: (call, need, the instantiated fact).
    calls: list[tuple[Inst, Need, Fact]]

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.values, self.why, self.params = {}, {}, {}
        # What the analysis sets whole when it has any starts as the shared empty containers.
        self.blocks = self.block_why = self.diverges = self.contents = self.root = _NO_ENTRIES
        self.leaves = _NO_LABELS
        self.summary = _UNSUMMARISED
        self.unmet, self.calls = [], []

    def value(self, id_: str) -> Fact:
        return self.values.get(id_, UNIFORM)

    def pointee(self, id_: str) -> str | None:
        """The local variable or pointer parameter a pointer points into, if the analysis tracks it."""
        root = self.root.get(id_)
        return root if root is not None and root in self.contents else None

    def control(self, label: str) -> Fact:
        return self.blocks.get(label, (ALL, CALLER))


# -- module-wide facts (outside function bodies) --------------------------------------------------


@dataclass(slots=True)
class _Globals:
    contents: dict[str, Fact]  # module-level variable -> what a load of it gives
    why: dict[str, Why]
    storage: dict[str, str]  # variable -> storage class
    loads: dict[str, str]  # variable -> why a load of it is as uniform as it is (one text for every load)


@module_fact
def _globals(m: Module) -> _Globals:
    contents: dict[str, Fact] = {}
    why: dict[str, Why] = {}
    storage: dict[str, str] = {}
    loads: dict[str, str] = {}
    for var in m.with_op(("OpVariable",)):
        if m.function_at(var.line) is not None or var.result is None:
            continue
        sc = next((o.enumerants[0].name for o in var.operands if o.enumerants), None)
        if sc is None:
            continue
        storage[var.result] = sc
        loads[var.result] = f"loads {var.result}"
        tok = var.src.result
        start, end = (tok.start, tok.end) if tok else (0, 0)
        name = m.name_of(var.result)
        if sc in _READ_ONLY or (sc == "StorageBuffer" and _read_only(m, var)):
            continue
        if sc == "Input":
            builtin = _builtin(m, var)
            level = BUILTINS.get(builtin, INVOCATION) if builtin else INVOCATION
            if not builtin and m.has_decoration(var.result, "Flat"):
                builtin, level = "a Flat input", GROUP  # one value per primitive
            if level == ALL:
                continue
            contents[var.result] = (level, 0)
            what = (builtin if builtin.startswith("a ") else f"built-in {builtin}") if builtin else "an Input variable"
            why[var.result] = Why(
                var.line,
                start,
                end,
                f"{name}, {what}, uniform only across {LEVELS[level]}"
                if level
                else f"{name}, {what}, different in each invocation",
            )
        else:
            contents[var.result] = (INVOCATION, 0)
            why[var.result] = Why(
                var.line,
                start,
                end,
                f"{name}, {sc} memory "
                + (
                    "that other invocations may write"
                    if sc in ("Workgroup", "StorageBuffer", "PhysicalStorageBuffer")
                    else "each invocation has its own copy of"
                ),
            )
    return _Globals(contents, why, storage, loads)


def _builtin(m: Module, var: Inst) -> str | None:
    """The BuiltIn a variable, or its pointee struct's members, are decorated with."""
    for d in m.decorations.get(var.result or "", ()):
        for op in d.operands:
            for e in op.enumerants:
                if e.kind == "BuiltIn":
                    return e.name
    pointee = m.strip_pointer(m.definition(var.result_type))
    if pointee is not None and pointee.opname == "OpTypeStruct" and pointee.result:
        for d in m.decorations.get(pointee.result, ()):
            for op in d.operands:
                for e in op.enumerants:
                    if e.kind == "BuiltIn":
                        return "a per-vertex block"
    return None


def _read_only(m: Module, var: Inst) -> bool:
    """NonWritable on the variable, or on every member of the struct it holds."""
    if m.has_decoration(var.result or "", "NonWritable"):
        return True
    pointee = m.strip_pointer(m.definition(var.result_type))
    if pointee is None or pointee.opname != "OpTypeStruct" or not pointee.result:
        return False
    members = len(pointee.ids(skip_type=True))
    marked = {
        d.operands[1].token.text
        for d in m.decorations.get(pointee.result, ())
        if d.opname == "OpMemberDecorate"
        and len(d.operands) > 2
        and any(e.name == "NonWritable" for o in d.operands for e in o.enumerants)
    }
    return members > 0 and len(marked) >= members


@module_fact
def _reconverging(m: Module) -> frozenset[str]:
    """Functions every entry point reaching them declares MaximallyReconvergesKHR for."""
    modes: dict[str, bool] = {}
    for ep in m.entry_points.values():
        maximal = any(
            e.name == "MaximallyReconvergesKHR" for mode in ep.modes for o in mode.operands for e in o.enumerants
        )
        for fid in m.call_tree(ep.id):
            modes[fid] = modes.get(fid, True) and maximal
    return frozenset(f for f, yes in modes.items() if yes)


@module_fact
def _derivative_ops(m: Module) -> frozenset[str]:
    """Derivatives and the instructions that take an implicit one, from the grammar's classes."""
    return frozenset(
        name
        for name, i in m.grammar.instructions.items()
        if name == i.name and (i.cls == "Derivative" or name.endswith("ImplicitLod") or name == "OpImageQueryLod")
    )


def needs_of(m: Module, fn: Function, inst: Inst) -> Need | None:
    """What control flow the instruction needs, if any."""
    need = _need(m, inst, _needing_ops(m), _derivative_ops(m), _matrix_types(m), {}, _outer_scopes(m))
    return Need(need[0], need[1], inst) if need is not None else None


def _need(
    m: Module,
    inst: Inst,
    needing: frozenset[str],
    derivatives: frozenset[str],
    matrices: dict[str, int],
    scopes: dict[str, int],
    outer: dict[str, int],
) -> tuple[str, int] | None:
    """needs_of's kind and level, with the module's facts at hand (one function asks for each
    instruction), `scopes` the matrix level of each operand's definition met so far."""
    op = inst.opname
    if op in needing:
        if op in derivatives:
            return "derivative", GROUP
        ex = inst.operand("Execution")
        spelled = m.spelled(ex) if ex is not None else None
        level = SCOPE_LEVEL.get(spelled[2], INVOCATION) if spelled else INVOCATION
        if op == "OpControlBarrier" and level < WORKGROUP:
            return None  # Subgroup or Invocation: the client API defines it in non-uniform control flow
        return ("barrier", level) if level > INVOCATION else None
    if matrices:
        scope = _coopmat_scope(m, inst, matrices, scopes, outer)
        if scope is not None and scope > INVOCATION:
            return "coopmat", scope
    return None


@module_fact
def _needing_ops(m: Module) -> frozenset[str]:
    """Barriers, the older group operations (all need their Execution scope uniform) and derivatives."""
    return frozenset(("OpControlBarrier", *_group_ops(m), *_derivative_ops(m)))


@module_fact
def _matrix_types(m: Module) -> dict[str, int]:
    """Each OpTypeCooperativeMatrixKHR, with the level its Scope operand spans."""
    out: dict[str, int] = {}
    for t in m.with_op(("OpTypeCooperativeMatrixKHR",)):
        ids = t.ids()
        if t.result and len(ids) > 1:
            v = m.int_value(ids[1].token.text)
            name = m.grammar.spell("Scope", v) if v is not None else None
            out[t.result] = SCOPE_LEVEL.get(name or "", SUBGROUP)
    return out


def _coopmat_scope(
    m: Module, inst: Inst, matrices: dict[str, int], scopes: dict[str, int], outer: dict[str, int]
) -> int | None:
    """The level of the cooperative matrix the instruction takes or makes (a pointer to one is not
    one); `scopes` keeps what each operand's definition gave, _NO_MATRIX for none, and
    `outer` (`_outer_scopes`) what the ids defined before the first function gave (constants are
    named again and again, in every function)."""
    rt = _result_type(inst)
    made = matrices.get(rt, _NO_MATRIX) if rt is not None else _NO_MATRIX
    if not m.duplicates:
        # Each id defined once: the instruction is its result's definition, so the operands that
        # name it later read its level here, not through the module's index of every definition
        # (a lookup in a dict of the whole module's ids, for each id of each function).
        res = _result(inst)
        if res is not None:
            scopes[res] = made
    if made != _NO_MATRIX:
        return made
    for o in inst.operands:
        tok = o[0]  # (see _result)
        if tok.kind != "ID":
            continue
        text = tok.text
        level = scopes.get(text)
        if level is None:
            level = outer.get(text)
            if level is None:
                d = m.defs.get(text)
                t = _result_type(d) if d is not None else None
                level = matrices.get(t, _NO_MATRIX) if t is not None else _NO_MATRIX
                if d is not None and m.functions and d.line < m.functions[0].line:
                    outer[text] = level
            scopes[text] = level
        if level != _NO_MATRIX:
            return level
    return None


@module_fact
def _fresh_matrix_lines(m: Module) -> dict[int, frozenset[int]]:
    """_matrix_lines' memo, by `m.rewrites` (only 0 is kept: see there)."""
    return {}


def _matrix_lines(m: Module, matrices: dict[str, int]) -> frozenset[int] | None:
    """The lines of the instructions that name a cooperative matrix type or an id some instruction
    naming one defines, in a model no edit has changed in place (None in any other): _coopmat_scope
    finds a level only there (the type of an id it reads names the matrix type), so a first check
    skips the other instructions. Found through the index of uses, in the instructions' own few,
    once per model: not after an edit in place, where a keystroke would pay it for one function."""
    if m.rewrites != 0:
        return None
    held = _fresh_matrix_lines(m)
    found = held.get(0)
    if found is not None:
        return found
    lines: set[int] = set()
    values: list[str] = []
    uses = m.uses
    for t in matrices:
        for inst in uses.get(t, ()):
            lines.add(inst.line)
            res = _result(inst)
            if res is not None:
                values.append(res)
    for v in values:
        for inst in uses.get(v, ()):
            lines.add(inst.line)
    found = frozenset(lines)
    if keeps(m, 0):
        held[0] = found
    return found


@module_fact
def _outer_scopes(m: Module) -> dict[str, int]:
    """_coopmat_scope's memo of the ids whose first definition comes before the first function:
    lines no in-place edit reaches, so what they gave holds for the module's life (filled as met)."""
    return {}


_NO_MATRIX: Final = -1


def _result_type(inst: Inst) -> str | None:
    """inst.result_type, without its search where the grammar says the instruction has none or
    puts it first (the Result Type is every instruction's first operand when it has one)."""
    g = inst.inst
    if g is not None:
        if not g.has_result_type:
            return None
        ops = inst.operands
        if ops:
            first = ops[0]
            tok = first[0]  # (see _result)
            if tok.kind == "ID" and first[1].kind == "IdResultType":
                return tok.text
    return inst.result_type


def _span(inst: Inst) -> tuple[int, int]:
    """Where a reason about the instruction's result points: its result id (else nothing)."""
    fields: LineFields = inst.src  # (see _result)
    tok = fields.result
    return (tok.start, tok.end) if tok else (0, 0)


def _result(inst: Inst) -> str | None:
    """inst.result, read through LineFields: the compiled build reads a tuple item where a Line's
    field is looked up by name (every instruction of every function is asked). An operand's token
    and grammar operand are read so too in the loops every instruction passes through: `o[0]` and
    `o[1]`, not `o.token` and `o.grammar_operand`."""
    fields: LineFields = inst.src
    tok = fields.result
    return tok.text if tok is not None else None


# What _Analysis._value does with an instruction, by opname; any other's result is as uniform as its
# operands (an atomic's and an Execution-scoped group operation's aside).
_STORE: Final = 0
_CALL: Final = 1
_LABEL: Final = 2
_VARIABLE: Final = 3
_POINTER: Final = 4
_LOAD: Final = 5
_DIVERGES: Final = 6
_PHI: Final = 7
_OPERANDS: Final = 8
_VALUE_KINDS: Final = {
    "OpStore": _STORE,
    "OpFunctionCall": _CALL,
    "OpLabel": _LABEL,
    "OpVariable": _VARIABLE,
    **dict.fromkeys(_POINTER_OPS, _POINTER),
    "OpLoad": _LOAD,
    "OpCooperativeMatrixLoadKHR": _LOAD,
    **dict.fromkeys(DIVERGING, _DIVERGES),
    "OpPhi": _PHI,
}


# -- per function -----------------------------------------------------------------------------------


@module_fact
def _cache(m: Module) -> dict[str, tuple[tuple, Uniformity, int]]:
    """Each function's analysis with what it was computed from (its blocks' instruction lists and its
    callees' summaries), checked by identity and value at each use: an in-place edit gives the edited
    block a new list, so only that function is analysed again, and its callers only when its summary
    changed. Third: the `m.rewrites` at which an analysis asked for from outside (no call chain
    under way) was last found current, else -1."""
    return {}


def analyse(m: Module, fn: Function, _busy: frozenset[str] = frozenset()) -> Uniformity:
    """The function's uniformity (callees first, each once per change)."""
    rewrites = m.rewrites
    cache = _cache(m)
    hit = cache.get(fn.id)
    # Found current since the model last changed: the same again (an analysis is a function of the
    # model and the call chain it is asked in), without its callees' summaries compared once more for
    # each family that reads it.
    if hit is not None and not _busy and hit[2] == rewrites and hit[1].fn is fn:
        return hit[1]
    callees: dict[str, Summary | None] = {}
    for callee, _site in fn.calls:
        if callee in callees:
            continue
        f = m.function_of.get(callee)
        callees[callee] = analyse(m, f, _busy | {fn.id}).summary if f is not None and callee not in _busy else None
    stamp = (tuple(b.insts for b in fn.blocks), tuple((k, s.key() if s else None) for k, s in callees.items()))
    hit = cache.get(fn.id)
    if hit is not None and hit[1].fn is fn and _same(hit[0], stamp):
        if not _busy and hit[2] != rewrites and keeps(m, rewrites):
            cache[fn.id] = (hit[0], hit[1], rewrites)
        return hit[1]
    let_others_run()  # one per function: a module's analyses are made in one go
    u = _Analysis(m, fn, callees).run()
    if keeps(m, rewrites):
        cache[fn.id] = (stamp, u, -1 if _busy else rewrites)
    return u


def cached(m: Module, fn: Function) -> Uniformity | None:
    """The function's last analysis, current or not (what it was before an in-place edit)."""
    hit = _cache(m).get(fn.id)
    return hit[1] if hit is not None and hit[1].fn is fn else None


def _same(a: tuple, b: tuple) -> bool:
    x, y = a[0], b[0]
    if len(x) != len(y):
        return False
    for k in range(len(x)):  # (a loop: compiled, a generator over zip costs more than the comparisons)
        if x[k] is not y[k]:
            return False
    return a[1] == b[1]


def of_module(m: Module) -> dict[str, Uniformity]:
    """Every function's analysis."""
    return {fn.id: analyse(m, fn) for fn in m.functions}


def has_needs(m: Module) -> bool:
    """Whether any instruction of the module needs uniform control flow (else there is nothing to check).
    Not a module fact: it reads function bodies, where an in-place edit may add the first barrier."""
    ops = ("OpControlBarrier", *_derivative_ops(m), "OpTypeCooperativeMatrixKHR", *_group_ops(m))
    return any(m.with_op((op,)) for op in ops)


@module_fact
def _group_ops(m: Module) -> tuple[str, ...]:
    """The group operations of before subgroups (OpGroupAll, OpGroupIAdd, ...): Execution scoped, and
    to be reached uniformly across it."""
    return tuple(
        n
        for n, i in m.grammar.instructions.items()
        if n == i.name
        and n.startswith("OpGroup")
        and not n.startswith("OpGroupNonUniform")
        and any(o.name == "Execution" for o in i.operands)
    )


@dataclass(slots=True)
class _Shared:
    """The module facts every function's analysis reads, fetched with one lookup of the module's
    facts rather than one each."""

    globals: _Globals
    reconverging: frozenset[str]
    needing: frozenset[str]
    derivatives: frozenset[str]
    matrices: dict[str, int]
    outer: dict[str, int]


@module_fact
def _shared(m: Module) -> _Shared:
    return _Shared(
        _globals(m), _reconverging(m), _needing_ops(m), _derivative_ops(m), _matrix_types(m), _outer_scopes(m)
    )


class _Analysis:
    def __init__(self, m: Module, fn: Function, callees: dict[str, Summary | None]):
        self.m, self.fn, self.callees = m, fn, callees
        self.cfg: Cfg = cfg_of(m, fn)
        shared = self.shared = _shared(m)
        self.g = shared.globals
        self.u = Uniformity(fn)
        self.root: dict[str, str | None] = {}  # pointer -> the variable or parameter it points into
        self.contents: dict[str, Fact] = {}  # local variable or pointer parameter -> what loads give
        self.maximal = fn.id in shared.reconverging
        self._enclosed: dict[str, list[tuple[str, str]]] = {}
        self._fenced: dict[str, set[int]] = {}  # block -> its instructions between two workgroup barriers (ids)
        self.killed: dict[str, tuple[Fact, Why]] = {}  # block -> a call in it that may end some invocations
        # What a round of _values read, to know whether another would change anything: the position of
        # the instruction being read for, and where each value, variable's contents and pointer's root
        # was first read; which blocks' control was read; whether a fact changed after it was read.
        self._at = 0
        self._read: dict[str, int] = {}
        self._contents_read: dict[str, int] = {}
        self._root_read: dict[str, int] = {}
        self._control_read: set[str] = set()
        self._stale = False
        self._changed = False  # whether the round changed a value or a variable's contents

    def run(self) -> Uniformity:
        u, m, fn = self.u, self.m, self.fn
        for i, p in enumerate(m.with_op(("OpFunctionParameter",), fn)):
            if p.result:
                u.params[p.result] = i
                u.values[p.result] = (ALL, 1 << (i + 1))
                self.root[p.result] = p.result
                self.contents[p.result] = (ALL, 1 << (i + 1))
        for _ in range(64):  # facts only go down; a few rounds settle any function
            blocks = u.blocks  # (_control makes a new dict: this one stays as the round read it)
            self._values()
            self._control()
            if (not self._changed and u.blocks == blocks) or not self._rereads(blocks):
                break
        self._summarise()
        u.contents, u.root = self.contents, self.root
        _share_empties(u)
        return u

    def _rereads(self, blocks: dict[str, Fact]) -> bool:
        """Whether another round would read anything other than the last one did, and so may change
        something: a value, contents or root that changed after the round read it, or the control of a
        block it read (`blocks`: the control the round read) that _control has changed since. Else the
        next round would make the same calls on the same facts, each a no-op."""
        if self._stale:
            return True
        now = self.u.blocks
        return any(blocks.get(label) != now.get(label) for label in self._control_read)

    # -- values ---------------------------------------------------------------------------------
    def _lower(self, id_: str, f: Fact, why: Why) -> None:
        u = self.u
        old = u.values.get(id_, UNIFORM)
        new = meet(old, f)
        if new != old:
            u.values[id_] = new
            self._changed = True
            if new[0] < old[0] or id_ not in u.why:
                u.why[id_] = why
            if self._read.get(id_, self._at + 1) <= self._at:
                self._stale = True

    def _fact(self, id_: str) -> Fact:
        self._read.setdefault(id_, self._at)
        return self.u.values.get(id_, UNIFORM)

    def _reached(self, label: str) -> Fact:
        """The block's control, as u.control, noting that this round read it."""
        self._control_read.add(label)
        return self.u.control(label)

    def _values(self) -> None:
        self._at = 0
        self._read.clear()
        self._contents_read.clear()
        self._root_read.clear()
        self._control_read.clear()
        self._stale = self._changed = False
        blocks = self.cfg.blocks
        for label in self.cfg.order:
            for inst in blocks[label].insts:
                self._at += 1
                self._value(inst, label)
        self._at += 1  # what _control and _summarise read comes after every change of the round

    def _value(self, inst: Inst, label: str) -> None:
        op = inst.opname
        kind = _VALUE_KINDS.get(op, _OPERANDS)
        if kind == _STORE:
            self._store(inst, label)
            return
        if kind == _CALL:
            self._call(inst, label)
            return
        if kind == _LABEL:
            return
        res = _result(inst)
        if res is None:
            return
        line = inst.line
        if kind == _VARIABLE:
            self._set_root(res, res)
            init = inst.ids(skip_type=True)
            f = self._fact(init[0].token.text) if init else UNIFORM
            if f != UNIFORM:
                start, end = _span(inst)
                self._contents(
                    res, f, Why(line, start, end, f"{res} starts as {init[0].token.text}", init[0].token.text)
                )
            return
        if kind == _POINTER:
            base = self._pointer_operand(inst)
            if base is not None:
                self._set_root(res, self._root(base))
        elif kind == _LOAD:
            ptr = self._pointer_operand(inst)
            if ptr is None:
                return
            f = self._fact(ptr)
            if f != UNIFORM and self._lowers(res, f):
                start, end = _span(inst)
                self._lower(res, f, Why(line, start, end, f"loads through {ptr}", ptr))
            root = self._root(ptr)
            c, text, via = self._loaded(root, inst, label)
            if c != UNIFORM and self._lowers(res, c):
                start, end = _span(inst)
                self._lower(res, c, Why(line, start, end, text, via))
            return
        elif kind == _DIVERGES or (kind == _OPERANDS and op.startswith("OpAtomic")):
            start, end = _span(inst)
            self._lower(
                res, (INVOCATION, 0), Why(line, start, end, f"the result of {op}, different in each invocation")
            )
            return
        elif kind == _PHI:
            self._phi(inst, label)
            return
        elif op.startswith("OpGroup") and inst.operand("Execution") is not None:
            self._group(inst, *_span(inst))
            return
        values, read, at = self.u.values, self._read, self._at
        for o in inst.operands:
            tok = o[0]  # (see _result)
            if tok.kind != "ID":
                continue
            read.setdefault(tok.text, at)
            g = values.get(tok.text)
            if g is not None and o[1].kind != "IdResultType" and self._lowers(res, g):
                start, end = _span(inst)
                self._lower(res, g, Why(line, start, end, f"{op} of {tok.text}", tok.text))

    def _lowers(self, id_: str, f: Fact) -> bool:
        """Whether `_lower(id_, f, ...)` would change the value's fact (else its reason need not be made)."""
        old = self.u.values.get(id_, UNIFORM)
        return meet(old, f) != old

    def _pointer_operand(self, inst: Inst) -> str | None:
        for o in inst.operands:
            tok = o[0]  # (see _result)
            if tok.kind == "ID" and o[1].kind == "IdRef":
                return tok.text
        return None

    def _set_root(self, ptr: str, root: str | None) -> None:
        if ptr not in self.root or self.root[ptr] != root:
            self.root[ptr] = root
            if self._root_read.get(ptr, self._at + 1) <= self._at:
                self._stale = True

    def _root(self, ptr: str) -> str | None:
        self._root_read.setdefault(ptr, self._at)
        if ptr in self.root:
            return self.root[ptr]
        if ptr in self.g.storage:
            return ptr
        d = self.m.definition(ptr)
        if d is not None and d.opname == "OpVariable":
            return ptr
        return None

    def _loaded(self, root: str | None, inst: Inst, label: str) -> tuple[Fact, str, str | None]:
        """What a load through a pointer into `root` gives, and why: the reason's text and the id it names."""
        if root is None and self.m.definition(self._pointer_operand(inst) or "") is None:
            return UNIFORM, "", None  # an undefined pointer: id.undefined says so
        if root is None:
            return (INVOCATION, 0), "a load through a pointer the analysis cannot follow", None
        if root in self.g.storage:
            sc = self.g.storage[root]
            f = self.g.contents.get(root, UNIFORM)
            if sc == "Workgroup" and self._between_barriers(inst, label):
                f = (WORKGROUP, 0)
            return f, self.g.loads[root], root
        self._contents_read.setdefault(root, self._at)
        f = self.contents.get(root, UNIFORM)
        return f, f"loads {root}", root

    def _between_barriers(self, inst: Inst, label: str) -> bool:
        """A Workgroup load right between two workgroup barriers (WGSL's workgroupUniformLoad): every
        invocation of the workgroup reads what the last barrier made visible to all."""
        fenced = self._fenced.get(label)
        if fenced is None:
            fenced = self._fenced[label] = set()
            insts = self.cfg.blocks[label].insts
            if any(i.opname == "OpControlBarrier" for i in insts):
                body = [i for i in insts if i.opname not in _TRANSPARENT]
                barriers = [self._workgroup_barrier(i) for i in body]
                for k in range(1, len(body) - 1):
                    if barriers[k - 1] and barriers[k + 1]:
                        fenced.add(id(body[k]))
        return id(inst) in fenced

    def _workgroup_barrier(self, inst: Inst) -> bool:
        if inst.opname != "OpControlBarrier":
            return False
        ex = inst.operand("Execution")
        spelled = self.m.spelled(ex) if ex is not None else None
        return bool(spelled) and SCOPE_LEVEL.get(spelled[2], 0) >= WORKGROUP  # type: ignore[index]

    def _contents(self, root: str, f: Fact, why: Why) -> None:
        old = self.contents.get(root, UNIFORM)
        new = meet(old, f)
        if new != old:
            self.contents[root] = new
            self._changed = True
            if new[0] < old[0] or root not in self.u.why:
                self.u.why[root] = why
            if self._contents_read.get(root, self._at + 1) <= self._at:
                self._stale = True

    def _store(self, inst: Inst, label: str) -> None:
        ids = inst.ids()
        if len(ids) < 2:
            return
        ptr, val = ids[0].token.text, ids[1].token.text
        root = self._root(ptr)
        if root is None or root in self.g.storage:
            return  # module-level memory: what loads of it give is the storage class's
        ctl = self._reached(label)
        ctl = (ctl[0], ctl[1] & ~CALLER)
        line, start, end = inst.line, ids[1].token.start, ids[1].token.end
        f = self._fact(val)
        if f != UNIFORM:
            self._contents(root, f, Why(line, start, end, f"stores {val}", val))
        a = self._fact(ptr)
        if a != UNIFORM:
            self._contents(root, a, Why(line, start, end, f"stores through {ptr}", ptr))
        if ctl != UNIFORM:
            why = self.u.block_why.get(label)
            self._contents(
                root,
                ctl,
                Why(
                    line, start, end, f"stored in block {label}, reached divergently", why.next if why else None, label
                ),
            )

    def _call(self, inst: Inst, label: str) -> None:
        ids = inst.ids(skip_type=True)
        if not ids:
            return
        callee = ids[0].token.text
        args = [o.token.text for o in ids[1:]]
        s = self.callees.get(callee)
        res = inst.result
        tok = inst.src.result
        start, end = (tok.start, tok.end) if tok else (inst.opcode.start, inst.opcode.end)
        if s is None:
            if res:
                self._lower(
                    res,
                    (INVOCATION, 0),
                    Why(inst.line, start, end, f"the result of {callee}, a function the analysis cannot see"),
                )
            for a in args:
                root = self._root(a)
                if root is not None and root not in self.g.storage:
                    self._contents(
                        root,
                        (INVOCATION, 0),
                        Why(
                            inst.line, start, end, f"a variable passed to {callee}, a function the analysis cannot see"
                        ),
                    )
            return
        if res and s.returns != UNIFORM:
            f = self.instantiate(s.returns, args, label)
            if f != UNIFORM:
                self._lower(
                    res, f, Why(inst.line, start, end, f"returned by {callee}", _culprit(self, s.returns, args))
                )
        if s.kills != UNIFORM:
            f = self.instantiate(s.kills, args, label)
            if f != UNIFORM:
                self.killed[label] = (
                    f,
                    Why(inst.line, start, end, f"calls {callee}, which ends some invocations", None),
                )
        for i, w in s.writes.items():
            if i < len(args):
                root = self._root(args[i])
                if root is not None and root not in self.g.storage:
                    f = self.instantiate(w, args, label)
                    if f != UNIFORM:
                        self._contents(
                            root,
                            (f[0], f[1] & ~CALLER),
                            Why(inst.line, start, end, f"{callee} stores through {args[i]}", args[i]),
                        )

    def instantiate(self, f: Fact, args: list[str], label: str) -> Fact:
        """A callee's fact at this call: its parameters' bits replaced by the arguments' facts, and
        CALLER by the call's own control flow."""
        level, deps = f[0], 0
        if f[1] & CALLER:
            c = self._reached(label)
            level, deps = min(level, c[0]), deps | c[1]
        for i, a in enumerate(args):
            if f[1] & (1 << (i + 1)):
                af = self._arg(a)
                level, deps = min(level, af[0]), deps | af[1]
        return (level, deps)

    def _arg(self, a: str) -> Fact:
        """An argument as the callee sees it: the value, or for a pointer also what it points to."""
        f = self._fact(a)
        root = self._root(a)
        if root is not None:
            self._contents_read.setdefault(root, self._at)
            c = self.g.contents.get(root, UNIFORM) if root in self.g.storage else self.contents.get(root, UNIFORM)
            f = meet(f, c)
        return f

    def _phi(self, inst: Inst, label: str) -> None:
        ids = inst.ids(skip_type=True)
        here = self._reached(label)
        for value, parent in zip(ids[::2], ids[1::2], strict=False):
            v, p = value.token.text, parent.token.text
            f = self._fact(v)
            if f != UNIFORM:
                self._lower(
                    inst.result or "", f, Why(inst.line, value.token.start, value.token.end, f"OpPhi takes {v}", v)
                )
            c = self._reached(p) if p in self.cfg.blocks else here
            if c[0] < here[0] or (c[1] & ~here[1]):
                why = self.u.block_why.get(p)
                self._lower(
                    inst.result or "",
                    (c[0], c[1] & ~CALLER),
                    Why(
                        inst.line,
                        parent.token.start,
                        parent.token.end,
                        f"OpPhi picks by which way control came, and {p} is reached divergently",
                        why.next if why else None,
                        why.block if why else p,
                    ),
                )

    def _group(self, inst: Inst, start: int, end: int) -> None:
        op, res = inst.opname, inst.result or ""
        ex = inst.operand("Execution")
        spelled = self.m.spelled(ex) if ex is not None else None
        scope = SCOPE_LEVEL.get(spelled[2], INVOCATION) if spelled else INVOCATION
        group_op = next(
            (e.name for o in inst.operands if o.grammar_operand.kind == "GroupOperation" for e in o.enumerants), None
        )
        operands: Fact = UNIFORM
        culprit = None
        for o in inst.ids(skip_type=True)[1:]:
            f = self._fact(o.token.text)
            if f != UNIFORM and culprit is None:
                culprit = o.token.text
            operands = meet(operands, f)
        line = inst.line
        if group_op in _SCANS:
            self._lower(
                res,
                (INVOCATION, 0),
                Why(line, start, end, f"the result of {op} {group_op}, different in each invocation"),
            )
            return
        if op in BROADCASTS or op in _GROUP_BROADCASTS:
            f = (max(operands[0], scope), operands[1])
        elif group_op == "Reduce" or op in _COLLECTIVE or not op.startswith("OpGroupNonUniform"):
            f = (scope, 0)
        else:
            f = operands
        if f == UNIFORM:
            return
        why = (
            Why(line, start, end, f"{op} of {culprit}", culprit)
            if f == operands
            else Why(line, start, end, f"the result of {op}, one value across {LEVELS[scope]} only")
        )
        self._lower(res, f, why)

    # -- control --------------------------------------------------------------------------------
    def _control(self) -> None:
        cfg, u = self.cfg, self.u
        blocks: dict[str, Fact] = {}
        why: dict[str, Why] = {}
        diverges: dict[str, str] = {}
        leaves: set[str] = set()
        for label in cfg.order:
            b = cfg.blocks[label]
            t = b.terminator
            if t is None or t.opname not in ("OpBranchConditional", "OpSwitch"):
                continue
            ids = t.ids()
            if not ids:
                continue
            cond = ids[0].token.text
            f = self._fact(cond)
            if f == UNIFORM:
                continue
            merge = merge_block(b)
            loop = self._loop_of(label)
            stop = merge if merge is not None else (loop[0] if loop else None)
            link = Why(t.line, ids[0].token.start, ids[0].token.end, f"branch on {cond}", cond, label)
            region, exits = self._region(label, stop)
            diverges[label] = stop or ""
            for r in region:
                _lower_block(blocks, why, r, f, link)
            if exits:
                leaves.add(label)
            if exits and stop is not None:
                for r in self._after(stop, exits):
                    _lower_block(blocks, why, r, f, link)
        for label, (f, link) in self.killed.items():
            # The invocations a call ended are gone from everything after it.
            for r in self._after(label, {""}):
                _lower_block(blocks, why, r, (f[0], f[1] & ~CALLER), link)
        # What the entry gives every block: the caller's control.
        u.blocks = {k: meet((ALL, CALLER), v) for k, v in blocks.items()}
        u.block_why = why
        u.diverges = diverges
        u.leaves = leaves

    def _enclosing(self, label: str) -> list[tuple[str, str]]:
        """The headers whose constructs hold the block, innermost first, with their merge blocks: its
        dominators that declare a merge block not dominating it (the spec's constructs by dominance
        would count a loop's merge into a selection that holds its only break)."""
        out = self._enclosed.get(label)
        if out is None:
            cfg = self.cfg
            out = []
            a: str | None = label
            while a is not None:
                blk = cfg.blocks[a]
                m = merge_block(blk)
                if m is not None and m in cfg.blocks and not cfg.dominates(m, label):
                    out.append((a, m))
                up = cfg.idom.get(a)
                a = up if up != a else None
            self._enclosed[label] = out
        return out

    def _loop_of(self, label: str) -> tuple[str, str | None] | None:
        """The innermost loop holding the block: its merge block and continue target."""
        for h, m in self._enclosing(label):
            blk = self.cfg.blocks[h]
            if blk.merge is not None and blk.merge.opname == "OpLoopMerge":
                return m, continue_target(blk)
        return None

    def _stops(self, label: str) -> set[str]:
        """The merge blocks of the constructs around a block (where what diverged inside rejoins)."""
        return {m for _, m in self._enclosing(label)}

    def _region(self, label: str, stop: str | None) -> tuple[set[str], set[str]]:
        """The blocks reached from the branch's targets before `stop` or an enclosing merge, and the
        places control leaves that region for other than `stop` ("" for the function's exit)."""
        cfg = self.cfg
        stops = self._stops(label)
        if stop is not None:
            stops.add(stop)
        if self.maximal:
            loop = self._loop_of(label)
            if loop and loop[1]:
                stops.add(loop[1])
        region: set[str] = set()
        exits: set[str] = set()
        todo = list(cfg.succ[label])
        while todo:
            x = todo.pop()
            if x in stops:
                if x != stop:
                    exits.add(x)
                continue
            if x in region:
                continue
            region.add(x)
            t = cfg.blocks[x].terminator
            if t is not None and t.opname in _EXITS:
                exits.add("")
            todo.extend(cfg.succ[x])
        return region, exits

    def _after(self, start: str, exits: set[str]) -> set[str]:
        """The blocks from `start` until the places the exits lead to (all of them for a return)."""
        cfg = self.cfg
        stop = {e for e in exits if e}
        if "" in exits:
            stop = set()
        out: set[str] = set()
        todo = [start]
        while todo:
            x = todo.pop()
            if x in out or x in stop:
                continue
            out.add(x)
            todo.extend(cfg.succ.get(x, ()))
        return out

    # -- summary --------------------------------------------------------------------------------
    def _summarise(self) -> None:
        u, m = self.u, self.m
        s = Summary()
        shared = self.shared
        needing, derivatives, matrices, outer = shared.needing, shared.derivatives, shared.matrices, shared.outer
        # Each id defined once, the function's labels are its blocks' (none a matrix): the branches
        # and merges that name them, mostly ahead, need not look them up (see _coopmat_scope).
        scopes: dict[str, int] = dict.fromkeys(self.cfg.blocks, _NO_MATRIX) if matrices and not m.duplicates else {}
        # Where a matrix may be met, in a model no edit changed (None: anywhere).
        touching = _matrix_lines(m, matrices) if matrices else None
        file_results = not m.duplicates  # as _coopmat_scope files them (its operands read them there)
        needs: list[Need] = []  # what callers must meet, in the order met (a tuple at the end)
        for label in self.cfg.order:
            b = self.cfg.blocks[label]
            t = b.terminator
            if t is not None and t.opname == "OpReturnValue":
                ids = t.ids()
                if ids:
                    s.returns = meet(s.returns, self._fact(ids[0].token.text))
                c = u.control(label)
                if c[0] < ALL or c[1] & ~CALLER:
                    s.returns = meet(s.returns, (c[0], c[1] & ~CALLER))
            if t is not None and t.opname in _KILLS:
                c = u.control(label)
                s.kills = meet(s.kills, (c[0], c[1] & ~CALLER))
            if label in self.killed:
                f = self.killed[label][0]
                s.kills = meet(s.kills, (f[0], f[1] & ~CALLER))
            for inst in b.insts:
                op = inst.opname
                if op == "OpFunctionCall":
                    self._call_needs(inst, label, needs)
                    continue
                if op == "OpLabel":
                    continue  # no operand, no type; its label is in `scopes` already (or not filed there)
                # _need, its common case (no barrier, no derivative) written out: every instruction passes here.
                if op in needing:
                    need = _need(m, inst, needing, derivatives, matrices, scopes, outer)
                    if need is None:
                        continue
                    kind, level = need
                elif matrices:
                    if touching is not None and inst.line not in touching:
                        # What _coopmat_scope would file and find: no matrix made, none read.
                        if file_results and (res := _result(inst)) is not None:
                            scopes[res] = _NO_MATRIX
                        continue
                    scope = _coopmat_scope(m, inst, matrices, scopes, outer)
                    if scope is None or scope <= INVOCATION:
                        continue
                    kind, level = "coopmat", scope
                else:
                    continue
                c = u.control(label)
                if c[0] < level:
                    u.unmet.append((Need(kind, level, inst), c))
                elif c[1]:
                    needs.append(Need(kind, level, inst, c[1]))
        s.needs = tuple(needs)
        for p, i in u.params.items():
            c = self.contents.get(p, UNIFORM)
            own = (c[0], c[1] & ~(1 << (i + 1)))
            if own != (ALL, 0):
                s.writes[i] = own
        u.summary = s

    def _call_needs(self, inst: Inst, label: str, needs: list[Need]) -> None:
        ids = inst.ids(skip_type=True)
        callee = self.callees.get(ids[0].token.text) if ids else None
        if callee is None:
            return
        args = [o.token.text for o in ids[1:]]
        for need in callee.needs:
            f = self.instantiate((ALL, need.deps), args, label)
            if f[0] < need.level:
                self.u.calls.append((inst, need, f))
            elif f[1]:
                needs.append(Need(need.kind, need.level, need.inst, f[1], (inst, *need.via)))


# The empty containers every finished analysis that has nothing of a kind shares (most functions have
# no divergent block, parameter or unmet need): an analysis is only read once made, never written.
_NO_ENTRIES: Final[dict[Any, Any]] = {}
_NO_LABELS: Final[set[str]] = set()
_NO_ITEMS: Final[list[Any]] = []
_UNSUMMARISED: Final = Summary(writes=_NO_ENTRIES)  # a Uniformity's summary until _summarise sets it


def _share_empties(u: Uniformity) -> None:
    # Each field named in the code, not through getattr over a list of names: the compiled build
    # reads a native field directly, and getattr looks the name up.
    u.values = u.values or _NO_ENTRIES
    u.why = u.why or _NO_ENTRIES
    u.blocks = u.blocks or _NO_ENTRIES
    u.block_why = u.block_why or _NO_ENTRIES
    u.params = u.params or _NO_ENTRIES
    u.diverges = u.diverges or _NO_ENTRIES
    u.contents = u.contents or _NO_ENTRIES
    u.root = u.root or _NO_ENTRIES
    u.leaves = u.leaves or _NO_LABELS
    u.unmet = u.unmet or _NO_ITEMS
    u.calls = u.calls or _NO_ITEMS
    u.summary.writes = u.summary.writes or _NO_ENTRIES


def _culprit(a: _Analysis, f: Fact, args: list[str]) -> str | None:
    """The argument that made an instantiated fact divergent, if one did."""
    for i, x in enumerate(args):
        if f[1] & (1 << (i + 1)) and a._arg(x) != UNIFORM:
            return x
    return None


def _lower_block(blocks: dict[str, Fact], why: dict[str, Why], label: str, f: Fact, link: Why) -> None:
    old = blocks.get(label, UNIFORM)
    new = meet(old, f)
    if new != old:
        blocks[label] = new
        if new[0] < old[0] or label not in why:
            why[label] = link


# -- explaining -----------------------------------------------------------------------------------


def chain(u: Uniformity, m: Module, id_: str, limit: int = 12) -> list[tuple[str, Why]]:
    """The links from a value back to its source: (id, why) pairs, the value first."""
    out: list[tuple[str, Why]] = []
    seen: set[str] = set()
    g = _globals(m)
    cur: str | None = id_
    while cur is not None and cur not in seen and len(out) < limit:
        seen.add(cur)
        w = u.why.get(cur) or g.why.get(cur)
        if w is None:
            if cur in u.params:
                d = m.definition(cur)
                tok = d.src.result if d is not None else None
                text = f"parameter {m.name_of(cur)}, as uniform as what each call passes"
                out.append((cur, Why(d.line if d else 0, tok.start if tok else 0, tok.end if tok else 0, text)))
            break
        out.append((cur, w))
        cur = w.next
    return out


def control_chain(u: Uniformity, m: Module, label: str) -> list[tuple[str, Why]]:
    """Why a block is reached divergently: the branch, then its condition's chain."""
    w = u.block_why.get(label)
    if w is None:
        return []
    return [(label, w), *chain(u, m, w.next or "")] if w.next else [(label, w)]


def at_line(m: Module, line: int) -> Uniformity | None:
    """The analysis of the function holding a line (None outside functions)."""
    fn = m.function_at(line)
    return analyse(m, fn) if fn is not None else None


def describe_value(m: Module, u: Uniformity, id_: str) -> tuple[str, list[tuple[str, Why]]] | None:
    """How uniform a value is, in words, and the chain behind it; None when it is uniform."""
    f = u.value(id_)
    if f[0] == ALL:
        params = [p for p, i in u.params.items() if f[1] & (1 << (i + 1))]
        if not params:
            return None
        names = ", ".join(params)
        return f"as uniform as what each call passes for {names}", chain(u, m, id_)
    links = chain(u, m, id_)
    if f[0] == INVOCATION:
        return "divergent: different in each invocation", links
    return f"divergent beyond {LEVELS[f[0]]}: uniform only across it", links


def describe_branch(m: Module, u: Uniformity, label: str) -> tuple[str, list[tuple[str, Why]]] | None:
    """Whether the branch ending a block diverges, and where its invocations meet again."""
    if label not in u.diverges:
        return None
    b = u.fn.block(label)
    ids = b.terminator.ids() if b is not None and b.terminator is not None else []
    cond = ids[0].token.text if ids else ""
    merge = u.diverges[label]
    where = f"meet again at {m.name_of(merge)}" if merge else "do not meet again in this function"
    if label in u.leaves:
        where = "that stay " + where
    level = LEVELS[u.value(cond)[0]]
    return f"divergent branch: its condition is uniform only across {level}; the invocations {where}", chain(u, m, cond)
