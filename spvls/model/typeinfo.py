"""Types in readable form, e.g. coopmat<f16, Subgroup, 16×16, MatrixAKHR>."""

from __future__ import annotations

from ..syntax.parser import int_value
from .module import Inst, Module


def _scope_name(m: Module, id_: str) -> str:
    v = m.int_value(id_)
    if v is None:
        return m.name_of(id_)
    e = m.grammar.kinds["Scope"].by_value.get(v)
    return e.name if e else str(v)


def _num(m: Module, id_: str) -> str:
    v = m.int_value(id_)
    return str(v) if v is not None else m.name_of(id_)


def describe(m: Module, t: Inst | None, depth: int = 0) -> str:
    if t is None:
        return "?"
    if depth > 4:
        return "…"
    op = t.opname
    ids = [o.token.text for o in t.ids()]
    lits = [o.token.text for o in t.match.operands if not o.is_id]
    sub = lambda i: describe(m, m.definition(ids[i]) if i < len(ids) else None, depth + 1)  # noqa: E731
    if op == "OpTypeVoid":
        return "void"
    if op == "OpTypeBool":
        return "bool"
    if op == "OpTypeInt" and len(lits) >= 2:
        return ("i" if lits[1] == "1" else "u") + lits[0]
    if op == "OpTypeFloat" and lits:
        return "f" + lits[0] + (f"<{lits[1]}>" if len(lits) > 1 else "")
    if op == "OpTypeVector" and lits:
        return f"vec{lits[0]}<{sub(0)}>"
    if op == "OpTypeMatrix" and lits:
        return f"mat{lits[0]}<{sub(0)}>"
    if op == "OpTypeArray" and len(ids) >= 2:
        return f"{sub(0)}[{_num(m, ids[1])}]"
    if op == "OpTypeRuntimeArray":
        return f"{sub(0)}[]"
    if op == "OpTypePointer" and lits:
        return f"ptr<{lits[0]}, {sub(0)}>"
    if op == "OpTypeStruct":
        return (
            "struct " + (m.names.get(t.result or "") or t.result or "")
            if depth
            else "struct {" + ", ".join(describe(m, m.definition(i), depth + 1) for i in ids) + "}"
        )
    if op == "OpTypeFunction":
        return f"fn({', '.join(describe(m, m.definition(i), depth + 1) for i in ids[1:])}) -> {sub(0)}"
    if op == "OpTypeCooperativeMatrixKHR" and len(ids) >= 5:
        use_v = m.int_value(ids[4])
        use_e = m.grammar.kinds["CooperativeMatrixUse"].by_value.get(use_v) if use_v is not None else None
        use = use_e.name if use_e else m.name_of(ids[4])
        return f"coopmat<{sub(0)}, {_scope_name(m, ids[1])}, {_num(m, ids[2])}×{_num(m, ids[3])}, {use}>"
    if op == "OpTypeImage":
        return f"image<{sub(0)}, {' '.join(lits)}>"
    if op == "OpTypeSampledImage":
        return f"sampled_image<{sub(0)}>"
    return op.removeprefix("OpType").lower()


def type_text(m: Module, id_: str) -> str | None:
    """The readable type of a value id, or of a type id itself."""
    d = m.definition(id_)
    if d is None:
        return None
    if d.is_type:
        return describe(m, d)
    if d.opname == "OpFunction":
        ft = d.ids()
        return describe(m, m.definition(ft[1].token.text)) if len(ft) > 1 else None
    if d.result_type:
        return describe(m, m.definition(d.result_type))
    return None


# -- predicates over type instructions (None when unknown) --------------------
def int_info(t: Inst | None) -> tuple[int, bool] | None:
    """(width, signed) of an OpTypeInt."""
    if t is None or t.opname != "OpTypeInt":
        return None
    lits = [o.token.text for o in t.match.operands if not o.is_id]
    width = int_value(lits[0]) if len(lits) >= 2 else None  # ASCII digits only: '²'.isdigit() is true
    if width is None:
        return None
    return width, lits[1] == "1"


def float_encoding(t: Inst | None) -> str | None:
    """The FP Encoding operand of an OpTypeFloat (BFloat16KHR, Float8E4M3EXT, ...)."""
    if t is None or t.opname != "OpTypeFloat":
        return None
    for op in t.match.operands:
        if op.enumerants:
            return op.enumerants[0].name
    return None


def is_scalar(t: Inst | None) -> bool:
    return t is not None and t.opname in ("OpTypeInt", "OpTypeFloat", "OpTypeBool")


def vector_of(m: Module, t: Inst | None) -> tuple[Inst | None, int] | None:
    """(component type, count) of an OpTypeVector."""
    if t is None or t.opname != "OpTypeVector":
        return None
    ids = t.ids()
    lits = [o.token.text for o in t.match.operands if not o.is_id]
    count = (int_value(lits[0]) or 0) if lits else 0
    return (m.definition(ids[0].token.text) if ids else None), count


def scalar_of(m: Module, t: Inst | None) -> Inst | None:
    """The scalar type of a scalar or vector type."""
    v = vector_of(m, t)
    return v[0] if v else (t if is_scalar(t) else None)


def contains(m: Module, t: Inst | None, opname: str, depth: int = 0) -> bool:
    """Whether a type is, or (through arrays and structs) holds, a type of `opname`."""
    if t is None or depth > 16:
        return False
    if t.opname == opname:
        return True
    if t.opname in ("OpTypeArray", "OpTypeRuntimeArray", "OpTypeStruct"):
        ids = t.ids()
        if t.opname == "OpTypeArray":
            ids = ids[:1]
        return any(contains(m, m.definition(o.token.text), opname, depth + 1) for o in ids)
    return False
