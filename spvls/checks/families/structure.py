"""structure.*: blocks, functions and structured control flow; OpPhi and the return instructions."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Final

from ...model.cfg import Cfg, Edge, cfg_of, continue_target, merge_targets, targets
from ...model.module import Block, Function, Inst, Module
from ...syntax.parser import Token
from ..diagnostic import Diagnostic, related_at
from ..family import Family, Rule
from ..scope import Lines, Scope

_MERGE_BEFORE: Final = {
    "OpSelectionMerge": ("OpBranchConditional", "OpSwitch"),
    "OpLoopMerge": ("OpBranch", "OpBranchConditional"),
}
# Instructions with no semantics that may sit anywhere (spirv-val skips them as well).
_TRANSPARENT: Final = {"OpLine", "OpNoLine", "OpNop"}
_PHI_OR_LINE: Final = _TRANSPARENT | {"OpPhi"}


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    assert not isinstance(scope, Lines)  # not line-wise: given the module or a function
    out: list[Diagnostic] = []
    shader = "Shader" in m.declared_caps
    fn_types = [t.result for t in m.with_op(("OpTypeFunction",)) if t.result]
    signatures: _Signatures = {}
    out.extend(_function_type_uses(m, fn_types, scope))
    functions = m.functions if scope is None else [scope]
    calls = _calls_by_function(m) if scope is None else [m.with_op(("OpFunctionCall",), scope)]
    for fn, fn_calls in zip(functions, calls, strict=True):
        if scope is None:
            out.extend(_function_end(m, fn))
            out.extend(_linkage(m, fn))
        else:  # whether it is a declaration reads its lines, which an in-place edit may change
            out.extend(d for d in _linkage(m, fn) if d.line == fn.line)
        out.extend(_signature(m, fn))
        out.extend(_parameters(m, fn, signatures))
        out.extend(_calls(m, fn_calls, signatures))
        out.extend(_function(m, fn, shader))
    return out


def _signature(m: Module, fn: Function) -> list[Diagnostic]:
    """OpFunction's Function Type is an OpTypeFunction returning the function's Result Type."""
    op = fn.inst.operand("Function Type")
    d = m.definition(op.token.text) if op is not None and op.token.kind == "ID" else None
    if op is None or d is None or d.grammar_inst is None:
        return []  # missing or undefined: operand.* and id.* say so
    if d.opname != "OpTypeFunction":
        lead = f"the Function Type {op.token.text} is the result of {d.opname}, not of OpTypeFunction"
        return [FAMILY.cite(fn.line, op.token, "structure.function-type", lead)]
    returns = d.ids()
    mine = next((o.token for o in fn.inst.operands if o.grammar_operand.kind == "IdResultType"), None)
    if not returns or mine is None or mine.kind != "ID" or returns[0].token.text == mine.text:
        return []
    lead = (
        f"function {fn.id} returns {mine.text}, but its Function Type {op.token.text} returns {returns[0].token.text}"
    )
    return [FAMILY.cite(fn.line, mine, "structure.function-type", lead)]


def _calls_by_function(m: Module) -> list[list[Inst]]:
    """Each function's OpFunctionCalls, in the order of m.functions: one walk of the module's calls
    beside its functions (both in line order), not a search of them per function."""
    calls = m.with_op(("OpFunctionCall",))
    out = []
    k = 0
    for fn in m.functions:
        while k < len(calls) and calls[k].line < fn.line:
            k += 1
        end = k
        while end < len(calls) and calls[end].line <= fn.end_line:
            end += 1
        out.append(calls[k:end])
    return out


def _calls(m: Module, calls: list[Inst], signatures: _Signatures) -> list[Diagnostic]:
    """A function's OpFunctionCalls: their Function is an OpFunction, whose return and parameter types
    the call's Result Type and arguments have."""
    out = []
    for call in calls:
        op = call.operand("Function")
        d = m.definition(op.token.text) if op is not None and op.token.kind == "ID" else None
        if op is None or d is None or d.grammar_inst is None:
            continue
        if d.opname == "OpFunction":
            out.extend(_call_types(m, d, call, signatures))
            continue
        lead = f"{op.token.text} is not a function: OpFunctionCall calls the result of an OpFunction"
        out.append(FAMILY.cite(call.line, op.token, "structure.call-target", lead))
    return out


