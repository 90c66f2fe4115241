"""The id family: undefined ids, ids defined twice, forward references SPIR-V forbids; and, in the
same walk over every operand (one walk, not two), the types.* rules about what an id names: a
Result Type that is not a type or not the kind an instruction makes, an object operand that is a
type or typeless, a function named where none belongs."""

from __future__ import annotations

from bisect import bisect_left
from typing import Final

from ...model.facts import module_fact
from ...model.module import Function, Inst, Module
from ...model.operands import Operand
from ...spec.did_you_mean import suggest
from ...syntax.parser import VALID_ID
from .. import fixes, idkinds
from ..diagnostic import ERROR, Diagnostic, Related, at
from ..family import Family, Rule
from ..scope import Scope, holds, insts

# Operands (by word index, result type and result id counted) that may name an id
# defined later: SPIR-V 2.4 "Logical Layout" allows forward references only in these.
_ANY: Final = frozenset(
    {
        "OpExecutionMode",
        "OpExecutionModeId",
        "OpEntryPoint",
        "OpName",
        "OpMemberName",
        "OpSelectionMerge",
        "OpDecorate",
        "OpMemberDecorate",
        "OpDecorateId",
        "OpDecorateString",
        "OpMemberDecorateString",
        "OpBranch",
        "OpLoopMerge",
        "OpExtInstWithForwardRefsKHR",
    }
)
_NOT_FIRST: Final = frozenset({"OpGroupDecorate", "OpGroupMemberDecorate", "OpBranchConditional", "OpSwitch"})
_INDEX: Final = {
    "OpFunctionCall": {2},
    "OpEnqueueKernel": {8},
    "OpGetKernelNDrangeSubGroupCount": {3},
    "OpGetKernelNDrangeMaxSubGroupSize": {3},
    "OpGetKernelWorkGroupSize": {2},
    "OpGetKernelPreferredWorkGroupSizeMultiple": {2},
    "OpTypeForwardPointer": {0},
}
# Debug-info sets that predate the rule; NonSemantic sets allow none.
_FORWARD_SETS = frozenset({"DebugInfo", "OpenCL.DebugInfo.100"})


def _may_forward(m: Module, inst: Inst, position: int, name: str) -> bool:
    """Whether the operand at `position` among the instruction's operands may name an id defined
    later (the branches and OpPhi, most forward references, asked first: none of them is a type)."""
    op = inst.opname
    if op in _ANY:
        return True
    if op in _NOT_FIRST:
        return _word_index(inst, position) != 0
    if op == "OpPhi":
        return _word_index(inst, position) > 1
    grammar_inst = inst.grammar_inst
    if grammar_inst and grammar_inst.is_type and op != "OpTypeForwardPointer":
        # SPIR-V 2.4: a type may name a pointer type only OpTypeForwardPointer declared before it.
        declared = _forward_pointers(m).get(name)
        return declared is not None and declared < inst.line
    if op == "OpExtInst":
        ids = inst.ids()
        return len(ids) > 1 and m.ext_imports.get(ids[1].token.text) in _FORWARD_SETS
    return _word_index(inst, position) in _INDEX.get(op, ())


def _word_index(inst: Inst, position: int) -> int:
    """The operand's word-operand index as SPIR-V counts it (result id included)."""
    grammar_inst = inst.grammar_inst
    if grammar_inst is None or not grammar_inst.has_result:
        return position
    return position + 1 if not grammar_inst.has_result_type or position > 0 else 0


