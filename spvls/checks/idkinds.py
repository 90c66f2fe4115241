"""What an id is (a type, a value, or something typeless such as a label) and the two types.* rules
about it, shared by two families: the id check judges them in its walk over every operand (one walk,
not two), and types.RULES lists them with the family's other rules."""

from __future__ import annotations

from ..model.facts import module_fact
from ..model.module import Inst, Module
from .diagnostic import Diagnostic, cited

RULES = {  # types.* rules (types.RULES holds them too), judged in the id check's walk
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
_ANY_ID_CLASSES = {"Debug", "Annotation"}  # and type declarations


@module_fact
def kinds(m: Module) -> dict[str, str]:
    """What each type id and each typeless id is ('type', or the opname: OpLabel, OpString...), for
    the ids outside functions and the labels."""
    kinds: dict[str, str] = {}
    for inst in m.outside_functions():
        res = inst.result
        if res and inst.grammar_inst is not None and not inst.grammar_inst.has_result_type:
            kinds.setdefault(res, "type" if inst.grammar_inst.is_type else inst.opname)
    for fn in m.functions:
        for b in fn.blocks:
            kinds.setdefault(b.label, "OpLabel")
    return kinds


def accepts(inst: Inst) -> tuple[bool, bool]:
    """Whether the instruction's <id> operands may name a type, and something typeless."""
    op = inst.opname
    grammar_inst = inst.grammar_inst
    if (
        grammar_inst is None
        or grammar_inst.is_type
        or grammar_inst.cls in _ANY_ID_CLASSES
        or op.startswith("OpUntyped")
    ):
        return True, True
    return op in _TAKE_TYPES, op in _TAKE_UNTYPED


def not_a_type(inst: Inst, op, kind: str | None, d: Inst) -> Diagnostic | None:
    """A Result Type naming a typeless id, or a value (a constant, a variable...)."""
    if kind is not None:
        what = f"an {kind}"
    elif d.grammar_inst is None or d.grammar_inst.is_type:
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
    name = f"'{op.grammar_operand.name}'" if op.grammar_operand.name else "the operand"
    what = "a type" if kind == "type" else f"an {kind}, which has no type"
    return cited(
        inst.line,
        op.token,
        "types.not-a-value",
        f"{name} of {inst.opname} is an object, but {op.token.text} is {what}",
        RULES["types.not-a-value"],
    )