# The return and parameter types each Function Type gives, by its id (None: no OpTypeFunction),
# read once per check: thousands of functions and calls share a few function types.
_Signatures = dict[str, tuple[str, list[str]] | None]


def _function_type(m: Module, fn: Inst, signatures: _Signatures) -> tuple[str, list[str]] | None:
    """The return and parameter types an OpFunction's Function Type gives (None: no OpTypeFunction)."""
    op = fn.operand("Function Type")
    if op is None:
        return None
    name = op.token.text
    if name in signatures:
        return signatures[name]
    ft = m.definition(name)
    ids = (
        [o.token.text for o in ft.ids(skip_type=True) if o.token.text != ft.result]
        if ft is not None and ft.opname == "OpTypeFunction"
        else []
    )
    found = signatures[name] = (ids[0], ids[1:]) if ids else None
    return found


def _parameters(m: Module, fn: Function, signatures: _Signatures) -> list[Diagnostic]:
    """The OpFunctionParameters are of the Function Type's parameter types, no more of them."""
    found = _function_type(m, fn.inst, signatures)
    if found is None:
        return []
    params = found[1]
    stop = fn.blocks[0].line if fn.blocks else fn.end_line
    k = 0
    for line in range(fn.line + 1, stop):
        inst = m.inst_at.get(line)
        if inst is None or inst.opname != "OpFunctionParameter" or not inst.operands:
            continue
        tok = inst.operands[0].token
        if k >= len(params):
            lead = f"parameter {k} of {fn.id}, whose Function Type has {len(params)}"
            return [FAMILY.cite(line, inst.opcode, "structure.parameter", lead)]
        if tok.text != params[k]:
            lead = f"parameter {k} of {fn.id} is of type {tok.text}, its Function Type says {params[k]}"
            return [FAMILY.cite(line, tok, "structure.parameter", lead)]
        k += 1
    return []


def _call_types(m: Module, f: Inst, site: Inst, signatures: _Signatures) -> list[Diagnostic]:
    found = _function_type(m, f, signatures)
    ops = site.operands
    if found is None or len(ops) < 2 or not ops[0].is_id:
        return []
    callee, params = ops[1].token.text, found[1]
    if ops[0].token.text != f.result_type:
        lead = f"the Result Type is {ops[0].token.text}, {callee} returns {f.result_type}"
        return [FAMILY.cite(site.line, ops[0].token, "structure.call", lead)]
    args = ops[2:]
    if len(args) != len(params):
        lead = f"{len(args)} arguments for {callee}, which takes {len(params)}"
        return [FAMILY.cite(site.line, site.opcode, "structure.call", lead)]
    for k, (arg, want) in enumerate(zip(args, params, strict=True)):
        d = m.definition(arg.token.text)
        got = d.result_type if d is not None else None
        if got is not None and got != want:
            lead = f"argument {k} {arg.token.text} is of type {got}, parameter {k} of {callee} is {want}"
            return [FAMILY.cite(site.line, arg.token, "structure.call", lead)]
    return []


def _function_type_uses(m: Module, fn_types: list[str], fn: Function | None) -> list[Diagnostic]:
    """Uses of an OpTypeFunction other than by OpFunction, a debug or decoration instruction or a
    NonSemantic extended instruction: those inside `fn`, or (fn None) all of them, in one walk of
    each type's uses rather than a search of them per function."""
    out = []
    for name in fn_types:
        uses = m.uses.get(name, ())
        if fn is not None:
            lo = bisect_left(uses, fn.line, key=_line_of)
            uses = uses[lo : bisect_right(uses, fn.end_line, key=_line_of)]
        last = None
        for inst in uses:
            if inst is last or _may_name_function_type(m, inst):
                continue
            last = inst
            tok = next(o.token for o in inst.operands if o.token.kind == "ID" and o.token.text == name)
            lead = f"{name} is a function type, which only OpFunction may use (here {inst.opname})"
            out.append(FAMILY.cite(inst.line, tok, "structure.function-type-use", lead))
    return out