class _DidYouMean:
    """Suggestions for undefined ids, from the ids visible where each is used: module-level ids,
    the function's own (SPIR-V 2.4: a function's ids mean nothing in another) and function ids for
    OpFunctionCall and module-level uses. So a typo is not compared with every id of a 100k-line
    module, and an edit inside one function changes no suggestion outside it (the incremental
    check re-checks only that function). Each scope's ids are gathered once per check."""

    MAX_POOL = 1000

    def __init__(self, m: Module):
        self.m = m
        # by scope, then by length: the ids sorted, with each one's place among the visible ids
        self.visible: dict[tuple, dict[int, tuple[list[str], list[int]]]] = {}
        self.found: dict[tuple, list[str]] = {}

    def __call__(self, name: str, inst: Inst) -> list[str]:
        fn = self.m.function_at(inst.line)
        where = (fn.line if fn else None, inst.opname == "OpFunctionCall")
        key = (name, *where)
        if key not in self.found:
            by_len = self.visible.get(where)
            if by_len is None:
                lists: dict[int, list[tuple[str, int]]] = {}
                for k, c in enumerate(self._visible(fn, where[1])):
                    lists.setdefault(len(c), []).append((c, k))
                by_len = self.visible[where] = {}
                for n, lst in lists.items():
                    lst.sort()
                    by_len[n] = ([c for c, _ in lst], [k for _, k in lst])
            self.found[key] = suggest(name, self._pool(name, by_len))
        return self.found[key]

    def _pool(self, name: str, by_len: dict[int, tuple[list[str], list[int]]]) -> list[str]:
        """The ids of about the name's length (within 2), in the order they are visible; past
        MAX_POOL, only those that share the name's first 3, 4, ... characters. Found by bisection
        in each length's sorted ids: a scan per name made 23,000 undefined ids take 50 s."""
        lengths = [by_len[n] for n in range(len(name) - 2, len(name) + 3) if n in by_len]

        def ranges(prefix: str) -> list[tuple[int, int]]:
            if not prefix:
                return [(0, len(names)) for names, _ in lengths]
            after = prefix[:-1] + chr(ord(prefix[-1]) + 1) if ord(prefix[-1]) < 0x10FFFF else prefix + "\U0010ffff"
            return [(bisect_left(names, prefix), bisect_left(names, after)) for names, _ in lengths]

        spans, keep = ranges(""), 2
        while sum(hi - lo for lo, hi in spans) > self.MAX_POOL and keep < len(name):
            keep += 1
            spans = ranges(name[:keep])
        pool = []
        for (names, places), (lo, hi) in zip(lengths, spans, strict=False):
            pool += [names[j] for j in sorted(range(lo, hi), key=places.__getitem__)]
        return pool

    def _visible(self, fn: Function | None, call: bool) -> list[str]:
        m = self.m
        names = _module_ids(m)
        if fn is not None:
            names = names + [i.result for i in m.insts_in(fn) if i.result]
        return names + _function_ids(m) if call or fn is None else names


@module_fact
def _forward_pointers(m: Module) -> dict[str, int]:
    """The pointer types OpTypeForwardPointer declares, each with the first line declaring it."""
    out: dict[str, int] = {}
    for inst in m.with_op(("OpTypeForwardPointer",)):
        ids = inst.ids()
        if ids:
            out.setdefault(ids[0].token.text, inst.line)
    return out


@module_fact
def _module_ids(m: Module) -> list[str]:
    """The ids defined outside functions, in line order (read only: shared by every check)."""
    return [i.result for i in m.outside_functions() if i.result]


