"""coopmat.*: SPV_KHR_cooperative_matrix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from ...model import uniformity as uni
from ...model.cfg import block_holding
from ...model.facts import module_fact
from ...model.module import Function, Inst, Module
from ...model.operands import Operand
from ...model.typeinfo import contains, describe, float_encoding, int_info, scalar_of
from ...spec.grammar import Enumerant
from ...syntax.parser import LineFields
from .. import fixes
from ..diagnostic import WARNING, Diagnostic, Related, related_at
from ..family import Family, Rule
from ..scope import Lines, Scope, with_op

COOPMAT = "OpTypeCooperativeMatrixKHR"
_CONVERSIONS = {
    "OpConvertFToU",
    "OpConvertFToS",
    "OpConvertSToF",
    "OpConvertUToF",
    "OpUConvert",
    "OpSConvert",
    "OpFConvert",
    "OpBitcast",
}
_UNARY = {"OpSNegate", "OpFNegate"}
_BINARY: Final = {"OpIAdd", "OpFAdd", "OpISub", "OpFSub", "OpFMul", "OpIMul", "OpFDiv", "OpSDiv", "OpUDiv"}
_COMPOSITES = ("OpCompositeConstruct", "OpConstantComposite", "OpSpecConstantComposite")


def _uses(m: Module) -> dict[int, Enumerant]:
    """Cooperative Matrix Use enumerants by value, from the grammar JSON."""
    return m.grammar.kinds["CooperativeMatrixUse"].by_value


class _Mat:
    """The parts of an OpTypeCooperativeMatrixKHR, as values where known, else as ids."""

    def __init__(self, m: Module, t: Inst):
        ids = [o.token.text for o in t.ids()]
        ids += [""] * (5 - len(ids))
        self.inst = t
        self.uses = _uses(m)
        self.component = m.definition(ids[0])
        self.scope, self.rows, self.cols, self.use = (_value_or_id(m, i) for i in ids[1:5])

    def use_name(self) -> str:
        e = self.uses.get(self.use) if isinstance(self.use, int) else None
        return e.name if e else str(self.use)


def _value_or_id(m: Module, id_: str) -> int | str:
    """The integer constant `id_` names, else the id itself."""
    v = m.int_value(id_)
    return id_ if v is None else v


def _mat_of(m: Module, t: Inst) -> _Mat:
    """The parts of an OpTypeCooperativeMatrixKHR."""
    mat = _mat_at(m, t.line)  # types live outside functions
    return mat if mat.inst is t else _Mat(m, t)


_IS_TYPE: Final = -2


def _result_type_at(d: Inst) -> int:
    """Where Inst.result_type finds a definition's Result Type among its operands: _IS_TYPE when
    the definition is a type (its own type, for Module.type_of), -1 when it has none."""
    if d.is_type:
        return _IS_TYPE
    for k, op in enumerate(d.operands):
        if op.grammar_operand.kind == "IdResultType" and op.token.kind == "ID":
            return k
    return -1


@module_fact
def _mat_at(m: Module, line: int) -> _Mat:
    t = m.inst_at.get(line)
    assert t is not None  # _mat asks for a type's own line
    return _Mat(m, t)


def _is_const_u32ish(m: Module, id_: str) -> bool:
    d = m.definition(id_)
    if d is None or not m.is_constant(id_):
        return False
    info = int_info(m.definition(d.result_type))
    return info is not None and info[0] == 32


# Where a load's or store's operands are: see _load_store_slots.
_LoadStoreSlots = tuple[int, int, int, int, tuple[int, ...]]
# Where a MulAdd's operands are: see _muladd_slots.
_MulAddSlots = tuple[tuple[int, ...], tuple[tuple[int, str, str], ...]]


_S = TypeVar("_S")


def _per_shape(found: dict[str, _S], inst: Inst, make: Callable[[Inst], _S]) -> _S:
    """make(inst), kept in `found` by the line's shape (a line without one is made each time)."""
    fields: LineFields = inst.src  # (see _load_store)
    shape = fields.shape
    if shape is None:
        return make(inst)
    value = found.get(shape)
    if value is None:
        value = found[shape] = make(inst)
    return value