def _line_of(inst: Inst) -> int:
    return inst.line


def _may_name_function_type(m: Module, inst: Inst) -> bool:
    g = inst.grammar_inst
    if inst.opname == "OpFunction" or g is None or g.cls in ("Debug", "Annotation"):
        return True
    if inst.opname == "OpExtInst":
        ids = inst.ids()
        return len(ids) > 1 and m.ext_imports.get(ids[1].token.text, "").startswith("NonSemantic.")
    return False


def _import(m: Module, fn: Function) -> Inst | None:
    """The decoration giving the function the Import linkage type, if one does."""
    for d in m.decorations.get(fn.id, ()):
        ops = d.operands
        linkage = d.opname == "OpDecorate" and len(ops) > 2 and ops[1].token.text == "LinkageAttributes"
        if linkage and ops[-1].token.text == "Import":
            return d
    return None


def _declaration(m: Module, fn: Function) -> bool:
    """Whether the function is a declaration: nothing but its parameters (and comments) between its
    OpFunction and OpFunctionEnd. Read from the lines, so that a body an edit broke is still a body."""
    for line in m.doc.lines[fn.line + 1 : fn.end_line]:
        if line.opcode is not None and line.opcode.text != "OpFunctionParameter":
            return False
        if line.opcode is None and line.text.strip() and not line.text.strip().startswith(";"):
            return False
    return True


def _linkage(m: Module, fn: Function) -> list[Diagnostic]:
    """A definition is not imported; a declaration (no blocks) is. Judged whole: a function's
    blocks and its decorations change only with a rebuild."""
    imported = _import(m, fn)
    if fn.blocks and imported is not None:
        return [
            FAMILY.cite(
                imported.line,
                imported.operands[-1].token,
                "structure.import-definition",
                f"{fn.id} has a body but is decorated with the Import linkage type",
            )
        ]
    if not fn.blocks and imported is None and fn.inst.result is not None and _declaration(m, fn):
        return [
            FAMILY.cite(
                fn.line,
                fn.inst.opcode,
                "structure.declaration-import",
                f"{fn.id} has no body and no LinkageAttributes decoration with the Import linkage type",
            )
        ]
    return []


