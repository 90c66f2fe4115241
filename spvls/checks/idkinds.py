"""What an id is (a type, a value, or something typeless such as a label), and which ids an
instruction's <id> operands may name: what the id family's two types.* rules judge."""

from __future__ import annotations

from ..model.facts import module_fact
from ..model.module import Inst, Module

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