class _Memo:
    """What one check derived from each id: thousands of instructions name the same few ids and
    types, so each is looked into once per check (not per module: an edit in place may change what
    an id inside a function is)."""

    def __init__(self, m: Module) -> None:
        self.m = m
        self.mats: dict[str, _Mat | None] = {}
        self.not_matrix: dict[str, bool] = {}
        self.pointees: dict[str, str | None] = {}
        self.layouts: dict[str, bool] = {}
        self.strides: dict[str, bool] = {}
        # where each line shape's operands are (see _load_store_slots, _muladd_slots)
        self.load_stores: dict[str, _LoadStoreSlots] = {}
        self.muladd_shapes: dict[str, _MulAddSlots] = {}
        self.result_types: dict[str, int] = {}  # see _result_type_at
        self.by_type: dict[int, _Mat] = {}
        # MulAdd's verdicts on its matrices (Result, A, B, C), by those matrices
        self.muladds: dict[tuple[_Mat | None, ...], list[_Verdict]] = {}

    def load_store_slots(self, inst: Inst) -> _LoadStoreSlots:
        """_load_store_slots(inst), once per line shape (a shape fixes the operands' grammar)."""
        return _per_shape(self.load_stores, inst, _load_store_slots)

    def muladd_slots(self, inst: Inst) -> _MulAddSlots:
        """_muladd_slots(inst), once per line shape."""
        return _per_shape(self.muladd_shapes, inst, _muladd_slots)

    def mat(self, id_: str) -> _Mat | None:
        """_mat(m, id_)."""
        if id_ in self.mats:
            return self.mats[id_]
        t = self.type_of(id_)
        if t is None or t.opname != COOPMAT:
            self.mats[id_] = None
            return None
        # by its type's line too: thousands of values share a few types
        found = self.by_type.get(t.line)
        if found is None or found.inst is not t:
            found = self.by_type[t.line] = _mat_of(self.m, t)
        self.mats[id_] = found
        return found

    def type_of(self, id_: str) -> Inst | None:
        """m.type_of(id_), with where its definition's Result Type is found once per line shape (a
        shape fixes the operands' grammar): each matrix value is typed once, thousands of them."""
        m = self.m
        d = m.defs.get(id_) if id_ else None
        if d is None:
            return None
        fields: LineFields = d.src  # (see _load_store)
        shape = fields.shape
        if shape is None:
            return m.type_of(id_)
        at = self.result_types.get(shape)
        if at is None:
            at = self.result_types[shape] = _result_type_at(d)
        if at == _IS_TYPE:
            return d
        return m.defs.get(d.operands[at][0].text) if at >= 0 else None

    def is_not_matrix(self, id_: str) -> bool:
        """Whether id_ is defined and not a cooperative matrix (or its type)."""
        if id_ in self.not_matrix:
            return self.not_matrix[id_]
        found = self.not_matrix[id_] = self.m.definition(id_) is not None and self.mat(id_) is None
        return found

    def bad_pointee(self, id_: str) -> str | None:
        if id_ in self.pointees:
            return self.pointees[id_]
        found = self.pointees[id_] = _bad_pointee(self.m, id_)
        return found

    def bad_layout(self, id_: str) -> bool:
        if id_ in self.layouts:
            return self.layouts[id_]
        found = self.layouts[id_] = self.m.definition(id_) is not None and not _is_const_u32ish(self.m, id_)
        return found

    def bad_stride(self, id_: str) -> bool:
        if id_ in self.strides:
            return self.strides[id_]
        found = self.strides[id_] = self.m.definition(id_) is not None and int_info(self.m.type_of(id_)) is None
        return found


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if scope is None:
        out.extend(_memory_model(m))
    memo = _Memo(m)
    values = _declares_matrix(m)
    judges = _VALUE_JUDGES if values else _OWN_JUDGES
    for inst in with_op(m, judges, scope):
        out.extend(judges[inst.opname](m, inst, memo))
    if values and not isinstance(scope, Lines):
        out.extend(_uniformity(m, scope))
    return out


def _linewise(m: Module) -> bool:
    """Whether its diagnostics on a line read only that line, the definitions of the ids it names
    and module facts: all but the uniformity rule's, which follows values through the function."""
    return not (_declares_matrix(m) and _uniformity_applies(m))