def _function(m: Module, fn: Function, shader: bool) -> list[Diagnostic]:
    """One walk over the function's blocks; the rarer rules look further only where it found work."""
    out: list[Diagnostic] = []
    blocks = fn.blocks
    suspects: list[Block] = []
    headers = False
    returns: list[Inst] = []
    phis = False
    out.extend(_before_first_block(m, fn))
    backward = False  # a branch to a block at or above its own: a back edge may be among them
    # A function with headers has its CFG read below: its edges are made once, there, and read after
    # the walk (each diagnostic is on its own operand, so the order they are found in is no matter).
    cfg = cfg_of(m, fn) if any(b.merge is not None for b in blocks) else None
    for k, b in enumerate(blocks):
        if cfg is None:
            edges = targets(b)
            if edges:
                out.extend(_not_labels(m, fn, [(e.token, e.line) for e in edges]))
                backward = backward or (shader and _backward(fn, edges))
        if b.merge is not None:
            out.extend(_not_labels(m, fn, [(o[0], b.merge.line) for o in merge_targets(b)]))
        insts = b.insts
        if insts and insts[0].opname in _PHI_OR_LINE and _first(b).opname == "OpPhi":
            phis = True
        t = b.terminator
        if t is None:
            out.extend(_unterminated(m, fn, k, b))
            continue
        op = t.opname
        merge = b.merge
        if merge is not None:
            headers = True
            allowed = _MERGE_BEFORE[merge.opname]
            if not (len(insts) >= 2 and insts[-2] is merge and op in allowed):
                out.extend(_misplaced(b, t, merge, allowed))
        if op in _RETURNS:
            returns.append(t)
        elif shader and op in _SELECTS and (merge is None or merge.opname == "OpLoopMerge"):
            suspects.append(b)
        # Instructions after the terminator, before the next label, are in no block at all.
        stop = blocks[k + 1].line if k + 1 < len(blocks) else fn.end_line
        if stop - t.line > 1:
            out.extend(_after(m, b, t, stop))
    if cfg is not None:
        out.extend(_not_labels(m, fn, [(e.token, e.line) for e in cfg.edges]))
        backward = shader and _backward(fn, cfg.edges)
    if returns:
        out.extend(_returns(m, fn, returns))
    if suspects or headers or backward or phis:
        graph = cfg if cfg is not None else cfg_of(m, fn)  # a module fact: looked up once, not per rule
        if suspects:
            out.extend(_structured(graph, suspects))
        if headers:
            out.extend(_exits(graph))
        if backward:
            out.extend(_back_edges(graph))
        if phis:
            out.extend(_phis(m, fn, graph))
    return out


_RETURNS: Final = {"OpReturn", "OpReturnValue"}
_SELECTS: Final = {"OpBranchConditional", "OpSwitch"}


def _first(b: Block) -> Inst:
    """The block's first instruction after any OpLine (OpPhi must come first, spirv-val allows OpLine before)."""
    for i in b.insts:
        if i.opname not in _TRANSPARENT:
            return i
    return b.insts[0]


def _before_first_block(m: Module, fn: Function) -> list[Diagnostic]:
    """The first instruction of a function body before its first OpLabel (parameters aside)."""
    stop = fn.blocks[0].line if fn.blocks else fn.end_line
    for line in range(fn.line + 1, stop):
        inst = m.inst_at.get(line)
        if inst is None or inst.opname in _TRANSPARENT or inst.opname in ("OpFunctionParameter", "OpFunctionEnd"):
            continue
        if inst.grammar_inst is None:
            return []  # an unknown opcode (operand.unknown-opcode) may be OpLabel, misspelt
        return [
            FAMILY.cite(
                inst.line,
                inst.src.opcode,
                "structure.outside-block",
                f"{inst.opname} comes before the first OpLabel of function {fn.id}: it is in no block",
            )
        ]
    return []


def _backward(fn: Function, edges: list[Edge]) -> bool:
    """Whether a branch goes to a block at or above its own (a back edge may be among them): to a
    label before the branch, which is its own block's or an earlier one's."""
    labels = fn.labels
    for e in edges:
        to = labels.get(e.target)
        if to is not None and to.line < e.line:
            return True
    return False


def _not_labels(m: Module, fn: Function, operands: list[tuple[Token | None, int]]) -> list[Diagnostic]:
    """Branch targets, merge blocks and continue targets (each with its instruction's line) that name
    something other than a label, defined outside functions or in this one (what another function
    defines may change in place)."""
    out = []
    defs = m.defs
    # Without an id defined twice, a label of this function is its block's OpLabel: found in the
    # function's own few labels, not in the module's every definition.
    labels = fn.labels if not m.duplicates else {}
    for tok, line in operands:
        if tok is None or tok.text in labels:
            continue
        d = defs.get(tok.text)
        if d is None or d.opname == "OpLabel" or d.grammar_inst is None:
            continue
        if fn.line <= d.line <= fn.end_line or m.function_at(d.line) is None:
            out.append(
                FAMILY.cite(
                    line,
                    tok,
                    "structure.not-a-label",
                    f"{tok.text} is the result of {d.opname}, not a label: a branch goes to a block",
                )
            )
    return out


