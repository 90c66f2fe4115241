"""reconvergence.*: SPV_KHR_maximal_reconvergence."""

from __future__ import annotations

from ...model.cfg import Cfg, block_holding, cfg_of, function_holding
from ...model.facts import module_fact
from ...model.module import Block, EntryPoint, Function, Inst, Module
from ...model.operands import Operand
from ..diagnostic import ERROR, INFO, Diagnostic, Related, related_at
from ..family import Family, Rule
from ..scope import Lines, Scope

# Related information shows the last calls of the path: a path thousands of calls long, on each
# function's diagnostics, is megabytes that help no one.
MAX_PATH = 8


def _reconverging(m: Module) -> list[tuple[EntryPoint, tuple[Inst, Operand]]]:
    out = []
    for ep in m.entry_points.values():
        for mode in ep.modes:
            for op in mode.operands:
                if any(e.name == "MaximallyReconvergesKHR" for e in op.enumerants):
                    out.append((ep, (mode, op)))
    return out


def _allowed_joins(cfg: Cfg) -> set[str]:
    """Merge blocks, continue targets, loop headers and switch targets."""
    allowed = set(cfg.declared_merges)
    allowed.update(b.label for b in cfg.fn.blocks if b.merge is not None and b.merge.opname == "OpLoopMerge")
    allowed.update(e.target for e in cfg.edges if e.kind in ("case", "default"))
    return allowed


@module_fact
def _reached(m: Module) -> dict[str, tuple[EntryPoint, tuple[Inst, Operand], dict]]:
    """Functions in the static call tree of a MaximallyReconvergesKHR entry point (structure only)."""
    reached: dict[str, tuple[EntryPoint, tuple[Inst, Operand], dict]] = {}
    for ep, where in _reconverging(m):
        tree = m.call_tree(ep.id)
        for fid in tree:
            reached.setdefault(fid, (ep, where, tree))
    return reached


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    assert not isinstance(scope, Lines)  # not line-wise: given the module or a function
    out: list[Diagnostic] = []
    reached = _reached(m)
    if m.version >= (1, 6):
        out.extend(_same_labels_unreached(m, scope, reached))
    for fn in m.functions if scope is None else [scope]:
        hit = reached.get(fn.id)
        if hit is None:
            continue
        ep, (mode, op), tree = hit
        path, earlier = m.call_path(tree, fn.id, MAX_PATH)
        why = [related_at(mode.line, op.token, f"entry point {ep.name!r} is MaximallyReconvergesKHR")]
        why += [
            related_at(
                site.line,
                site.opcode,
                f"call into {site.ids(skip_type=True)[0].token.text}"
                + (f" (after {earlier} earlier calls)" if earlier and k == 0 else ""),
            )
            for k, site in enumerate(path)
        ]
        out.extend(_same_labels(m, fn, why))
        out.extend(_joins(m, fn, why))
        for b in fn.blocks:
            t = b.terminator
            if t is not None and t.opname == "OpKill":
                out.append(
                    FAMILY.cite(
                        t.line,
                        t.opcode,
                        "reconvergence.kill",
                        f"{FAMILY.extension}: OpKill may act as OpTerminateInvocation or as "
                        "OpDemoteToHelperInvocation, so reconvergence after it is unpredictable",
                        severity=INFO,
                        related=tuple(why),
                    )
                )
    return out


def _same_labels_unreached(m: Module, scope: Function | None, reached: dict) -> list[Diagnostic]:
    """Same-label branches in functions outside every MaximallyReconvergesKHR call tree, found
    through the opcode index: most functions have none, so none is walked."""
    out = []
    for t in m.with_op(("OpBranchConditional",), scope):
        ids = t.ids()
        if len(ids) < 3 or ids[1].token.text != ids[2].token.text:
            continue
        # The function it is in: the last to start before it (one missing its OpFunctionEnd
        # still holds its blocks), and the block it ends.
        fn = function_holding(m, t.line)
        if fn is None or fn.id in reached or (scope is not None and fn is not scope):
            continue
        b = block_holding(fn, t.line)
        if b is not None and b.terminator is t:
            out.extend(_same_labels(m, fn, None, [b]))
    return out


def _same_labels(
    m: Module, fn: Function, why: list[Related] | None, blocks: list[Block] | None = None
) -> list[Diagnostic]:
    out = []
    for b in fn.blocks if blocks is None else blocks:
        t = b.terminator
        if t is None or t.opname != "OpBranchConditional":
            continue
        ids = t.ids()
        if len(ids) >= 3 and ids[1].token.text == ids[2].token.text:
            reason = (
                f"{FAMILY.extension}: in functions reachable from a MaximallyReconvergesKHR entry point"
                if why
                else f"SPIR-V {m.version[0]}.{m.version[1]}"
            )
            out.append(
                FAMILY.cite(
                    t.line,
                    ids[2].token,
                    "reconvergence.same-labels",
                    f"{reason}, True Label and False Label must not be the same <id> ({ids[1].token.text} twice)",
                    severity=ERROR,
                    related=tuple(why or ()),
                )
            )
    return out


def _joins(m: Module, fn: Function, why: list[Related]) -> list[Diagnostic]:
    out = []
    cfg = cfg_of(m, fn)
    allowed = _allowed_joins(cfg)
    for label, sources in cfg.preds.items():
        b = cfg.blocks[label]
        if len(sources) < 2 or label in allowed or b.label_inst is None:
            continue
        preds = [cfg.blocks[p] for p in sources]
        rel = tuple(why) + tuple(
            related_at(p.terminator.line, p.terminator.opcode, f"branch from {p.label}")
            for p in preds
            if p.terminator is not None
        )
        out.append(
            FAMILY.cite(
                b.line,
                b.label_inst.src.result,
                "reconvergence.multiple-predecessors",
                f"{FAMILY.extension}: block {label} has {len(preds)} unique predecessors "
                f"({', '.join(p.label for p in preds)}) but is not a loop header, a declared merge "
                f"block, a continue target or an OpSwitch target",
                severity=ERROR,
                related=rel,
            )
        )
    return out


FAMILY = Family(
    name="reconvergence",
    prefix="reconvergence",
    summary="SPV_KHR_maximal_reconvergence: unique predecessors, distinct branch labels, OpKill advice.",
    rules=(
        Rule(
            "reconvergence.multiple-predecessors",
            "a block with several predecessors that is no merge block, loop header, continue target or switch target.",
            sentence="Any function in the static call tree of an entry point annotated with the MaximallyReconvergesKHR "
            "execution mode must satisfy the following requirements: The only Basic Blocks that may have multiple "
            "unique predecessors are: Any Basic Block containing an OpLoopMerge instruction; Any declared Merge "
            "Block; Any declared Continue Target; Any Target or Default of an OpSwitch instruction.",
        ),
        Rule(
            "reconvergence.same-labels",
            "an OpBranchConditional whose True and False labels are the same.",
            sentence="Starting with version 1.6, or in any function reachable from an entry point with the execution mode "
            "MaximallyReconvergesKHR, True Label and False Label must not be the same <id>.",
        ),
        Rule(
            "reconvergence.kill",
            "OpKill under maximal reconvergence (advice).",
            sentence="It is recommended that shader authors use OpTerminateInvocation or OpDemoteToHelperInvocation "
            "instead of OpKill whenever possible to produce more predictable behavior.",
        ),
    ),
    check=check,
    extension="SPV_KHR_maximal_reconvergence",
    quote=False,
)