@module_fact
def _function_ids(m: Module) -> list[str]:
    return list(m.function_of)


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    kinds = idkinds.kinds(m)
    defs = m.defs
    accepts_by_op: dict[str, tuple[bool, bool]] = {}
    for inst in m.duplicates:
        if not holds(scope, inst.line):
            continue
        tok = inst.src.result
        first = m.defs.get(tok.text) if tok else None
        if tok is None or first is None or first.src.result is None:
            continue  # a duplicate is a result defined before: both have result tokens
        out.append(
            at(
                inst.line,
                tok,
                ERROR,
                "id.duplicate",
                f"{inst.result} is already defined on line {first.line + 1}: "
                "each <id> is defined exactly once (SPIR-V 2.2.2)",
                (
                    Related(
                        first.line, first.src.result.start, first.src.result.end, f"first definition of {inst.result}"
                    ),
                ),
            )
        )
    did_you_mean = _DidYouMean(m)
    suggesting = m.suggests_ids()  # past SUGGEST_IDS_UP_TO undefined ids, none is compared with others
    for inst in insts(m, scope):
        line = inst.line
        pos = -1
        for op in inst.operands:
            pos += 1
            # (op.token, by index: compiled, an Operand's field read by name is a lookup, by index
            # a load; and Operand.is_id without the call: this loop sees every operand)
            tok = op[0]
            if tok.kind != "ID":
                continue
            name = tok.text
            d = defs.get(name)
            if d is None and not VALID_ID.fullmatch(name):
                continue  # malformed ('%', '%a.b'): syntax.bad-id says so, not "never defined"
            if d is None:
                sugg = did_you_mean(name, inst) if suggesting else []
                hint = f"; did you mean {sugg[0]}?" if sugg else ""
                found = fixes.change_to(inst.line, tok.start, tok.end, sugg)
                out.append(
                    at(
                        inst.line,
                        tok,
                        ERROR,
                        "id.undefined",
                        f"{name} is used but never defined{hint}",
                        fixes=found,
                    )
                )
            else:
                ahead = d.line > line or (d is inst and inst.opname != "OpPhi")  # naming itself too
                if ahead and d.src.result and not _may_forward(m, inst, pos, name):
                    why = (
                        "a type may name a later pointer type only once OpTypeForwardPointer has declared it"
                        if inst.grammar_inst is not None and inst.grammar_inst.is_type
                        else f"{inst.opname} may not forward-reference this operand"
                    )
                    out.append(
                        at(
                            inst.line,
                            tok,
                            ERROR,
                            "id.forward-reference",
                            f"{name} is used before its definition on line {d.line + 1}; {why} (SPIR-V 2.4)",
                            (Related(d.line, d.src.result.start, d.src.result.end, f"{name} is defined here"),),
                        )
                    )
                # The types.* rules: judged in this walk, which already looks every operand up,
                # rather than in a second one.
                if d.opname == "OpFunction" and inst.opname not in _TAKES_FUNCTIONS and not _describes(m, inst):
                    out.append(_function_use(inst, op))
                kind = kinds.get(name)
                if pos == 0 and op[1].kind == "IdResultType":  # (op.grammar_operand: see above)
                    if kind != "type" and (problem := _not_a_type(inst, op, kind, d)) is not None:
                        out.append(problem)
                    elif inst.opname in _RESULT_KINDS and d.opname != _RESULT_KINDS[inst.opname][0]:
                        out.append(_wrong_kind(inst, op, d))
                elif kind is not None:
                    accepts = accepts_by_op.get(inst.opname)
                    if accepts is None:
                        accepts = accepts_by_op[inst.opname] = idkinds.accepts(inst)
                    if not accepts[0 if kind == "type" else 1]:
                        out.append(_not_a_value(inst, op, kind))
    return out


# What may name a function besides debug, annotation and non-semantic instructions (spirv-val's list).
_TAKES_FUNCTIONS: Final = frozenset(
    {
        "OpEnqueueKernel",
        "OpEntryPoint",
        "OpExecutionMode",
        "OpExecutionModeId",
        "OpFunctionCall",
        "OpGetKernelNDrangeSubGroupCount",
        "OpGetKernelNDrangeMaxSubGroupSize",
        "OpGetKernelWorkGroupSize",
        "OpGetKernelPreferredWorkGroupSizeMultiple",
        "OpGetKernelLocalSizeForSubgroupCount",
        "OpGetKernelMaxNumSubgroups",
        "OpCooperativeMatrixPerElementOpNV",
        "OpCooperativeMatrixReduceNV",
        "OpCooperativeMatrixLoadTensorNV",
        "OpConditionalEntryPointINTEL",
    }
)
_DEBUG_SETS = ("DebugInfo", "OpenCL.DebugInfo.100", "NonSemantic.")