def _function_end(m: Module, fn: Function) -> list[Diagnostic]:
    end = m.inst_at.get(fn.end_line)
    if end is not None and end.opname == "OpFunctionEnd":
        return []
    # Where the next function starts, or the module's last instruction.
    i = m.functions.index(fn)
    nxt = m.functions[i + 1].inst if i + 1 < len(m.functions) else None
    where = nxt or m.insts[-1]
    last = m.insts[m.insts.index(where) - 1] if nxt is not None else where
    if last.grammar_inst is None:
        return []  # an unknown opcode (operand.unknown-opcode) may be OpFunctionEnd, misspelt
    lead = (
        f"function {fn.id} has no OpFunctionEnd before the next OpFunction"
        if nxt is not None
        else f"function {fn.id} has no OpFunctionEnd at the end of the module"
    )
    return [
        FAMILY.cite(
            where.line,
            where.src.opcode,
            "structure.function-end",
            lead,
            related=[related_at(fn.line, fn.inst.src.opcode, f"function {fn.id} starts here")],
        )
    ]


def _unterminated(m: Module, fn: Function, k: int, b: Block) -> list[Diagnostic]:
    if any(i.grammar_inst is None for i in b.insts):
        return []  # an unknown opcode (operand.unknown-opcode) may be the terminator, misspelt
    nxt = fn.blocks[k + 1].label_inst if k + 1 < len(fn.blocks) else m.inst_at.get(fn.end_line)
    if nxt is None or nxt.line <= b.line:
        nxt = b.label_inst  # the function's end is missing: structure.function-end says so
    if nxt is None:
        return []
    # Its own label when the function has no end: the block does not go on into another.
    ends = "is followed by the next block" if nxt.opname == "OpLabel" and nxt is not b.label_inst else "ends"
    rel = (
        [related_at(b.line, b.label_inst.src.result or b.label_inst.src.opcode, f"block {b.label} starts here")]
        if b.label_inst
        else []
    )
    return [
        FAMILY.cite(
            nxt.line,
            nxt.src.result or nxt.src.opcode,
            "structure.terminator",
            f"block {b.label} has no terminator (OpBranch, OpReturn...) where it {ends}",
            related=rel,
        )
    ]


def _misplaced(b: Block, t: Inst, merge: Inst, allowed: tuple[str, ...]) -> list[Diagnostic]:
    body = [i for i in b.insts if i.opname not in _TRANSPARENT]
    if len(body) >= 2 and body[-2] is merge and t.opname in allowed:
        return []
    after = "" if len(body) < 2 or body[-2] is merge else f" after {body[-2].opname}"
    return [
        FAMILY.cite(
            merge.line,
            merge.src.opcode,
            "structure.merge-position",
            f"{merge.opname} must come just before the block's {' or '.join(allowed)}; here the block ends "
            f"with {t.opname}{after}",
        )
    ]


def _after(m: Module, b: Block, t: Inst, stop: int) -> list[Diagnostic]:
    for line in range(t.line + 1, stop):
        inst = m.inst_at.get(line)
        if inst is not None and inst.opname not in ("OpFunctionEnd", "OpFunction") and inst.opname not in _TRANSPARENT:
            return [
                FAMILY.cite(
                    inst.line,
                    inst.src.opcode,
                    "structure.after-terminator",
                    f"{inst.opname} follows {t.opname}, which ended block {b.label}: it is in no block "
                    "(start one with OpLabel)",
                )
            ]
    return []


