"""decoration.*: what each decoration may be applied to (a variable, a structure type, a memory
object declaration, a structure member), that an id or member has a decoration once, and that a
structure's members are all built-ins or none.

Everything here sits on annotation and type lines, outside functions, except a repeated
decoration, which is reported on its target's definition (where spirv-val reports it), possibly
inside a function. A decoration's target may be defined inside a function: an in-place edit of such
a line rebuilds the module (Module.update: the id is read outside the function).
"""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.operands import Operand
from ...model.shapes import members
from ...syntax.parser import int_value
from ..diagnostic import Diagnostic, related_at
from ..family import Family, Rule
from ..scope import Scope, holds

_VARIABLES = frozenset({"OpVariable", "OpUntypedVariableKHR"})
_SPEC_SCALARS = frozenset({"OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstant"})
_MEMORY_OBJECTS = _VARIABLES | {"OpFunctionParameter", "OpRawAccessChainNV"}
_POINTERS = frozenset({"OpTypePointer", "OpTypeUntypedPointerKHR"})
_ARRAYS_OR_POINTERS = _POINTERS | {"OpTypeArray", "OpTypeRuntimeArray"}

_VARIABLE = "Apply only to a variable."
_STRUCT = "Apply only to a structure type to establish it is a memory interface block."
_MEMORY_OBJECT = (
    "Memory Object Declaration: An OpVariable, or an OpFunctionParameter of pointer type, or the contents of "
    "an OpVariable that holds either a pointer to the PhysicalStorageBuffer storage class or an array of such "
    "pointers."
)
# What each decoration may decorate (the opnames, what they are, the spec sentence saying so).
_TARGETS: dict[str, tuple[frozenset[str], str, str]] = {
    **dict.fromkeys(
        ("Block", "BufferBlock", "GLSLShared", "GLSLPacked", "CPacked"),
        (frozenset({"OpTypeStruct"}), "a structure type", _STRUCT),
    ),
    "SpecId": (
        _SPEC_SCALARS,
        "a scalar specialization constant (OpSpecConstantTrue, OpSpecConstantFalse or OpSpecConstant)",
        "SpecId: Apply only to a scalar specialization constant.",
    ),
    "ArrayStride": (
        _ARRAYS_OR_POINTERS,
        "an array or pointer type",
        "ArrayStride: Apply to an array type to specify the stride, in bytes, of the array's elements. Can also "
        "apply to a pointer type to an array element, with Stride being the stride of the pointer.",
    ),
    **dict.fromkeys(
        (
            "NoPerspective",
            "Flat",
            "Patch",
            "Centroid",
            "Sample",
            "Restrict",
            "Aliased",
            "Volatile",
            "Coherent",
            "NonWritable",
            "NonReadable",
            "XfbBuffer",
            "XfbStride",
            "Component",
            "Stream",
            "RestrictPointer",
            "AliasedPointer",
            "PerPrimitiveEXT",
        ),
        (_MEMORY_OBJECTS, "a memory object declaration (a variable or a pointer function parameter)", _MEMORY_OBJECT),
    ),
    **dict.fromkeys(
        ("Invariant", "Constant", "Location", "Index", "Binding", "DescriptorSet", "InputAttachmentIndex"),
        (_VARIABLES, "a variable", _VARIABLE),
    ),
}
_BUILTIN = (
    "BuiltIn: Apply to an object or a member of a structure type. Indicates which built-in the object represents."
)
_MATRIX_MEMBER = (
    "Apply only to a member of a structure type. Only valid on a matrix or array whose most basic element is a matrix."
)
# The member-only decorations, each with its sentence.
_MEMBER_ONLY = {
    "RowMajor": f"RowMajor: {_MATRIX_MEMBER} Indicates that components within a row are contiguous in memory.",
    "ColMajor": f"ColMajor: {_MATRIX_MEMBER} Indicates that components within a column are contiguous in memory.",
    "MatrixStride": f"MatrixStride: {_MATRIX_MEMBER}",
}
_MEMBER_DECORATE = "OpMemberDecorate: Add a Decoration to a member of a structure type."
_NOT_MEMBER = frozenset(
    {
        "SpecId",
        "Block",
        "BufferBlock",
        "ArrayStride",
        "GLSLShared",
        "GLSLPacked",
        "CPacked",
        "Aliased",
        "Constant",
        "Uniform",
        "UniformId",
        "SaturatedConversion",
        "Index",
        "Binding",
        "DescriptorSet",
        "FuncParamAttr",
        "FPRoundingMode",
        "FPFastMathMode",
        "LinkageAttributes",
        "NoContraction",
        "InputAttachmentIndex",
        "Alignment",
        "MaxByteOffset",
        "AlignmentId",
        "MaxByteOffsetId",
        "NoSignedWrap",
        "NoUnsignedWrap",
        "NonUniform",
        "RestrictPointer",
        "AliasedPointer",
        "CounterBuffer",
    }
)
# Decorations an id (a member) may have more than once; pairs it may not have both of.
_REPEATABLE_ON_ID = frozenset({"UserSemantic", "FuncParamAttr"})
_REPEATABLE_ON_MEMBER = frozenset({"UserSemantic"})
_EXCLUSIVE_ON_ID = (("Block", "BufferBlock"), ("Restrict", "Aliased"), ("RestrictPointer", "AliasedPointer"))
_EXCLUSIVE_ON_MEMBER = (("RowMajor", "ColMajor"),)


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if scope is not None:  # only a repeated decoration's target may lie inside a function
        return [d for d in _check(m) if holds(scope, d.line)]
    return _check(m)


