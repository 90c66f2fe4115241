"""id.*: undefined ids, ids defined twice, forward references SPIR-V forbids."""
from __future__ import annotations

from ..model.module import Inst, Module
from ..spec.names import suggest
from .diagnostic import ERROR, Diagnostic, Edit, Fix, Related

# Operands (by word index, result type and result id counted) that may name an id
# defined later: SPIR-V 2.4 "Logical Layout" allows forward references only in these.
_ANY = frozenset({"OpExecutionMode", "OpExecutionModeId", "OpEntryPoint", "OpName", "OpMemberName",
                  "OpSelectionMerge", "OpDecorate", "OpMemberDecorate", "OpDecorateId",
                  "OpDecorateString", "OpMemberDecorateString", "OpBranch", "OpLoopMerge",
                  "OpExtInstWithForwardRefsKHR"})
_NOT_FIRST = frozenset({"OpGroupDecorate", "OpGroupMemberDecorate", "OpBranchConditional", "OpSwitch"})
_INDEX = {"OpFunctionCall": {2}, "OpEnqueueKernel": {8}, "OpGetKernelNDrangeSubGroupCount": {3},
          "OpGetKernelNDrangeMaxSubGroupSize": {3}, "OpGetKernelWorkGroupSize": {2},
          "OpGetKernelPreferredWorkGroupSizeMultiple": {2}, "OpTypeForwardPointer": {0}}
# Debug-info sets that predate the rule; NonSemantic sets allow none.
_FORWARD_SETS = frozenset({"DebugInfo", "OpenCL.DebugInfo.100"})


def _may_forward(m: Module, inst: Inst, index: int) -> bool:
    op = inst.opname
    spec = inst.spec
    if op in _ANY or (spec and spec.cls == "Type-Declaration"):
        return True
    if op in _NOT_FIRST:
        return index != 0
    if op == "OpPhi":
        return index > 1
    if op == "OpExtInst":
        ids = inst.ids()
        return len(ids) > 1 and m.ext_imports.get(ids[1].token.text) in _FORWARD_SETS
    return index in _INDEX.get(op, ())


def _word_index(inst: Inst, position: int) -> int:
    """The operand's word-operand index as SPIR-V counts it (result id included)."""
    spec = inst.spec
    if spec is None or not spec.has_result:
        return position
    return position + 1 if not spec.has_result_type or position > 0 else 0


def _candidates(m: Module, name: str) -> list[str]:
    """Defined ids close enough in length and spelling to be worth a did-you-mean."""
    by_len = m.memo.get("ids.by_len")
    if by_len is None or m.memo.get("ids.defs_size") != len(m.defs):
        by_len = {}
        for id_ in m.defs:
            by_len.setdefault(len(id_), []).append(id_)
        m.memo["ids.by_len"], m.memo["ids.defs_size"] = by_len, len(m.defs)
    pool = [c for k in range(len(name) - 2, len(name) + 3) for c in by_len.get(k, ())]
    keep = 2
    while len(pool) > 2000 and keep < len(name):
        keep += 1
        pool = [c for c in pool if c[:keep] == name[:keep]]
    return pool


def check(m: Module, scope=None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in m.duplicates:
        if scope is not None and not scope.line <= inst.line <= scope.end_line:
            continue
        first = m.defs[inst.result]
        tok = inst.src.result
        out.append(Diagnostic(inst.line, tok.start, tok.end, ERROR, "id.duplicate",
                              f"{inst.result} is already defined on line {first.line + 1}: "
                              "each <id> is defined exactly once (SPIR-V 2.2.2)",
                              (Related(first.line, first.src.result.start, first.src.result.end,
                                       f"first definition of {inst.result}"),)))
    for inst in m.scoped(scope):
        for pos, op in enumerate(inst.match.operands):
            if not op.is_id:
                continue
            name, tok = op.token.text, op.token
            d = m.defs.get(name)
            if d is None:
                sugg = suggest(name, _candidates(m, name))
                hint = f"; did you mean {sugg[0]}?" if sugg else ""
                fixes = tuple(Fix(f"Change to {s}", (Edit(inst.line, tok.start, tok.end, s),)) for s in sugg[:3])
                out.append(Diagnostic(inst.line, tok.start, tok.end, ERROR, "id.undefined",
                                      f"{name} is used but never defined{hint}", fixes=fixes))
            elif d.line > inst.line and not _may_forward(m, inst, _word_index(inst, pos)):
                out.append(Diagnostic(inst.line, tok.start, tok.end, ERROR, "id.forward-reference",
                                      f"{name} is used before its definition on line {d.line + 1}; "
                                      f"{inst.opname} may not forward-reference this operand (SPIR-V 2.4)",
                                      (Related(d.line, d.src.result.start, d.src.result.end,
                                               f"{name} is defined here"),)))
    return out
