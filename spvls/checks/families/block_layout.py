"""block.*: the explicit layout of the blocks in Uniform, StorageBuffer, PushConstant and
PhysicalStorageBuffer memory (Workgroup too with WorkgroupMemoryExplicitLayoutKHR): an Offset on
every member, an ArrayStride on every array, a MatrixStride and RowMajor/ColMajor on every matrix.

Reported on the block's OpTypeStruct (where spirv-val reports it), naming the member; everything
read is outside functions, so it is judged whole.
"""

from __future__ import annotations

from ...model.blocks import Place, explicit_blocks, missing_offset, missing_stride
from ...model.module import Module
from ...model.shapes import member_names
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope

_LAID_OUT = (
    "Composite objects in the StorageBuffer, PhysicalStorageBuffer, Uniform, and PushConstant Storage Classes "
    "must be explicitly laid out."
)
# (code, what a member lacks, the spec sentence); each reported at its first place, so a struct
# missing several kinds gets one diagnostic for each.
_NEEDS = (
    ("block.offset", "Offset", "Each structure-type member must have an Offset decoration."),
    (
        "block.array-stride",
        "ArrayStride",
        "Each array type must have an ArrayStride decoration, unless it is an array that contains a structure "
        "decorated with Block or BufferBlock, in which case it must not have an ArrayStride decoration.",
    ),
    (
        "block.matrix-stride",
        "MatrixStride",
        "Each structure-type member that is a matrix or array-of-matrices must be decorated with a "
        "MatrixStride decoration, and one of the RowMajor or ColMajor decorations.",
    ),
    (
        "block.majorness",
        "RowMajor",
        "Each structure-type member that is a matrix or array-of-matrices must be decorated with a "
        "MatrixStride decoration, and one of the RowMajor or ColMajor decorations.",
    ),
)


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if scope is not None:
        return []  # type and annotation lines only: judged whole
    out: list[Diagnostic] = []
    for struct_id, decoration in explicit_blocks(m).items():
        t = m.definition(struct_id)
        if t is None or m.function_at(t.line) is not None:
            continue  # a type misplaced inside a function is layout.*'s
        for code, needed, sentence in _NEEDS:
            place = missing_offset(m, struct_id) if needed == "Offset" else missing_stride(m, struct_id, needed)
            if place is None:
                continue
            what = "RowMajor or ColMajor" if needed == "RowMajor" else needed
            lead = f"{struct_id} is a {decoration} struct: {_member(m, place, struct_id)} has no {what}"
            out.append(FAMILY.cite(t.line, t.src.result or t.opcode, code, lead, sentence=f"{_LAID_OUT} {sentence}"))
    return out


def _member(m: Module, place: Place, block: str) -> str:
    struct_id, index = place
    name = member_names(m, struct_id).get(index)
    named = f" ({name})" if name else ""
    inside = "" if struct_id == block else f" of {struct_id}"
    return f"member {index}{named}{inside}"


FAMILY = Family(
    name="block_layout",
    prefix="block",
    summary="the explicit layout of Uniform, StorageBuffer, PushConstant and PhysicalStorageBuffer blocks "
    "(Offset, ArrayStride, MatrixStride, RowMajor/ColMajor).",
    rules=(
        Rule("block.offset", "a block's member (or a member of a struct inside it) without an Offset.", _NEEDS[0][2]),
        Rule("block.array-stride", "an array inside a block without an ArrayStride.", _NEEDS[1][2]),
        Rule("block.matrix-stride", "a matrix inside a block without a MatrixStride.", _NEEDS[2][2]),
        Rule("block.majorness", "a matrix inside a block without RowMajor or ColMajor.", _NEEDS[3][2]),
    ),
    check=check,
)