def _describes(m: Module, inst: Inst) -> bool:
    """A debug or annotation instruction, or one of a debug-info or non-semantic set."""
    grammar_inst = inst.grammar_inst
    if grammar_inst is not None and grammar_inst.cls in ("Debug", "Annotation"):
        return True
    if inst.opname.startswith("OpExtInst"):
        ids = inst.ids()
        return len(ids) > 1 and m.ext_imports.get(ids[1].token.text, "").startswith(_DEBUG_SETS)
    return False


def _function_use(inst: Inst, op: Operand) -> Diagnostic:
    lead = f"{inst.opname} names {op.token.text}, a function: only a call, an entry point or an execution mode may"
    return FAMILY.cite(inst.line, op.token, "types.function-use", lead)


# Instructions whose Result Type must be one kind of type, with the sentence saying so.
_RESULT_KINDS: Final = {
    "OpSampledImage": (
        "OpTypeSampledImage",
        "OpSampledImage: Create a sampled image, containing both a sampler and an image. Result Type must be "
        "OpTypeSampledImage.",
    ),
    "OpImage": (
        "OpTypeImage",
        "OpImage: Extract the image from a sampled image. Result Type must be OpTypeImage.",
    ),
    "OpVectorShuffle": (
        "OpTypeVector",
        "OpVectorShuffle: Result Type must be an OpTypeVector. The number of components in Result Type must be "
        "the same as the number of Component operands.",
    ),
}


def _wrong_kind(inst: Inst, op: Operand, d: Inst) -> Diagnostic:
    wanted, sentence = _RESULT_KINDS[inst.opname]
    lead = f"the Result Type {op.token.text} is an {d.opname}, not an {wanted}"
    return FAMILY.cite(inst.line, op.token, "types.result-kind", lead, sentence=sentence)


def _not_a_type(inst: Inst, op: Operand, kind: str | None, d: Inst) -> Diagnostic | None:
    """A Result Type naming a typeless id, or a value (a constant, a variable...)."""
    if kind is not None:
        what = f"an {kind}"
    elif d.grammar_inst is None or d.grammar_inst.is_type:
        return None
    else:
        what = f"the result of {d.opname}"
    return FAMILY.cite(
        inst.line, op.token, "types.result-type", f"the Result Type {op.token.text} is {what}, not a type"
    )


def _not_a_value(inst: Inst, op: Operand, kind: str) -> Diagnostic:
    name = f"'{op.grammar_operand.name}'" if op.grammar_operand.name else "the operand"
    what = "a type" if kind == "type" else f"an {kind}, which has no type"
    return FAMILY.cite(
        inst.line, op.token, "types.not-a-value", f"{name} of {inst.opname} is an object, but {op.token.text} is {what}"
    )


FAMILY = Family(
    name="ids",
    prefix="id",
    summary="undefined ids, ids defined twice, forward references SPIR-V forbids; a Result Type that is not a type, "
    "a type where a value belongs, a function named where none belongs.",
    rules=(
        Rule("id.undefined", "an <id> used but never defined."),
        Rule("id.duplicate", "an <id> defined twice."),
        Rule("id.forward-reference", "an <id> used before its definition where SPIR-V allows no forward reference."),
        Rule(
            "types.result-type",
            "a Result Type that names something other than a type.",
            "Instruction: ... An instruction contains a word count, an opcode, an optional Result <id>, an optional "
            "<id> of the instruction’s type, and a variable list of operands.",
        ),
        Rule(
            "types.not-a-value",
            "an operand that must be an object naming a type or something typeless.",
            "Object: An instantiation of a non-void type, either as the Result <id> of an operation, or created "
            "through OpVariable.",
        ),
        Rule(
            "types.result-kind",
            "an OpSampledImage, OpImage or OpVectorShuffle whose Result Type is not the kind of type it makes.",
            _RESULT_KINDS["OpSampledImage"][1],
        ),
        Rule(
            "types.function-use",
            "a function named where no function belongs (only calls, entry points, execution modes, debug and "
            "annotation instructions name one).",
            "OpFunctionCall: Function is an OpFunction instruction.",
        ),
    ),
    check=check,
    linewise=True,
)