def _check(m: Module) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    # A decoration or type misplaced inside a function is layout.*'s: judged here, its diagnostic would
    # lie inside a function this family does not re-check in place.
    decorations = [i for i in m.with_op(("OpDecorate", "OpMemberDecorate")) if m.function_at(i.line) is None]
    for inst in decorations:
        out.extend((_member_decorate if inst.opname == "OpMemberDecorate" else _decorate)(m, inst))
    out.extend(_repeated(m, decorations))
    for inst in m.with_op(("OpTypeStruct",)):
        if m.function_at(inst.line) is None:
            out.extend(_builtin_members(m, inst))
    return out


def _decoration(inst: Inst, at: int) -> Operand | None:
    ops = inst.operands
    return ops[at] if len(ops) > at and ops[at].enumerants else None


def _decorate(m: Module, inst: Inst) -> list[Diagnostic]:
    dec = _decoration(inst, 1)
    if dec is None or not inst.operands[0].is_id:
        return []
    target_tok = inst.operands[0].token
    target = m.definition(target_tok.text)
    if target is None or target.opname == "OpDecorationGroup":
        return []
    name = dec.enumerants[0].name
    if name in _MEMBER_ONLY:
        return [
            FAMILY.cite(
                inst.line,
                dec.token,
                "decoration.member-only",
                f"{name} decorates {target_tok.text}, an {target.opname}: it applies only to a structure member "
                "(OpMemberDecorate)",
                sentence=_MEMBER_ONLY[name],
            )
        ]
    if name == "BuiltIn":
        return _builtin_target(m, inst, dec, target)
    if name not in _TARGETS:
        return []
    allowed, what, _ = _TARGETS[name]
    sentence = _target_sentence(name)
    if target.opname not in allowed:
        lead = f"{name} decorates {target_tok.text}, an {target.opname}: it applies only to {what}"
    elif allowed is _MEMORY_OBJECTS and not _is_pointer(m, target):
        lead = f"{name} decorates {target_tok.text}, which is not of a pointer type: it applies only to {what}"
    else:
        return []
    return [FAMILY.cite(inst.line, target_tok, "decoration.target", lead, sentence=sentence)]


def _target_sentence(name: str) -> str:
    """The sentence saying what the decoration applies to, led by its name where the spec's table gives
    it in the decoration's own row ("Apply only to a variable.")."""
    sentence = _TARGETS[name][2]
    return f"{name}: {sentence}" if sentence.startswith("Apply") else sentence


def _is_pointer(m: Module, value: Inst) -> bool:
    t = m.definition(value.result_type)
    return t is not None and t.opname in _POINTERS


def _builtin_target(m: Module, inst: Inst, dec: Operand, target: Inst) -> list[Diagnostic]:
    """BuiltIn on an OpDecorate: a variable, or (WorkgroupSize in a Shader module) a constant."""
    tok = inst.operands[0].token
    which = inst.operands[2].token.text if len(inst.operands) > 2 else ""
    constant = m.is_constant(tok.text)
    if which == "WorkgroupSize" and "Shader" in m.declared_caps:
        if constant:
            return []
        lead = f"BuiltIn WorkgroupSize decorates {tok.text}, an {target.opname}: it must be a constant"
    elif target.opname in _VARIABLES:
        return []
    else:
        lead = f"BuiltIn decorates {tok.text}, an {target.opname}: it applies only to a variable (or a member)"
    return [FAMILY.cite(inst.line, tok, "decoration.target", lead, sentence=_BUILTIN)]


def _member_decorate(m: Module, inst: Inst) -> list[Diagnostic]:
    ops = inst.operands
    if len(ops) < 3 or not ops[0].is_id:
        return []
    struct_tok = ops[0].token
    struct = m.definition(struct_tok.text)
    if struct is None:
        return []
    if struct.opname != "OpTypeStruct":
        return [
            FAMILY.cite(
                inst.line,
                struct_tok,
                "decoration.member-target",
                f"OpMemberDecorate's Structure Type {struct_tok.text} is an {struct.opname}, not a structure type",
            )
        ]
    index = int_value(ops[1].token.text)
    count = len(members(m, struct_tok.text))
    if index is not None and index >= count:
        return [
            FAMILY.cite(
                inst.line,
                ops[1].token,
                "decoration.member-target",
                f"member {index} of {struct_tok.text}, which has {count} member{'s' if count != 1 else ''}",
            )
        ]
    dec = _decoration(inst, 2)
    if dec is not None and dec.enumerants[0].name in _NOT_MEMBER:
        name = dec.enumerants[0].name
        return [
            FAMILY.cite(
                inst.line,
                dec.token,
                "decoration.not-member",
                f"{name} decorates a structure member: it does not apply to one (OpDecorate the object instead)",
                # What the decoration applies to, where this family knows the sentence saying so.
                sentence=_target_sentence(name) if name in _TARGETS else None,
            )
        ]
    return []


