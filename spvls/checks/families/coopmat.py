"""coopmat.*: SPV_KHR_cooperative_matrix."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ...model import uniformity as uni
from ...model.cfg import block_holding
from ...model.facts import module_fact
from ...model.module import Function, Inst, Module
from ...model.operands import Operand
from ...model.typeinfo import contains, describe, float_encoding, int_info, scalar_of
from ...spec.grammar import Enumerant
from .. import fixes
from ..diagnostic import WARNING, Diagnostic, Related, related_at
from ..family import Family, Rule
from ..scope import Lines, Scope, with_op

_T = TypeVar("_T")
# What _load_store derived from each id, by (deriving function, id).
_Memo = dict[tuple[Callable[[Module, str], Any], str], Any]

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
_BINARY = {"OpIAdd", "OpFAdd", "OpISub", "OpFSub", "OpFMul", "OpIMul", "OpFDiv", "OpSDiv", "OpUDiv"}
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


def _mat(m: Module, id_: str | None) -> _Mat | None:
    t = m.type_of(id_)
    if t is None or t.opname != COOPMAT:
        return None
    mat = _mat_at(m, t.line)  # types live outside functions
    return mat if mat.inst is t else _Mat(m, t)


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


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if scope is None:
        out.extend(_memory_model(m))
    memo: _Memo = {}  # what _load_store derives from each id, once per check
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


def _load_store(m: Module, inst: Inst, load: bool, memo: _Memo) -> list[Diagnostic]:
    out = []
    named = _named(inst)
    if load:
        rt = inst.operands[0] if inst.operands else None
        if rt and rt.is_id and _once(memo, _not_a_matrix, m, rt.token.text):
            out.append(
                FAMILY.cite(
                    inst.line, rt.token, "coopmat.load-result", f"{rt.token.text} is not a cooperative matrix type"
                )
            )
    else:
        obj = named.get("Object")
        if obj and _once(memo, _not_a_matrix, m, obj.token.text):
            out.append(
                FAMILY.cite(
                    inst.line, obj.token, "coopmat.store-object", f"{obj.token.text} is not a cooperative matrix"
                )
            )
    ptr = named.get("Pointer")
    if ptr and (pointee := _once(memo, _bad_pointee, m, ptr.token.text)) is not None:
        out.append(FAMILY.cite(inst.line, ptr.token, "coopmat.pointer", f"{ptr.token.text} points to {pointee}"))
    layout = named.get("MemoryLayout")
    if layout and layout.is_id and _once(memo, _bad_layout, m, layout.token.text):
        out.append(
            FAMILY.cite(
                inst.line, layout.token, "coopmat.layout", f"{layout.token.text} is not a 32-bit integer constant"
            )
        )
    stride = named.get("Stride")
    if stride and stride.is_id and _once(memo, _bad_stride, m, stride.token.text):
        out.append(
            FAMILY.cite(inst.line, stride.token, "coopmat.stride", f"{stride.token.text} is not a scalar integer")
        )
    bad = "MakePointerAvailable" if load else "MakePointerVisible"
    for op in inst.operands:
        if op.grammar_operand.kind == "MemoryAccess" and any(e.name == bad for e in op.enumerants):
            out.append(
                FAMILY.cite(inst.line, op.token, "coopmat.memory-operand", f"{bad} is not valid on {inst.opname}")
            )
    return out


def _named(inst: Inst) -> dict[str, Operand]:
    """Each operand by its grammar name (the first of a name, as Inst.operand finds it)."""
    named: dict[str, Operand] = {}
    for op in inst.operands:
        named.setdefault(op.grammar_operand.name, op)
    return named


def _once(
    memo: _Memo,
    derive: Callable[[Module, str], _T],
    m: Module,
    id_: str,
) -> _T:
    """derive(m, id_), once per check: thousands of loads and stores name the same few ids."""
    key = (derive, id_)
    if key in memo:
        return memo[key]
    value = memo[key] = derive(m, id_)
    return value


def _not_a_matrix(m: Module, id_: str) -> bool:
    return m.definition(id_) is not None and _mat(m, id_) is None


def _bad_pointee(m: Module, id_: str) -> str | None:
    """What the pointer points to, when that is not a scalar or vector."""
    pt = m.type_of(id_)
    if pt is None or pt.opname != "OpTypePointer":
        return None
    pointee = m.strip_pointer(pt)
    return describe(m, pointee) if pointee is not None and scalar_of(m, pointee) is None else None


def _bad_layout(m: Module, id_: str) -> bool:
    return m.definition(id_) is not None and not _is_const_u32ish(m, id_)


def _bad_stride(m: Module, id_: str) -> bool:
    return m.definition(id_) is not None and int_info(m.type_of(id_)) is None


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


def _muladd(m: Module, inst: Inst) -> list[Diagnostic]:
    out = []
    named = {
        "Result": inst.operands[0] if inst.operands else None,
        "A": inst.operand("A"),
        "B": inst.operand("B"),
        "C": inst.operand("C"),
    }
    ops = {k: o for k, o in named.items() if o and o.is_id}
    mats = {k: _mat(m, o.token.text) for k, o in ops.items()}
    want = _MULADD_USES
    for k, mat in mats.items():
        if mat is not None and isinstance(mat.use, int) and mat.use_name() != want[k]:
            out.append(
                FAMILY.cite(
                    inst.line,
                    ops[k].token,
                    "coopmat.muladd-use",
                    f"{k} has Use {mat.use_name()}, must be {want[k]}",
                    related=(related_at(mat.inst.line, mat.inst.src.result, "its type"),),
                )
            )
    r, a, b, c = (mats.get(k) for k in ("Result", "A", "B", "C"))
    # (operand, its dimension, what it must equal, name of the dimension)
    pairs = []
    if r and a:
        pairs.append(("A", a.rows, r.rows, "rows (M)"))
    if r and b:
        pairs.append(("B", b.cols, r.cols, "columns (N)"))
    if a and b:
        pairs.append(("B", b.rows, a.cols, "rows (K, A's columns)"))
    if r and c:
        pairs += [("C", c.rows, r.rows, "rows (M)"), ("C", c.cols, r.cols, "columns (N)")]
    for k, got, expect, what in pairs:
        mat = mats[k]
        if got != expect and mat is not None:
            out.append(
                FAMILY.cite(
                    inst.line,
                    ops[k].token,
                    "coopmat.muladd-shape",
                    f"{k} has {got} {what}, expected {expect}",
                    related=(related_at(mat.inst.line, mat.inst.src.result, "its type"),),
                )
            )
    scopes = {k: v.scope for k, v in mats.items() if v is not None}
    if len(scopes) > 1 and len(set(map(str, scopes.values()))) > 1:
        first = next(iter(scopes.values()))
        for k, s in scopes.items():
            if s != first:
                out.append(
                    FAMILY.cite(
                        inst.line, ops[k].token, "coopmat.muladd-scope", f"{k} has scope {s}, the result has {first}"
                    )
                )
    for op in inst.operands:
        for e in op.enumerants:
            which = _SIGNED.get(e.name)
            mat = mats.get(which) if which else None
            if mat is not None and mat.component is not None and int_info(mat.component) is None:
                out.append(
                    FAMILY.cite(
                        inst.line,
                        op.token,
                        "coopmat.signed-components",
                        f"{e.name} given, but {which}'s components are {describe(m, mat.component)}",
                    )
                )
    return out


# The Use each MulAdd operand's matrix must have, and the operand each signedness operand names.
_MULADD_USES = {"Result": "MatrixAccumulatorKHR", "A": "MatrixAKHR", "B": "MatrixBKHR", "C": "MatrixAccumulatorKHR"}
_SIGNED = {
    "MatrixASignedComponentsKHR": "A",
    "MatrixBSignedComponentsKHR": "B",
    "MatrixCSignedComponentsKHR": "C",
    "MatrixResultSignedComponentsKHR": "Result",
}


def _conversion(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.ids(skip_type=True)
    if not ops or not inst.result_type:
        return []
    res, val = _mat(m, inst.result_type), _mat(m, ops[0].token.text)
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


def _arithmetic(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.ids(skip_type=True)
    res = _mat(m, inst.result_type)
    mats = [(o, _mat(m, o.token.text)) for o in ops]
    if res is None and not any(x for _, x in mats):
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
        for o, _ in mats:
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


def _constituents(m: Module, inst: Inst) -> list[Diagnostic]:
    res = _mat(m, inst.result_type)
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
    "OpCooperativeMatrixLoadKHR": lambda m, inst, memo: _load_store(m, inst, True, memo),
    "OpCooperativeMatrixStoreKHR": lambda m, inst, memo: _load_store(m, inst, False, memo),
    "OpCooperativeMatrixLengthKHR": lambda m, inst, memo: _length(m, inst, inst.operand("Type")),
    "OpSpecConstantOp": lambda m, inst, memo: _spec_length(m, inst),
}
# and these judge values of a cooperative matrix type, so they run only when the module declares one.
_VALUE_JUDGES: dict[str, Judge] = {
    **_OWN_JUDGES,
    "OpVariable": lambda m, inst, memo: _storage(m, inst),
    "OpCooperativeMatrixMulAddKHR": lambda m, inst, memo: _muladd(m, inst),
    **dict.fromkeys(_CONVERSIONS, lambda m, inst, memo: _conversion(m, inst)),
    **dict.fromkeys((*_UNARY, *_BINARY, "OpMatrixTimesScalar"), lambda m, inst, memo: _arithmetic(m, inst)),
    **dict.fromkeys(_COMPOSITES, lambda m, inst, memo: _constituents(m, inst)),
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