def _structured(cfg: Cfg, suspects: list[Block]) -> list[Diagnostic]:
    """An OpBranchConditional or OpSwitch with no OpSelectionMerge before it. As lenient as spirv-val:
    a label counts as declared when any header of the function names it as merge or continue, or
    another conditional branch or switch targets it."""
    merges = cfg.declared_merges
    # Labels some conditional branch or switch targets, by how many of them do.
    targeted: dict[str, int] | None = None
    out = []
    for b in suspects:
        t = b.terminator
        if t is None:
            continue  # suspects are blocks that end in a terminator
        if t.opname == "OpSwitch":
            if b.merge is not None:
                continue  # after OpLoopMerge: structure.merge-position says what is wrong
            lead = "OpSwitch needs an OpSelectionMerge just before it"
        else:
            ops = t.operands
            if len(ops) < 3:
                continue
            a, c = ops[1].token.text, ops[2].token.text
            if a == c or a in merges or c in merges:
                continue
            if targeted is None:
                targeted = _targeted(cfg)
            if targeted.get(a, 0) > 1 or targeted.get(c, 0) > 1:
                continue  # another conditional branch or switch targets it
            lead = (
                f"this OpBranchConditional goes to {a} or {c}, neither a declared merge block nor a "
                "continue target, so it needs an OpSelectionMerge just before it"
            )
        if b.label in cfg.structurally_reachable:
            out.append(FAMILY.cite(t.line, t.src.opcode, "structure.unstructured", lead))
    return out


def _exits(cfg: Cfg) -> list[Diagnostic]:
    """Branches that leave a structured construct other than through its merge block (or a break
    or continue of the innermost loop, a break of the innermost switch)."""
    out = []
    for e, c in cfg.construct_exits():
        label = cfg.blocks[e.source].label_inst
        if e.token is None or e.line < 0 or label is None or label.src.result is None:
            continue
        ways = f"its merge block {c.merge}"
        loop = cfg.loop_around(c) if c.kind in ("selection", "case") else None
        if loop is not None:
            cont = continue_target(cfg.blocks[loop.header])
            ways += f", a break to {loop.merge} or a continue to {cont} (the innermost loop's)"
        lead = f"block {e.source} branches to {e.target}, leaving the {c.kind} construct of {c.header} other than through {ways}"
        # On the block's label, where spirv-val puts it (one mistake, one diagnostic), the branch related.
        branch = related_at(e.line, e.token, f"the branch to {e.target}")
        out.append(FAMILY.cite(label.line, label.src.result, "structure.construct-exit", lead, related=[branch]))
    return out


def _back_edges(cfg: Cfg) -> list[Diagnostic]:
    """Back edges to a block that is no loop header, on the branching block's label (as spirv-val)."""
    out = []
    for e in cfg.edges:
        if not e.back or e.token is None:
            continue
        to, label = cfg.blocks[e.target], cfg.blocks[e.source].label_inst
        if (to.merge is not None and to.merge.opname == "OpLoopMerge") or label is None or label.src.result is None:
            continue
        lead = f"block {e.source} branches back to {e.target}, which is no loop header (it has no OpLoopMerge)"
        branch = related_at(e.line, e.token, f"the branch back to {e.target}")
        out.append(FAMILY.cite(label.line, label.src.result, "structure.back-edge", lead, related=[branch]))
    return out


def _targeted(cfg: Cfg) -> dict[str, int]:
    """Labels some conditional branch or switch targets, by how many blocks' do."""
    counts: dict[str, int] = {}
    for _source, target in {(e.source, e.target) for e in cfg.edges if e.kind != "branch"}:
        counts[target] = counts.get(target, 0) + 1
    return counts


def _returns(m: Module, fn: Function, returns: list[Inst]) -> list[Diagnostic]:
    out = []
    rt = fn.inst.result_type
    rtype = m.definition(rt)
    if rtype is None:
        return []
    void = rtype.opname == "OpTypeVoid"
    for t in returns:
        if t.opname == "OpReturn" and not void:
            out.append(
                FAMILY.cite(
                    t.line,
                    t.src.opcode,
                    "structure.return",
                    f"OpReturn returns nothing, but function {fn.id} returns {rt}: use OpReturnValue",
                )
            )
        elif t.opname == "OpReturnValue":
            value = t.ids()
            if not value:
                continue
            tok = value[0].token
            d = m.definition(tok.text)
            if d is None or d.grammar_inst is None or not d.grammar_inst.has_result_type:
                continue  # undefined, or not a value: id.* and types.* say so
            if void:
                out.append(
                    FAMILY.cite(
                        t.line,
                        tok,
                        "structure.return-value",
                        f"function {fn.id} returns void: use OpReturn, not OpReturnValue",
                    )
                )
            elif d.result_type != rt:
                out.append(
                    FAMILY.cite(
                        t.line,
                        tok,
                        "structure.return-value",
                        f"{tok.text} has type {d.result_type}, but function {fn.id} returns {rt}",
                    )
                )
    return out