def _repeated(m: Module, decorations: list[Inst]) -> list[Diagnostic]:
    """A decoration given twice to one id or member (or one of an exclusive pair with the other), on
    the target's definition (where spirv-val reports it), in line order as spirv-val reads them."""
    out: list[Diagnostic] = []
    seen: dict[tuple[str, str, str], Inst] = {}  # (target, member index or "", decoration)
    for inst in decorations:
        member = inst.opname == "OpMemberDecorate"
        dec = _decoration(inst, 2 if member else 1)
        if dec is None or not inst.operands[0].is_id:
            continue
        target = inst.operands[0].token.text
        index = inst.operands[1].token.text if member else ""
        name = dec.enumerants[0].name
        first = seen.setdefault((target, index, name), inst)
        repeatable = _REPEATABLE_ON_MEMBER if member else _REPEATABLE_ON_ID
        what = f"member {index} of {target}" if member else target
        if first is not inst and name not in repeatable:
            out.extend(_twice(m, inst, f"{what} is decorated {name} a second time", first))
            continue
        for a, b in _EXCLUSIVE_ON_MEMBER if member else _EXCLUSIVE_ON_ID:
            other = b if name == a else a if name == b else None
            earlier = seen.get((target, index, other)) if other is not None else None
            if earlier is not None:
                out.extend(_twice(m, inst, f"{what} is decorated both {other} and {name}", earlier))
    return out


def _twice(m: Module, inst: Inst, lead: str, first: Inst) -> list[Diagnostic]:
    target = m.definition(inst.operands[0].token.text)
    if target is None:
        return []
    return [
        FAMILY.cite(
            target.line,
            target.src.result or target.opcode,
            "decoration.duplicate",
            lead,
            related=(
                related_at(first.line, first.opcode, "the first decoration"),
                related_at(inst.line, inst.opcode, "the second"),
            ),
        )
    ]


def _builtin_members(m: Module, inst: Inst) -> list[Diagnostic]:
    """A structure with a BuiltIn member has only BuiltIn members."""
    if inst.result is None:
        return []
    builtins = set()
    for d in m.decorations.get(inst.result, ()):
        dec = _decoration(d, 2) if d.opname == "OpMemberDecorate" else None
        index = int_value(d.operands[1].token.text) if dec is not None else None
        if dec is not None and dec.enumerants[0].name == "BuiltIn" and index is not None:
            builtins.add(index)
    count = len(members(m, inst.result))
    if not builtins or len(builtins) == count:
        return []
    plain = [i for i in range(count) if i not in builtins]
    return [
        FAMILY.cite(
            inst.line,
            inst.src.result or inst.opcode,
            "decoration.builtin-members",
            f"{inst.result} has BuiltIn members and member{'s' if len(plain) > 1 else ''} "
            f"{', '.join(map(str, plain[:4]))}{', …' if len(plain) > 4 else ''} without BuiltIn",
        )
    ]


FAMILY = Family(
    name="decorations",
    prefix="decoration",
    summary="what each decoration applies to, a decoration given once per id or member, built-in structures.",
    rules=(
        Rule(
            "decoration.target",
            "a decoration on an id it does not apply to (Binding on a type, Block on a variable, Flat on a "
            "value, ArrayStride on a struct, …).",
            sentence=_VARIABLE,
        ),
        Rule(
            "decoration.member-only",
            "RowMajor, ColMajor or MatrixStride on an id rather than a structure member.",
            sentence=_MEMBER_ONLY["MatrixStride"],
        ),
        Rule(
            "decoration.not-member",
            "a decoration that applies to objects or types (Binding, Block, ArrayStride, …) on a structure member.",
            sentence=_MEMBER_DECORATE,
        ),
        Rule(
            "decoration.member-target",
            "an OpMemberDecorate whose Structure Type is not a structure, or whose Member is past its last.",
            sentence=f"{_MEMBER_DECORATE} Structure type is the <id> of a type from OpTypeStruct. Member is the "
            "number of the member to decorate in the type. The first member is member 0, the next is member 1, …",
        ),
        Rule(
            "decoration.duplicate",
            "a decoration given twice to one id or member, or both of Block and BufferBlock, Restrict and "
            "Aliased, RowMajor and ColMajor.",
            sentence="Decorations: Unless explicitly stated otherwise, an <id> or structure member must not be "
            "decorated more than once with the same decoration.",
        ),
        Rule(
            "decoration.builtin-members",
            "a structure mixing BuiltIn and other members.",
            sentence="When applied to a structure-type member, all members of that structure type must also be "
            "decorated with BuiltIn. (No allowed mixing of built-in variables and non-built-in variables within "
            "a single structure.)",
        ),
    ),
    check=check,
)
