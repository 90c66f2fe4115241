"""types.*: type declarations' parameters, and <id> operands that must (or must not) name a type."""
from __future__ import annotations

from ..model.module import Inst, Module
from .diagnostic import Diagnostic, cited

RULES = {
    "types.result-type": "Instruction: ... An instruction contains a word count, an opcode, an optional Result <id>, "
                         "an optional <id> of the instruction’s type, and a variable list of operands.",
    "types.not-a-value": "Object: An instantiation of a non-void type, either as the Result <id> of an operation, "
                         "or created through OpVariable.",
    "types.int-width": "Scalar integer types must be parameterized only as 32 bit, plus any additional sizes "
                       "enabled by capabilities.",
    "types.float-width": "Scalar floating-point types must be parameterized only as 32 bit, plus any additional "
                         "sizes enabled by capabilities.",
    "types.signedness": "Signedness specifies whether there are signed semantics to preserve or validate. 0 "
                        "indicates unsigned, or no signedness semantics. 1 indicates signed semantics.",
    "types.vector-size": "Vector types must be parameterized only with 2, 3, or 4 components, plus any additional "
                         "sizes enabled by capabilities.",
}

# Sizes some capability enables (capability.* says which one is missing).
_INT_WIDTHS = {8, 16, 32, 64}
_FLOAT_WIDTHS = {16, 32, 64}
_VECTOR_SIZES = {2, 3, 4, 8, 16}
# Instructions whose <id> operands may name a type, as spirv-val allows (besides type declarations,
# debug and annotation instructions, and untyped-pointer instructions).
_TAKE_TYPES = {"OpSizeOf", "OpCooperativeMatrixLengthNV", "OpCooperativeMatrixLengthKHR", "OpUntypedArrayLengthKHR",
               "OpFunction", "OpAsmINTEL", "OpExtInst", "OpExtInstWithForwardRefsKHR", "OpSpecConstantOp",
               "OpConstantSizeOfEXT"}
# Instructions whose <id> operands may be something without a type (a label, a string, a set...).
_TAKE_UNTYPED = _TAKE_TYPES | {"OpExtInstImport", "OpSelectionMerge", "OpLoopMerge", "OpPhi", "OpBranch",
                               "OpBranchConditional", "OpSwitch", "OpEntryPoint", "OpExecutionMode",
                               "OpExecutionModeId"}


def _kinds(m: Module) -> dict[str, str]:
    """What each type id and each typeless id is ('type' or the opname), for the ids outside functions and the
    labels. Neither changes with an edit the model takes in place (types and labels are structural or module-level)."""
    kinds = m.memo.get("types.kinds")
    if kinds is None:
        kinds = {}
        for inst in m.outside_functions():
            res = inst.result
            if res and inst.spec is not None and not inst.spec.has_result_type:
                kinds.setdefault(res, "type" if inst.spec.cls == "Type-Declaration" else inst.opname)
        for fn in m.functions:
            for b in fn.blocks:
                kinds.setdefault(b.label, "OpLabel")
        m.memo["types.kinds"] = kinds
    return kinds


def check(m: Module, scope=None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    kinds = _kinds(m)
    get = kinds.get
    for inst in m.scoped(scope):
        match = inst.match
        spec = match.inst
        if spec is None:
            continue
        if spec.has_result_type:
            if match.operands:
                rt = match.operands[0].token
                if get(rt.text) != "type" and rt.kind == "ID":
                    out.extend(_result_type(m, inst, rt, get(rt.text)))
        elif inst.opname in _DECLS:
            out.extend(_DECLS[inst.opname](inst))
    for id_, k, inst, o in _kind_uses(m, scope, kinds):
        spec = inst.match.inst
        if spec is None or o.spec.kind == "IdResultType":
            continue
        op = inst.opname
        cls = spec.cls
        if cls in _ANY_ID_CLASSES or op.startswith("OpUntyped"):
            continue
        if k == "type":
            if op not in _TAKE_TYPES:
                out.append(cited(inst.line, o.token, "types.not-a-value",
                                 f"{_name(o)} of {op} is an object, but {id_} is a type",
                                 RULES["types.not-a-value"]))
        elif op not in _TAKE_UNTYPED:
            out.append(cited(inst.line, o.token, "types.not-a-value",
                             f"{_name(o)} of {op} is an object, but {id_} is {_a(k)}, which has no type",
                             RULES["types.not-a-value"]))
    return out


def _kind_uses(m: Module, scope, kinds: dict[str, str]):
    """Each <id> operand naming a type or a typeless id, with its kind. Whole module: from those ids'
    uses, far fewer than all operands. One function: from its own operands, so a keystroke costs
    what the function holds, not what the module's types are used for."""
    if scope is None:
        for id_, k in kinds.items():
            for inst, o in m.uses.get(id_, ()):
                yield id_, k, inst, o
        return
    get = kinds.get
    for inst in m.scoped(scope):
        for o in inst.match.operands:
            tok = o.token
            if tok.kind == "ID":
                k = get(tok.text)
                if k is not None:
                    yield tok.text, k, inst, o


# Classes whose <id> operands may name anything: types declare with types; debug and annotation
# instructions name any id.
_ANY_ID_CLASSES = {"Type-Declaration", "Debug", "Annotation"}


def _result_type(m: Module, inst: Inst, tok, kind: str | None) -> list[Diagnostic]:
    if kind is not None:
        what = _a(kind)
    else:
        d = m.defs.get(tok.text)  # a value where the type belongs
        if d is None or d.spec is None or d.spec.cls == "Type-Declaration":
            return []
        what = f"the result of {d.opname}"
    return [cited(inst.line, tok, "types.result-type", f"the Result Type {tok.text} is {what}, not a type",
                  RULES["types.result-type"])]


def _a(opname: str) -> str:
    return f"an {opname}"  # every opname starts with "Op"


def _name(o) -> str:
    return f"'{o.spec.name}'" if o.spec.name else "the operand"


def _lits(inst: Inst):
    return [o for o in inst.match.operands if not o.is_id and o.token.kind == "INT" and o.token.text.isdigit()]


def _int(inst: Inst) -> list[Diagnostic]:
    out = []
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _INT_WIDTHS:
        out.append(cited(inst.line, lits[0].token, "types.int-width",
                         f"OpTypeInt has a Width of {lits[0].token.text} bits", RULES["types.int-width"]))
    if len(lits) > 1 and lits[1].spec.name == "Signedness" and int(lits[1].token.text) not in (0, 1):
        out.append(cited(inst.line, lits[1].token, "types.signedness",
                         f"OpTypeInt has a Signedness of {lits[1].token.text}", RULES["types.signedness"]))
    return out


def _float(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if not lits:
        return []
    width = int(lits[0].token.text)
    encoded = any(o.enumerants for o in inst.match.operands)
    if width in _FLOAT_WIDTHS or (width == 8 and encoded):
        return []
    return [cited(inst.line, lits[0].token, "types.float-width",
                  f"OpTypeFloat has a Width of {width} bits" + (" (8 bits need an FP encoding)" if width == 8 else ""),
                  RULES["types.float-width"])]


def _vector(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _VECTOR_SIZES:
        return [cited(inst.line, lits[0].token, "types.vector-size",
                      f"OpTypeVector has {lits[0].token.text} components", RULES["types.vector-size"])]
    return []


_DECLS = {"OpTypeInt": _int, "OpTypeFloat": _float, "OpTypeVector": _vector}
