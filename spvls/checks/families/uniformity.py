"""uniformity.*: barriers, derivatives and calls reached in control flow that is not uniform enough
(the analysis is model/uniformity.py; the cooperative-matrix rule on it is coopmat's)."""

from __future__ import annotations

from ...model import uniformity as uni
from ...model.cfg import block_holding
from ...model.module import Function, Inst, Module
from ..diagnostic import WARNING, Diagnostic, Related
from ..family import Family, Rule
from ..scope import Scope

BARRIER = (
    "When Execution is Workgroup or larger, behavior is undefined unless all invocations within Execution "
    "execute the same dynamic instance of this instruction."
)
DERIVATIVE = (
    "An invocation will not execute a dynamic instance of this instruction (X') until all invocations in its "
    "derivative group have executed all dynamic instances that are program-ordered before X'."
)
_CODE = {"barrier": "uniformity.barrier", "derivative": "uniformity.derivative"}
_SENTENCE = {"barrier": BARRIER, "derivative": DERIVATIVE}


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if not uni.has_needs(m):
        return []
    fns = m.functions if scope is None else [scope if isinstance(scope, Function) else scope.fn]
    out: list[Diagnostic] = []
    for fn in fns:
        u = uni.analyse(m, fn)
        for need, fact in u.unmet:
            if need.kind in _CODE:
                out.append(_unmet(m, u, need, fact))
        for call, need, fact in u.calls:
            out.append(_call(m, u, call, need, fact))
    return out


def widen(m: Module, fn: Function) -> Scope:
    """After an in-place edit of `fn`: the whole module when what its callers read of it changed
    (their call diagnostics follow its summary), else just `fn`."""
    before = uni.cached(m, fn)
    if before is None:  # never analysed: the module needed nothing, so its callers were never judged
        return None if uni.has_needs(m) else fn
    after = uni.analyse(m, fn)
    return fn if before.summary.key() == after.summary.key() else None


def _unmet(m: Module, u: uni.Uniformity, need: uni.Need, fact: uni.Fact) -> Diagnostic:
    inst = need.inst
    block = block_holding(u.fn, inst.line)
    why, related = explain_block(m, u, block.label if block else "")
    lead = (
        f"{inst.opname} needs control flow uniform across {uni.LEVELS[need.level]}, but here it is uniform only "
        f"across {uni.LEVELS[fact[0]]}: {why}"
    )
    code = _CODE[need.kind]
    return FAMILY.cite(inst.line, inst.opcode, code, lead, related=related, severity=WARNING)


def _call(m: Module, u: uni.Uniformity, call: Inst, need: uni.Need, fact: uni.Fact) -> Diagnostic:
    callee = call.ids(skip_type=True)[0].token.text
    inner = need.inst
    block = block_holding(u.fn, call.line)
    label = block.label if block else ""
    if u.control(label)[0] < need.level:
        why, related = explain_block(m, u, label)
    else:
        arg = _divergent_arg(u, call, need)
        why, related = explain_value(m, u, arg, call.line) if arg else ("", ())
    holder = m.function_at(inner.line)
    where = f" in {m.name_of(holder.id)}" if holder is not None and holder.id != callee else ""
    lead = (
        f"this call of {m.name_of(callee)} reaches {inner.opname}{where}, which needs control flow uniform "
        f"across {uni.LEVELS[need.level]}, but the call is uniform only across {uni.LEVELS[fact[0]]}: {why}"
    )
    here = (Related(inner.line, inner.opcode.start, inner.opcode.end, f"the {inner.opname} the call reaches"),)
    vias = tuple(Related(c.line, c.opcode.start, c.opcode.end, "through this call") for c in need.via)
    return FAMILY.cite(
        call.line,
        call.opcode,
        "uniformity.call",
        lead,
        related=here + vias + related,
        severity=WARNING,
        sentence=_SENTENCE.get(need.kind),
    )


def _divergent_arg(u: uni.Uniformity, call: Inst, need: uni.Need) -> str | None:
    """The argument (or the variable a pointer argument points into) that fails the need."""
    for i, o in enumerate(call.ids(skip_type=True)[1:]):
        if not need.deps & (1 << (i + 1)):
            continue
        a = o.token.text
        if u.value(a)[0] < need.level:
            return a
        v = u.pointee(a)
        if v is not None and u.contents[v][0] < need.level:
            return v
    return None


def explain_block(m: Module, u: uni.Uniformity, label: str) -> tuple[str, tuple[Related, ...]]:
    """Why a block is reached divergently, in words, and each link's place."""
    links = uni.control_chain(u, m, label)
    if not links:
        return "it is reached from a call that is not uniform", ()
    branch = links[0][1]
    if branch.next is None:  # not a branch: a call that ended some invocations
        return f"it follows a call that ends some invocations (line {branch.line + 1})", _related(links)
    source = _source(m, links)
    text = f"the branch on {m.name_of(branch.next)} (line {branch.line + 1}) depends on {source}"
    return text, _related(links)


def explain_value(m: Module, u: uni.Uniformity, id_: str, line: int) -> tuple[str, tuple[Related, ...]]:
    links = uni.chain(u, m, id_)
    return f"{m.name_of(id_)} depends on {_source(m, links)}", _related(links)


def _source(m: Module, links: list[tuple[str, uni.Why]]) -> str:
    if not links:
        return "a value that is not uniform"
    id_, w = links[-1]
    return w.text


def _related(links: list[tuple[str, uni.Why]]) -> tuple[Related, ...]:
    return tuple(Related(w.line, w.start, w.end, w.text) for _, w in links)


FAMILY = Family(
    name="uniformity",
    prefix="uniformity",
    summary="Warnings where an instruction that needs uniform control flow, or a call of a function holding "
    "one, is reached where control flow is not uniform enough, naming the divergent branch and its source "
    "(docs/uniformity.md)",
    rules=(
        Rule(
            "uniformity.barrier",
            "An OpControlBarrier of Workgroup or wider scope, or an OpGroup* instruction, reached in control "
            "flow not uniform across its execution scope",
            sentence=BARRIER,
        ),
        Rule(
            "uniformity.derivative",
            "A derivative (OpDPdx, OpFwidth, ...), an ImplicitLod image instruction or OpImageQueryLod reached "
            "in control flow not uniform across the derivative group",
            sentence=DERIVATIVE,
        ),
        Rule(
            "uniformity.call",
            "A call, from control flow or with an argument not uniform enough, of a function that reaches a "
            "barrier, a derivative or a cooperative-matrix instruction",
            sentence=BARRIER,
        ),
    ),
    check=check,
    widen=widen,
)