def _uniformity_applies(m: Module) -> bool:
    return "CooperativeMatrixKHR" in m.declared_caps


@module_fact
def _declares_matrix(m: Module) -> bool:
    """Whether any OpTypeCooperativeMatrixKHR is declared (a type: editing one rebuilds the module)."""
    return bool(m.with_op((COOPMAT,)))


def _memory_model(m: Module) -> list[Diagnostic]:
    cap = m.capabilities.get("CooperativeMatrixKHR")
    if cap is None or "Shader" not in m.declared_caps or "VulkanMemoryModel" in m.declared_caps:
        return []
    tok = cap.operands[0].token
    return [
        FAMILY.cite(
            cap.line,
            tok,
            "coopmat.vulkan-memory-model",
            "with the Shader capability, CooperativeMatrixKHR needs the VulkanMemoryModel capability",
            fixes=(fixes.add_capability(m, "VulkanMemoryModel"),),
        )
    ]


def _type(m: Module, inst: Inst) -> list[Diagnostic]:
    out = []
    comp, scope, rows, cols, use = (inst.operand(n) for n in ("Component Type", "Scope", "Rows", "Columns", "Use"))
    if comp and comp.is_id:
        t = m.definition(comp.token.text)
        if t is not None and t.opname not in ("OpTypeInt", "OpTypeFloat"):
            out.append(
                FAMILY.cite(
                    inst.line,
                    comp.token,
                    "coopmat.component-type",
                    f"{comp.token.text} is {describe(m, t)}, not a scalar integer or floating-point type",
                )
            )
    for op in (scope, rows, cols, use):
        if op is None or not op.is_id or m.definition(op.token.text) is None:
            continue
        if not _is_const_u32ish(m, op.token.text):
            code = "coopmat.use" if op is use else "coopmat.type-operand"
            out.append(
                FAMILY.cite(
                    inst.line,
                    op.token,
                    code,
                    f"{op.grammar_operand.name} {op.token.text} is not a constant instruction of 32-bit integer type",
                )
            )
    if use and use.is_id:
        v = m.int_value(use.token.text)
        uses = _uses(m)
        if v is not None and v not in uses:
            valid = ", ".join(f"{n} ({e.name})" for n, e in sorted(uses.items()))
            out.append(
                FAMILY.cite(
                    inst.line, use.token, "coopmat.use", f"Use is {v}; a Cooperative Matrix Use is one of {valid}"
                )
            )
    if scope and scope.is_id and m.int_value(scope.token.text) == 2:  # Workgroup
        out.extend(_workgroup_size(m, inst, scope))
    return out


def _workgroup_size(m: Module, inst: Inst, scope: Operand) -> list[Diagnostic]:
    out = []
    for ep in m.entry_points.values():
        for mode in ep.modes:
            if mode.opname != "OpExecutionModeId":
                continue
            for op in mode.ids()[1:]:
                d = m.definition(op.token.text)
                if d is not None and d.line > inst.line:
                    out.append(
                        FAMILY.cite(
                            inst.line,
                            scope.token,
                            "coopmat.workgroup-size",
                            f"this Workgroup-scope type comes before "
                            f"{op.token.text}, a LocalSizeId constant of {ep.name!r}",
                            related=(related_at(d.line, d.src.result, f"{op.token.text} is defined here"),),
                        )
                    )
                    return out
    return out


def _storage(m: Module, inst: Inst) -> list[Diagnostic]:
    ptr = m.definition(inst.result_type)
    if ptr is None or ptr.opname != "OpTypePointer":
        return []
    pointee = m.strip_pointer(ptr)
    sc = next((o for o in inst.operands if o.enumerants), None)
    if sc is None or sc.enumerants[0].name in ("Function", "Private") or not contains(m, pointee, COOPMAT):
        return []
    return [
        FAMILY.cite(
            inst.line,
            sc.token,
            "coopmat.storage-class",
            f"{inst.result} holds a cooperative matrix in {sc.enumerants[0].name} storage",
            related=(related_at(ptr.line, ptr.src.result, f"{ptr.result} is {describe(m, ptr)}"),),
        )
    ]