def _phis(m: Module, fn: Function, cfg: Cfg) -> list[Diagnostic]:
    out = []
    preds = cfg.preds
    for b in fn.blocks:
        for inst in b.insts:
            if inst.opname != "OpPhi":
                continue
            ids = inst.ids(skip_type=True)
            if len(ids) % 2:
                continue  # an incomplete pair: operand.missing says so
            rt = inst.result_type
            names = set(preds.get(b.label, ()))
            seen: set[str] = set()
            for value, parent in zip(ids[::2], ids[1::2], strict=True):
                d = m.definition(value.token.text)
                if (
                    d is not None
                    and d.grammar_inst is not None
                    and d.grammar_inst.has_result_type
                    and d.result_type != rt
                ):
                    out.append(
                        FAMILY.cite(
                            inst.line,
                            value.token,
                            "structure.phi-type",
                            f"{value.token.text} has type {d.result_type}, the OpPhi's Result Type is {rt}",
                        )
                    )
                p = parent.token.text
                if p in seen:
                    out.append(
                        FAMILY.cite(inst.line, parent.token, "structure.phi-parents", f"parent {p} is listed twice")
                    )
                elif p not in names and m.definition(p) is not None:
                    out.append(
                        FAMILY.cite(
                            inst.line,
                            parent.token,
                            "structure.phi-parents",
                            f"{p} is not a parent of block {b.label} (its parents: "
                            f"{', '.join(sorted(names)) or 'none'})",
                        )
                    )
                seen.add(p)
            missing = [n for n in sorted(names) if n not in seen]
            if missing:
                out.append(
                    FAMILY.cite(
                        inst.line,
                        inst.src.opcode,
                        "structure.phi-parents",
                        f"the OpPhi lists no value for parent block(s) {', '.join(missing)} of {b.label}",
                    )
                )
    return out


