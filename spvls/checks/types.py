"""types.*: the parameters of type declarations (widths, signedness, component counts), and <id> operands
that must (or must not) name a type. The latter are judged in the id check's walk over every operand
(ids.py calls kinds, accepts, not_a_type and not_a_value): one walk, not two."""

from __future__ import annotations

from ..model.facts import module_fact
from ..model.module import Inst, Module
from .diagnostic import Diagnostic, cited

RULES = {
    "types.int-width": "Scalar integer types must be parameterized only as 32 bit, plus any additional sizes "
    "enabled by capabilities.",
    "types.float-width": "Scalar floating-point types must be parameterized only as 32 bit, plus any additional "
    "sizes enabled by capabilities.",
    "types.signedness": "Signedness specifies whether there are signed semantics to preserve or validate. 0 "
    "indicates unsigned, or no signedness semantics. 1 indicates signed semantics.",
    "types.vector-size": "Vector types must be parameterized only with 2, 3, or 4 components, plus any additional "
    "sizes enabled by capabilities.",
    "types.result-type": "Instruction: ... An instruction contains a word count, an opcode, an optional Result "
    "<id>, an optional <id> of the instruction’s type, and a variable list of operands.",
    "types.not-a-value": "Object: An instantiation of a non-void type, either as the Result <id> of an operation, "
    "or created through OpVariable.",
}
# Instructions whose <id> operands may name a type, as spirv-val allows (besides type declarations,
# debug and annotation instructions, and untyped-pointer instructions).
_TAKE_TYPES = {
    "OpSizeOf",
    "OpCooperativeMatrixLengthNV",
    "OpCooperativeMatrixLengthKHR",
    "OpUntypedArrayLengthKHR",
    "OpFunction",
    "OpAsmINTEL",
    "OpExtInst",
    "OpExtInstWithForwardRefsKHR",
    "OpSpecConstantOp",
    "OpExecutionModeId",
}  # (FPFastMathDefault's Target Type)
# Instructions whose <id> operands may name something without a type (a label, a string, a set...).
_TAKE_UNTYPED = _TAKE_TYPES | {
    "OpExtInstImport",
    "OpSelectionMerge",
    "OpLoopMerge",
    "OpPhi",
    "OpBranch",
    "OpBranchConditional",
    "OpSwitch",
    "OpEntryPoint",
    "OpExecutionMode",
}
_ANY_ID_CLASSES = {"Type-Declaration", "Debug", "Annotation"}


@module_fact
def kinds(m: Module) -> dict[str, str]:
    """What each type id and each typeless id is ('type', or the opname: OpLabel, OpString...), for
    the ids outside functions and the labels."""
    kinds: dict[str, str] = {}
    for inst in m.outside_functions():
        res = inst.result
        if res and inst.spec is not None and not inst.spec.has_result_type:
            kinds.setdefault(res, "type" if inst.spec.cls == "Type-Declaration" else inst.opname)
    for fn in m.functions:
        for b in fn.blocks:
            kinds.setdefault(b.label, "OpLabel")
    return kinds


def accepts(inst: Inst) -> tuple[bool, bool]:
    """Whether the instruction's <id> operands may name a type, and something typeless."""
    op = inst.opname
    spec = inst.spec
    if spec is None or spec.cls in _ANY_ID_CLASSES or op.startswith("OpUntyped"):
        return True, True
    return op in _TAKE_TYPES, op in _TAKE_UNTYPED


def not_a_type(inst: Inst, op, kind: str | None, d: Inst) -> Diagnostic | None:
    """A Result Type naming a typeless id, or a value (a constant, a variable...)."""
    if kind is not None:
        what = f"an {kind}"
    elif d.spec is None or d.spec.cls == "Type-Declaration":
        return None
    else:
        what = f"the result of {d.opname}"
    return cited(
        inst.line,
        op.token,
        "types.result-type",
        f"the Result Type {op.token.text} is {what}, not a type",
        RULES["types.result-type"],
    )


def not_a_value(inst: Inst, op, kind: str) -> Diagnostic:
    name = f"'{op.spec.name}'" if op.spec.name else "the operand"
    what = "a type" if kind == "type" else f"an {kind}, which has no type"
    return cited(
        inst.line,
        op.token,
        "types.not-a-value",
        f"{name} of {inst.opname} is an object, but {op.token.text} is {what}",
        RULES["types.not-a-value"],
    )


# Sizes some capability enables (capability.* says which one is missing).
_INT_WIDTHS = {8, 16, 32, 64}
_FLOAT_WIDTHS = {16, 32, 64}
_VECTOR_SIZES = {2, 3, 4, 8, 16}


def check(m: Module, scope=None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in m.with_op(_DECLS, scope):  # declared outside functions: none in a function's scope
        out.extend(_DECLS[inst.opname](inst))
    return out


def _lits(inst: Inst):
    return [o for o in inst.match.operands if not o.is_id and o.token.kind == "INT" and o.token.text.isdigit()]


def _int(inst: Inst) -> list[Diagnostic]:
    out = []
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _INT_WIDTHS:
        out.append(
            cited(
                inst.line,
                lits[0].token,
                "types.int-width",
                f"OpTypeInt has a Width of {lits[0].token.text} bits",
                RULES["types.int-width"],
            )
        )
    if len(lits) > 1 and lits[1].spec.name == "Signedness" and int(lits[1].token.text) not in (0, 1):
        out.append(
            cited(
                inst.line,
                lits[1].token,
                "types.signedness",
                f"OpTypeInt has a Signedness of {lits[1].token.text}",
                RULES["types.signedness"],
            )
        )
    return out


def _float(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if not lits:
        return []
    width = int(lits[0].token.text)
    encoded = any(o.enumerants for o in inst.match.operands)
    if width in _FLOAT_WIDTHS or (width == 8 and encoded):
        return []
    return [
        cited(
            inst.line,
            lits[0].token,
            "types.float-width",
            f"OpTypeFloat has a Width of {width} bits" + (" (8 bits need an FP encoding)" if width == 8 else ""),
            RULES["types.float-width"],
        )
    ]


def _vector(inst: Inst) -> list[Diagnostic]:
    lits = _lits(inst)
    if lits and int(lits[0].token.text) not in _VECTOR_SIZES:
        return [
            cited(
                inst.line,
                lits[0].token,
                "types.vector-size",
                f"OpTypeVector has {lits[0].token.text} components",
                RULES["types.vector-size"],
            )
        ]
    return []


_DECLS = {"OpTypeInt": _int, "OpTypeFloat": _float, "OpTypeVector": _vector}