def _load(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    return _load_store(m, inst, True, memo)


def _store(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    return _load_store(m, inst, False, memo)


def _load_store(m: Module, inst: Inst, load: bool, memo: _Memo) -> list[Diagnostic]:
    # Operands' tokens read as their first items, a line's fields through LineFields: the compiled
    # build reads a tuple item where a field of a class it does not compile is looked up by name.
    ops = inst.operands
    ptr_at, obj_at, layout_at, stride_at, bad_at = memo.load_store_slots(inst)
    bad = "MakePointerAvailable" if load else "MakePointerVisible"
    out = [
        FAMILY.cite(inst.line, ops[k][0], "coopmat.memory-operand", f"{bad} is not valid on {inst.opname}")
        for k in bad_at
    ]
    if load:
        if ops and (rt := ops[0][0]).kind == "ID" and memo.is_not_matrix(rt.text):
            out.append(FAMILY.cite(inst.line, rt, "coopmat.load-result", f"{rt.text} is not a cooperative matrix type"))
    elif obj_at >= 0 and memo.is_not_matrix((obj := ops[obj_at][0]).text):
        out.append(FAMILY.cite(inst.line, obj, "coopmat.store-object", f"{obj.text} is not a cooperative matrix"))
    if ptr_at >= 0 and (pointee := memo.bad_pointee((ptr := ops[ptr_at][0]).text)) is not None:
        out.append(FAMILY.cite(inst.line, ptr, "coopmat.pointer", f"{ptr.text} points to {pointee}"))
    if layout_at >= 0 and (layout := ops[layout_at][0]).kind == "ID" and memo.bad_layout(layout.text):
        out.append(FAMILY.cite(inst.line, layout, "coopmat.layout", f"{layout.text} is not a 32-bit integer constant"))
    if stride_at >= 0 and (stride := ops[stride_at][0]).kind == "ID" and memo.bad_stride(stride.text):
        out.append(FAMILY.cite(inst.line, stride, "coopmat.stride", f"{stride.text} is not a scalar integer"))
    return out


def _load_store_slots(inst: Inst) -> _LoadStoreSlots:
    """Where a load's or store's Pointer, Object, MemoryLayout and Stride are among its operands (the
    first of each name, as Inst.operand finds it; -1: none), then each memory operand the instruction
    does not take."""
    bad = "MakePointerAvailable" if inst.opname == "OpCooperativeMatrixLoadKHR" else "MakePointerVisible"
    at = dict.fromkeys(("Pointer", "Object", "MemoryLayout", "Stride"), -1)
    bad_at = []
    for k, op in enumerate(inst.operands):
        name = op.grammar_operand.name
        if at.get(name) == -1:
            at[name] = k
        if op.grammar_operand.kind == "MemoryAccess" and any(e.name == bad for e in op.enumerants):
            bad_at.append(k)
    return at["Pointer"], at["Object"], at["MemoryLayout"], at["Stride"], tuple(bad_at)


def _bad_pointee(m: Module, id_: str) -> str | None:
    """What the pointer points to, when that is not a scalar or vector."""
    pt = m.type_of(id_)
    if pt is None or pt.opname != "OpTypePointer":
        return None
    pointee = m.strip_pointer(pt)
    return describe(m, pointee) if pointee is not None and scalar_of(m, pointee) is None else None


def _length(m: Module, inst: Inst, type_op: Operand | None) -> list[Diagnostic]:
    out = []
    rt = m.definition(inst.result_type)
    if rt is not None and int_info(rt) != (32, False):
        tok = inst.operands[0].token
        out.append(
            FAMILY.cite(inst.line, tok, "coopmat.length-result", f"{inst.result_type} is {describe(m, rt)}, not u32")
        )
    if type_op is not None and type_op.is_id:
        t = m.definition(type_op.token.text)
        if t is not None and t.opname != COOPMAT:
            out.append(
                FAMILY.cite(
                    inst.line,
                    type_op.token,
                    "coopmat.length-type",
                    f"{type_op.token.text} is not a cooperative matrix type",
                )
            )
    return out


def _muladd(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    out = []
    operands = inst.operands
    places, signed = memo.muladd_slots(inst)
    ops = [o if k >= 0 and (o := operands[k])[0].kind == "ID" else None for k in places]
    key = tuple(memo.mat(o[0].text) if o is not None else None for o in ops)
    verdicts = memo.muladds.get(key)
    if verdicts is None:
        verdicts = memo.muladds[key] = _muladd_verdicts(key)
    for k, code, lead, related in verdicts:
        op = ops[k]
        assert op is not None  # a verdict is on a matrix, which only an id operand has
        out.append(FAMILY.cite(inst.line, op.token, code, lead, related=related))
    for k, name, which in signed:
        mat = key[_MULADD_KEYS.index(which)]
        if mat is not None and mat.component is not None and int_info(mat.component) is None:
            out.append(
                FAMILY.cite(
                    inst.line,
                    operands[k].token,
                    "coopmat.signed-components",
                    f"{name} given, but {which}'s components are {describe(m, mat.component)}",
                )
            )
    return out


def _muladd_slots(inst: Inst) -> _MulAddSlots:
    """Where a MulAdd's Result Type (its first operand), A, B and C are among its operands (the
    first of each name, as Inst.operand finds it; -1: none), and each SignedComponents operand
    (operand, enumerant, the matrix it names)."""
    places = [0 if inst.operands else -1, -1, -1, -1]
    signed = []
    for k, op in enumerate(inst.operands):
        name = op.grammar_operand.name
        if name in ("A", "B", "C") and places[_MULADD_KEYS.index(name)] == -1:
            places[_MULADD_KEYS.index(name)] = k
        for e in op.enumerants:
            which = _SIGNED.get(e.name)
            if which:
                signed.append((k, e.name, which))
    return tuple(places), tuple(signed)


# What MulAdd says of one operand: its index among Result, A, B, C, the code, the lead, the related.
_Verdict = tuple[int, str, str, tuple[Related, ...]]
_MULADD_KEYS = ("Result", "A", "B", "C")


def _muladd_verdicts(mats: tuple[_Mat | None, ...]) -> list[_Verdict]:
    """What MulAdd says of matrices of these types (None: not a matrix), on each operand: the same
    for every MulAdd of those types, so found once per check for each combination."""
    out: list[_Verdict] = []
    want = _MULADD_USES
    for k, mat in enumerate(mats):
        name = _MULADD_KEYS[k]
        if mat is not None and isinstance(mat.use, int) and mat.use_name() != want[name]:
            related = (related_at(mat.inst.line, mat.inst.src.result, "its type"),)
            out.append((k, "coopmat.muladd-use", f"{name} has Use {mat.use_name()}, must be {want[name]}", related))
    r, a, b, c = mats
    # (operand, its dimension, what it must equal, name of the dimension)
    pairs: list[tuple[int, int | str, int | str, str]] = []
    if r and a:
        pairs.append((1, a.rows, r.rows, "rows (M)"))
    if r and b:
        pairs.append((2, b.cols, r.cols, "columns (N)"))
    if a and b:
        pairs.append((2, b.rows, a.cols, "rows (K, A's columns)"))
    if r and c:
        pairs += [(3, c.rows, r.rows, "rows (M)"), (3, c.cols, r.cols, "columns (N)")]
    for k, got, expect, what in pairs:
        mat = mats[k]
        if got != expect and mat is not None:
            related = (related_at(mat.inst.line, mat.inst.src.result, "its type"),)
            out.append((k, "coopmat.muladd-shape", f"{_MULADD_KEYS[k]} has {got} {what}, expected {expect}", related))
    scopes = {k: v.scope for k, v in enumerate(mats) if v is not None}
    if len(scopes) > 1 and len(set(map(str, scopes.values()))) > 1:
        first = next(iter(scopes.values()))
        for k, s in scopes.items():
            if s != first:
                out.append((k, "coopmat.muladd-scope", f"{_MULADD_KEYS[k]} has scope {s}, the result has {first}", ()))
    return out


# The Use each MulAdd operand's matrix must have, and the operand each signedness operand names.
_MULADD_USES = {"Result": "MatrixAccumulatorKHR", "A": "MatrixAKHR", "B": "MatrixBKHR", "C": "MatrixAccumulatorKHR"}
_SIGNED = {
    "MatrixASignedComponentsKHR": "A",
    "MatrixBSignedComponentsKHR": "B",
    "MatrixCSignedComponentsKHR": "C",
    "MatrixResultSignedComponentsKHR": "Result",
}


def _conversion(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    ops = inst.ids(skip_type=True)
    result_type = inst.result_type
    if not ops or not result_type:
        return []
    res, val = memo.mat(result_type), memo.mat(ops[0].token.text)
    if res is None and val is None:
        return []
    if res is None or val is None:
        return [
            FAMILY.cite(
                inst.line,
                ops[0].token,
                "coopmat.conversion",
                "a cooperative matrix converts only to another cooperative matrix",
            )
        ]
    out = []
    for what, a, b in (
        ("Scope", val.scope, res.scope),
        ("Rows", val.rows, res.rows),
        ("Columns", val.cols, res.cols),
        ("Use", val.use, res.use),
    ):
        if a != b:
            out.append(
                FAMILY.cite(
                    inst.line,
                    ops[0].token,
                    "coopmat.conversion",
                    f"{what} differs: {ops[0].token.text} has {a}, the Result Type {b}",
                    related=(
                        related_at(res.inst.line, res.inst.src.result, "result type"),
                        related_at(val.inst.line, val.inst.src.result, "operand type"),
                    ),
                )
            )
    return out


def _arithmetic(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    result_type = inst.result_type
    res = memo.mat(result_type) if result_type else None
    ops = inst.ids(skip_type=True)
    if res is None and all(memo.mat(o[0].text) is None for o in ops):
        return []
    out = []
    op = inst.opname
    if res is not None and res.component is not None:
        comp = res.component
        is_float = comp.opname == "OpTypeFloat"
        float_op = op.startswith("OpF") or op == "OpMatrixTimesScalar"
        if float_op != is_float:
            kind = "floating-point" if float_op else "integer"
            out.append(
                FAMILY.cite(
                    inst.line,
                    inst.opcode,
                    "coopmat.arithmetic",
                    f"{op} needs {kind} components, the matrix has {describe(m, comp)}",
                )
            )
        enc = float_encoding(comp)
        if enc and op != "OpMatrixTimesScalar":
            out.append(FAMILY.cite(inst.line, inst.opcode, "coopmat.encoding", f"{op} does not take {enc} components"))
    if op in _BINARY:
        for o in ops:
            if (
                o.token.text
                and m.type_of(o.token.text) is not None
                and m.definition(inst.result_type) is not m.type_of(o.token.text)
            ):
                out.append(
                    FAMILY.cite(
                        inst.line,
                        o.token,
                        "coopmat.arithmetic",
                        f"{o.token.text} is not of the Result Type {inst.result_type}",
                    )
                )
    return out


def _constituents(m: Module, inst: Inst, memo: _Memo) -> list[Diagnostic]:
    result_type = inst.result_type
    res = memo.mat(result_type) if result_type else None
    if res is None:
        return []
    parts = inst.ids(skip_type=True)
    if len(parts) != 1:
        tok = parts[1].token if len(parts) > 1 else inst.opcode
        return [
            FAMILY.cite(
                inst.line,
                tok,
                "coopmat.constituent",
                f"{len(parts)} constituents given, a cooperative matrix takes one",
            )
        ]
    t = m.type_of(parts[0].token.text)
    if t is not None and res.component is not None and t is not res.component:
        return [
            FAMILY.cite(
                inst.line,
                parts[0].token,
                "coopmat.constituent",
                f"{parts[0].token.text} is {describe(m, t)}, the matrix's "
                f"component type is {describe(m, res.component)}",
            )
        ]
    return []


# -- beyond the validator: cooperative-matrix work in control flow that is not uniform (model.uniformity) ---


def _uniformity(m: Module, scope: Function | None) -> list[Diagnostic]:
    if not _uniformity_applies(m):
        return []
    out = []
    for fn in m.functions if scope is None else [scope]:
        u = uni.analyse(m, fn)
        for need, fact in u.unmet:
            if need.kind != "coopmat":
                continue
            inst = need.inst
            block = block_holding(fn, inst.line)
            links = uni.control_chain(u, m, block.label) if block is not None else []
            branch = links[0][1] if links else None
            source = links[-1][1].text if links else "the call into this function is not uniform"
            cond = m.name_of(branch.next) if branch is not None and branch.next else "a divergent value"
            out.append(
                FAMILY.cite(
                    inst.line,
                    inst.opcode,
                    "coopmat.non-uniform",
                    f"{inst.opname} on a cooperative matrix of {uni.LEVELS[need.level]} runs under a condition "
                    f"uniform only across {uni.LEVELS[fact[0]]} (the branch on {cond}: {source}), so some "
                    "invocations of the scope may be inactive",
                    severity=WARNING,
                    related=tuple(Related(w.line, w.start, w.end, w.text) for _, w in links),
                )
            )
    return out


def _spec_length(m: Module, inst: Inst) -> list[Diagnostic]:
    if inst.ext_inst is None or inst.ext_inst.name != "OpCooperativeMatrixLengthKHR":
        return []
    ids = inst.ids(skip_type=True)
    return _length(m, inst, ids[0] if ids else None)


Judge = Callable[[Module, Inst, _Memo], list[Diagnostic]]
# What judges each opcode's instructions. These rules hold whatever the module declares:
_OWN_JUDGES: dict[str, Judge] = {
    COOPMAT: lambda m, inst, memo: _type(m, inst),
    "OpCooperativeMatrixLoadKHR": _load,
    "OpCooperativeMatrixStoreKHR": _store,
    "OpCooperativeMatrixLengthKHR": lambda m, inst, memo: _length(m, inst, inst.operand("Type")),
    "OpSpecConstantOp": lambda m, inst, memo: _spec_length(m, inst),
}
# and these judge values of a cooperative matrix type, so they run only when the module declares one.
_VALUE_JUDGES: dict[str, Judge] = {
    **_OWN_JUDGES,
    "OpVariable": lambda m, inst, memo: _storage(m, inst),
    "OpCooperativeMatrixMulAddKHR": _muladd,
    **dict.fromkeys(_CONVERSIONS, _conversion),
    **dict.fromkeys((*_UNARY, *_BINARY, "OpMatrixTimesScalar"), _arithmetic),
    **dict.fromkeys(_COMPOSITES, _constituents),
}


FAMILY = Family(
    name="coopmat",
    prefix="coopmat",
    summary="SPV_KHR_cooperative_matrix: type operands, storage classes, load/store, length, MulAdd shapes, uses and scopes, conversions, arithmetic, constituents, non-uniform control flow.",
    rules=(
        Rule(
            "coopmat.component-type",
            "a cooperative matrix whose Component Type is not a scalar number.",
            sentence="Component Type must be a scalar numerical type.",
        ),
        Rule(
            "coopmat.type-operand",
            "a Scope, Rows or Columns that is not a 32-bit integer constant.",
            sentence="Scope, Rows and Columns must be a constant instruction with scalar 32-bit integer type.",
        ),
        Rule(
            "coopmat.use",
            "a Use that is not a 32-bit integer constant naming a Cooperative Matrix Use.",
            sentence="Use must be a constant instruction scalar 32-bit integer type whose value corresponds to "
            "a Cooperative Matrix Use.",
        ),
        Rule(
            "coopmat.storage-class",
            "a cooperative matrix variable outside Function or Private storage.",
            sentence="Cooperative matrix types (or types containing them) can only be allocated in "
            "Function or Private storage classes.",
        ),
        Rule(
            "coopmat.vulkan-memory-model",
            "CooperativeMatrixKHR declared without VulkanMemoryModel.",
            sentence="If the CooperativeMatrixKHR capability is declared then the "
            "VulkanMemoryModel capability must be declared as well.",
        ),
        Rule(
            "coopmat.load-result",
            "a cooperative matrix load whose Result Type is not a cooperative matrix.",
            sentence="Result Type is the type of the loaded object. It must be a cooperative matrix type.",
        ),
        Rule(
            "coopmat.store-object",
            "a cooperative matrix store whose Object is not a cooperative matrix.",
            sentence="Object is the object to store. Its type must be an OpTypeCooperativeMatrixKHR.",
        ),
        Rule(
            "coopmat.pointer",
            "a load or store Pointer whose pointee is not a scalar or vector.",
            sentence="Pointer is a pointer. Its type must be an OpTypePointer whose Type operand is a scalar "
            "or vector type.",
        ),
        Rule(
            "coopmat.layout",
            "a MemoryLayout that is not a 32-bit integer constant naming a layout.",
            sentence="MemoryLayout ... must come from a 32-bit integer constant instruction whose value "
            "corresponds to a Cooperative Matrix Layout.",
        ),
        Rule(
            "coopmat.stride",
            "a Stride that is not a scalar integer.",
            sentence="Stride ... must be a scalar integer type.",
        ),
        Rule(
            "coopmat.memory-operand",
            "a memory operand the load or store does not take.",
            sentence="MakePointerAvailable: not valid with OpLoad or OpCooperativeMatrixLoadKHR; "
            "MakePointerVisible: not valid with OpStore or OpCooperativeMatrixStoreKHR.",
        ),
        Rule(
            "coopmat.length-result",
            "OpCooperativeMatrixLengthKHR whose Result Type is not a 32-bit unsigned integer.",
            sentence="Result Type must be an OpTypeInt with 32-bit Width and 0 Signedness.",
        ),
        Rule(
            "coopmat.length-type",
            "OpCooperativeMatrixLengthKHR whose Type is not a cooperative matrix type.",
            sentence="Type is a cooperative matrix type.",
        ),
        Rule(
            "coopmat.muladd-use",
            "a MulAdd operand or result with the wrong Use.",
            sentence="Result Type ... whose Use must be MatrixAccumulatorKHR. A ... whose Use must be "
            "MatrixAKHR. B ... whose Use must be MatrixBKHR. C ... whose Use must be "
            "MatrixAccumulatorKHR.",
        ),
        Rule(
            "coopmat.muladd-shape",
            "MulAdd matrices whose rows and columns do not fit M x K times K x N.",
            sentence="Result Type must be a cooperative matrix type with M rows and N columns; A ... M "
            "rows and K columns; B ... K rows and N columns; C ... M rows and N columns. The "
            "values of M, N, and K must be consistent across the result and operands.",
        ),
        Rule(
            "coopmat.muladd-scope",
            "MulAdd matrices of different scopes.",
            sentence="A, B, C, and Result Type must have the same scope.",
        ),
        Rule(
            "coopmat.signed-components",
            "a SignedComponents operand on a matrix whose components are not integers.",
            sentence="The Matrix{A,B,C,Result}SignedComponentsKHR Cooperative Matrix Operand can "
            "only be used when the type of the corresponding matrix is an integer type.",
        ),
        Rule(
            "coopmat.conversion",
            "a conversion between matrices of different scope, shape or Use.",
            sentence="The result type and value type must have the same Scope, number of Rows, number of "
            "Columns, and Use.",
        ),
        Rule(
            "coopmat.arithmetic",
            "arithmetic whose opcode does not suit the matrices' component type, or on mismatched matrices.",
            sentence="OpF instructions can be used with cooperative matrix types whose Component Type is "
            "a floating-point type. OpI, OpS, and OpU instructions can be used with cooperative "
            "matrix types whose Component Type is an integer type. Binary arithmetic instructions "
            "operate on the individual elements of a pair of cooperative matrices whose type must "
            "match.",
        ),
        Rule(
            "coopmat.constituent",
            "a cooperative matrix composite without exactly one constituent of its component type.",
            sentence="If the Result Type is a cooperative matrix type, then there must be only one "
            "Constituent and it is used to initialize all members.",
        ),
        Rule(
            "coopmat.encoding",
            "arithmetic on a BFloat16 or 8-bit floating-point cooperative matrix.",
            sentence="SPV_KHR_bfloat16 / SPV_EXT_float8: arithmetic instructions do not take BFloat16 or "
            "8-bit floating-point cooperative matrices; convert them first.",
        ),
        Rule(
            "coopmat.workgroup-size",
            "a Workgroup-scope matrix declared before the workgroup size it depends on.",
            sentence="A Workgroup-scope cooperative matrix type needs the LocalSizeId constants to be "
            "defined before it (the workgroup size decides its layout).",
        ),
        Rule(
            "coopmat.non-uniform",
            "a cooperative matrix instruction under control flow that is not uniform.",
            sentence="All dynamic instances of an instruction with an operand or result that is an object "
            "of this type must be executed such that all the invocations in the Scope instance "
            "are active or none of them are.",
        ),
    ),
    check=check,
    extension="SPV_KHR_cooperative_matrix",
    linewise=_linewise,
)