FAMILY = Family(
    name="structure",
    prefix="structure",
    summary="blocks, functions and structured control flow; OpPhi and the return instructions.",
    rules=(
        Rule(
            "structure.terminator",
            "a block that does not end in a block termination instruction.",
            sentence="The last instruction of each block is a block termination instruction.",
        ),
        Rule(
            "structure.after-terminator",
            "an instruction after its block's terminator.",
            sentence="Each block termination instruction must be the last instruction in a block.",
        ),
        Rule(
            "structure.outside-block",
            "an instruction of a function body before its first OpLabel.",
            sentence="Block: A contiguous sequence of instructions starting with an OpLabel, ending with a "
            "block termination instruction.",
        ),
        Rule(
            "structure.not-a-label",
            "a branch target, merge block or continue target that is not a label.",
            sentence="OpBranch: Target Label must be the Result <id> of an OpLabel instruction in the "
            "current function.",
        ),
        Rule(
            "structure.function-type",
            "an OpFunction whose Function Type is not an OpTypeFunction returning its Result Type.",
            sentence="OpFunction: Result Type must be the same as the Return Type declared in Function Type. "
            "Function Type is the result of an OpTypeFunction, which declares the types of the return value "
            "and parameters of the function.",
        ),
        Rule(
            "structure.function-type-use",
            "a function type used by an instruction other than OpFunction.",
            sentence="OpTypeFunction: OpFunction is the only valid use of OpTypeFunction.",
        ),
        Rule(
            "structure.parameter",
            "an OpFunctionParameter not of its Function Type's parameter type, or one more than it has.",
            sentence="OpFunctionParameter: Declare a formal parameter of the current function. Result Type is the "
            "type of the parameter. These instructions must immediately follow an OpFunction instruction. The "
            "order of contiguous OpFunctionParameter instructions is the same order arguments will be listed in "
            "an OpFunctionCall instruction to this function.",
        ),
        Rule(
            "structure.call",
            "an OpFunctionCall whose Result Type is not its function's, or whose arguments do not match its "
            "parameters.",
            sentence="OpFunctionCall: Result Type is the type of the return value of the function. It must be the "
            "same as the Return Type operand of the Function Type operand of the Function operand. Argument N is "
            "the object to copy to parameter N.",
        ),
        Rule(
            "structure.call-target",
            "an OpFunctionCall whose Function is not an OpFunction.",
            sentence="OpFunctionCall: Function is an OpFunction instruction. This could be a forward reference.",
        ),
        Rule(
            "structure.function-end",
            "a function without its OpFunctionEnd.",
            sentence="OpFunctionEnd: Last instruction of a function.",
        ),
        Rule(
            "structure.import-definition",
            "a function with a body decorated with the Import linkage type.",
            sentence="A function definition (an OpFunction with a body) cannot be decorated with the Import "
            "Linkage Type.",
        ),
        Rule(
            "structure.declaration-import",
            "a function without a body and without the Import linkage type.",
            sentence="A function declaration (an OpFunction with no basic blocks), must have a Linkage "
            "Attributes Decoration with the Import Linkage Type.",
        ),
        Rule(
            "structure.merge-position",
            "a merge instruction not just before its branch.",
            sentence="OpSelectionMerge: This instruction must immediately precede either an "
            "OpBranchConditional or OpSwitch instruction. That is, it must be the second-to-last "
            "instruction in its block. OpLoopMerge: This instruction must immediately precede "
            "either an OpBranch or OpBranchConditional instruction. That is, it must be the "
            "second-to-last instruction in its block.",
        ),
        Rule(
            "structure.unstructured",
            "a Shader module's conditional branch or switch without its merge instruction.",
            sentence="Selections must be structured. That is, an OpSelectionMerge instruction is required "
            "to precede: an OpSwitch instruction, an OpBranchConditional instruction that has "
            "different True Label and False Label operands where neither are declared merge "
            "blocks or Continue Targets.",
        ),
        Rule(
            "structure.construct-exit",
            "a branch leaving a structured construct other than through its merge block, a break or a continue.",
            sentence="a break block is valid only for the innermost loop it is nested inside of; a continue "
            "block is valid only for the innermost loop it is nested inside of",
        ),
        Rule(
            "structure.back-edge",
            "a back edge in a Shader module to a block that is not a loop header.",
            sentence="all CFG back edges must branch to a loop header, with each loop header having exactly one "
            "back edge branching to it",
        ),
        Rule(
            "structure.phi-parents",
            "an OpPhi whose parents are not its block's predecessors, one each.",
            sentence="OpPhi: There must be exactly one Parent i for each parent block of the current block in the CFG.",
        ),
        Rule(
            "structure.phi-type",
            "an OpPhi variable whose type is not the Result Type.",
            sentence="OpPhi: All Variables must have a type matching Result Type.",
        ),
        Rule(
            "structure.return",
            "OpReturn in a function that returns a value.",
            sentence="OpReturn: Return with no value from a function with void return type.",
        ),
        Rule(
            "structure.return-value",
            "OpReturnValue whose value is not of the function's return type, or in a void function.",
            sentence="OpReturnValue: Value is the value returned, by copy, and must match the Return Type "
            "operand of the OpTypeFunction type of the OpFunction body this return instruction "
            "is in. Value must not have type OpTypeVoid.",
        ),
    ),
    check=check,
)
