"""One function's control-flow graph: edges, reachability, dominators, back edges and the
structured constructs of SPIR-V 2.11 ("Structured Control Flow"), computed on first use.

The spec defines each construct by dominance (quoted on `Construct.kind`'s values below); a block
that is unreachable from the entry block has no dominators, so it belongs to no construct.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from ..compiled import let_others_run
from ..syntax.parser import Token
from .facts import module_fact
from .module import Block, Function, Module
from .operands import Operand

# SPIR-V 2.11, the four kinds of structured construct.
DEFINITIONS = {
    "selection": "a selection construct: the blocks dominated by a selection header, minus the blocks "
    "dominated by the header's merge block",
    "continue": "a continue construct: the blocks dominated by an OpLoopMerge Continue Target and post "
    "dominated by the corresponding back-edge block",
    "loop": "a loop construct: the blocks dominated by a loop header, minus the blocks dominated by the "
    "loop's merge block, minus the loop's corresponding continue construct",
    "case": "a case construct: the blocks dominated by an OpSwitch Target or Default, minus the blocks "
    "dominated by the OpSwitch's merge block",
}


# These classes write out their __init__ (init=False): the compiled build compiles a written one, a
# dataclass's generated one stays interpreted. Equality and the repr stay the dataclass's.
@dataclass(slots=True, init=False)
class Edge:
    source: str
    target: str
    kind: str  # branch, true, false, case, default
    literal: str | None  # a switch case's literal
    token: Token | None  # the target operand's token, where a diagnostic may point
    line: int  # the branch instruction's line
    back: bool  # to a block still on the depth-first path from the entry

    def __init__(
        self,
        source: str,
        target: str,
        kind: str,
        literal: str | None = None,
        token: Token | None = None,
        line: int = -1,
        back: bool = False,
    ) -> None:
        self.source, self.target, self.kind, self.literal = source, target, kind, literal
        self.token, self.line, self.back = token, line, back


@dataclass(slots=True, eq=False, init=False)
class Construct:
    kind: str  # selection, loop, continue, case
    header: str  # the block that opens it: selection/loop header, continue target, case target
    merge: str | None  # the merge block it ends at (a continue construct: its loop's)
    # References point outwards only (no cycles: models are freed by reference counting alone).
    loop: Construct | None  # a continue construct's loop construct
    parent: Construct | None  # the innermost construct around it
    only: Collection[str] | None  # a continue construct's blocks (post-dominance decides them)

    def __init__(
        self,
        kind: str,
        header: str,
        merge: str | None = None,
        loop: Construct | None = None,
        parent: Construct | None = None,
        only: Collection[str] | None = None,
    ) -> None:
        self.kind, self.header, self.merge, self.loop, self.parent, self.only = kind, header, merge, loop, parent, only


@dataclass(slots=True, eq=False, init=False)
class _Link:
    """The constructs around a block, innermost first: a cons list shared by every block below (a
    class, not nested tuples: mypyc recurses without end on a recursive type alias)."""

    construct: Construct
    rest: _Link | None

    def __init__(self, construct: Construct, rest: _Link | None) -> None:
        self.construct, self.rest = construct, rest


_Chain = _Link | None
_NO_LABELS: Final[tuple[str, ...]] = ()


class Cfg:
    def __init__(self, fn: Function):
        let_others_run()  # one per function: a module's CFGs are built in one go
        self.fn = fn
        blocks = self.blocks = fn.labels  # the first block of each label: the function's own index
        self.entry = fn.blocks[0].label if fn.blocks else None
        edges: list[Edge] = []
        # Kept as tuples: a CFG lives as long as its module, for every function of it (a list of one
        # label takes twice a tuple's bytes, an empty one 56 where () takes none).
        succ: dict[str, tuple[str, ...]] = dict.fromkeys(blocks, _NO_LABELS)
        preds: dict[str, list[str]] = {}  # the blocks with predecessors
        out_edges: dict[str, list[Edge]] = {}  # by source block, for _dfs
        for b in fn.blocks:  # a label defined twice (id.duplicate) keeps both blocks' branches
            made = targets(b)
            if not made:
                continue
            edges += made
            source = b.label
            known = out_edges.get(source)
            if known is None:
                out_edges[source] = made
                out: list[str] = []
            else:
                known += made
                out = list(succ[source])
            for e in made:
                target = e.target
                if target in blocks and target not in out:
                    out.append(target)
                    into = preds.get(target)
                    if into is None:
                        preds[target] = [source]
                    else:
                        into.append(source)
            if out:
                succ[source] = tuple(out)
        self.edges = edges
        self.succ = succ
        self.preds: dict[str, tuple[str, ...]] = dict.fromkeys(blocks, _NO_LABELS)
        for label, ps in preds.items():
            self.preds[label] = tuple(ps)
        back: list[Edge] = []
        self.order = self._dfs(out_edges, back)  # reachable blocks in reverse post-order
        # Each reachable block's place in `order`: a block's dominators all come before it.
        self._places = {b: i for i, b in enumerate(self.order)}
        self.idom = self._dominators(back)
        # The blocks reached from the entry: those with an immediate dominator (each block of
        # `order` has one), read through idom rather than held a second time.
        self.reachable = self.idom.keys()
        children: dict[str, list[str]] = {}
        for label, d in self.idom.items():
            if label != d:
                children.setdefault(d, []).append(label)
        self._dom_children: dict[str, tuple[str, ...]] = {d: tuple(cs) for d, cs in children.items()}
        self._enter: dict[str, int] | None = None  # dominator-tree walk numbers, see _number
        self._leave: dict[str, int] = {}
        self._constructs: list[Construct] | None = None
        self._chains: dict[str, _Chain] = {}  # each reachable block's constructs, see _place
        self._children: dict[int, list[Construct]] | None = None
        self._placed_before = False  # construct_exits let go of the constructs once (see there)
        self._structural: set[str] | None = None

    @property
    def constructs(self) -> list[Construct]:
        """The structured constructs, computed on first use (the reconvergence rule needs only edges)."""
        if self._constructs is None:
            self._constructs = self._find_constructs()
        return self._constructs

    @property
    def structurally_reachable(self) -> set[str]:
        """The blocks reached from the entry through branches and through the merge blocks and
        continue targets headers declare (spirv-val's "structurally reachable")."""
        if self._structural is None:
            seen = {self.entry} if self.entry is not None else set()
            stack = list(seen)
            while stack:
                b = self.blocks[stack.pop()]
                for t in [*self.succ[b.label], *(o[0].text for o in merge_targets(b))]:
                    if t not in seen and t in self.blocks:
                        seen.add(t)
                        stack.append(t)
            self._structural = seen
        return self._structural

    @property
    def declared_merges(self) -> set[str]:
        """The labels some header of the function declares as its merge block or continue target
        (made at each use, not kept: a check asks once per function)."""
        return {o[0].text for b in self.fn.blocks if b.merge is not None for o in merge_targets(b)}

    # -- graph facts --------------------------------------------------------
    def _dfs(self, out_edges: dict[str, list[Edge]], back: list[Edge]) -> list[str]:
        """Depth-first from the entry in branch order (`out_edges`: each block's edges); marks back
        edges (to a block on the path) and gathers them in `back`."""
        entry = self.entry
        if entry is None:
            return []
        post: list[str] = []
        blocks = self.blocks
        on_path = {entry: True}  # the blocks met: True while on the path, False once left
        none: list[Edge] = []
        # The path, with each block's edges and how many of them were followed (three stacks of
        # plain items: no tuple or iterator per block).
        path = [entry]
        pending = [out_edges.get(entry, none)]
        followed = [0]
        while path:
            top = len(path) - 1
            es = pending[top]
            i = followed[top]
            while i < len(es):
                e = es[i]
                i += 1
                target = e.target
                if target not in blocks:
                    continue
                state = on_path.get(target)
                if state is None:
                    on_path[target] = True
                    followed[top] = i
                    path.append(target)
                    pending.append(out_edges.get(target, none))
                    followed.append(0)
                    break
                if state:
                    e.back = True
                    back.append(e)
            else:
                node = path.pop()
                pending.pop()
                followed.pop()
                on_path[node] = False
                post.append(node)
        return post[::-1]

    def _dominators(self, back: list[Edge]) -> dict[str, str]:
        """Immediate dominators (Cooper, Harvey and Kennedy's iteration over reverse post-order).

        The first round, in reverse post-order, sees each block's predecessors but those of its back
        edges (`back`), so it gives the dominators of the graph without them. When each back edge's
        target dominates its source there, adding the edges changes nothing (a path through one can
        skip the cycle it closes), and the second round, which only confirms, is not run: structured
        code is always so (an irreducible graph iterates on)."""
        if self.entry is None:
            return {}
        index = self._places
        idom = {self.entry: self.entry}
        preds = self.preds
        rest = self.order[1:]
        first = True
        changed = True
        while changed:
            changed = False
            for b in rest:
                new = None
                for p in preds[b]:
                    if p not in idom:
                        continue
                    if new is None:
                        new = p
                        continue
                    a, c = p, new
                    while a != c:
                        while index[a] > index[c]:
                            a = idom[a]
                        while index[c] > index[a]:
                            c = idom[c]
                    new = a
                if new is not None and idom.get(b) != new:
                    idom[b] = new
                    changed = True
            if first:
                first = False
                changed = not _closes_loops(back, idom, index)
        return idom

    def _number(self) -> None:
        """Enter/leave numbers of a walk of the dominator tree: a dominates b when a's interval
        holds b's, a test in constant time however deep the tree."""
        enter: dict[str, int] = {}
        leave: dict[str, int] = {}
        self._enter, self._leave = enter, leave
        if self.entry is None or self.entry not in self.idom:
            return
        children = self._dom_children
        clock = 0
        stack = [self.entry]  # a block is popped twice: entered, then (its subtree done) left
        while stack:
            b = stack.pop()
            clock += 1
            if b in enter:
                leave[b] = clock
                continue
            enter[b] = clock
            stack.append(b)
            below = children.get(b)
            if below is not None:
                stack.extend(below)

    def dominates(self, a: str, b: str) -> bool:
        """Whether every path from the entry to b passes through a (reachable blocks only)."""
        if self._enter is None:
            self._number()
        enter = self._enter  # _number set it
        if enter is None or a not in enter or b not in enter:
            return False
        return enter[a] <= enter[b] and self._leave[b] <= self._leave[a]

    def dominated(self, a: str, minus: str | None = None) -> set[str]:
        """The blocks a dominates (a included), minus those `minus` dominates: a's dominator-tree
        subtree with minus's cut off, so a construct costs its own size, not all that follows it."""
        idom = self.idom
        if a not in idom:
            return set()
        if minus is not None and minus in idom:
            # Whether minus dominates a: up a's dominators (each earlier in `order` than the last)
            # to the first not after minus. In structured code a few blocks, where `dominates`
            # would number, and keep the numbers of, the whole tree.
            places = self._places
            top = places[minus]
            x = a
            while places[x] > top:
                x = idom[x]
            if x == minus:
                return set()
        children = self._dom_children
        out, stack = set(), [a]
        while stack:
            b = stack.pop()
            out.add(b)
            below = children.get(b)
            if below is not None:
                for c in below:
                    if c != minus:
                        stack.append(c)
        return out

    def _post_dominated(self, by: str, within: set[str]) -> set[str]:
        """The blocks of `within` (all dominated by one block) every path of which to a function exit
        passes through `by`: those that cannot reach, without `by`, a block with no successor or a
        branch out of `within`. A path that leaves can come back only through the dominating block,
        so in structured code leaving counts as an exit; each loop costs only its own blocks."""
        escapes = [b for b in within if b != by and (not self.succ[b] or any(t not in within for t in self.succ[b]))]
        free, stack = set(escapes), list(escapes)
        while stack:
            for p in self.preds[stack.pop()]:
                if p != by and p in within and p not in free:
                    free.add(p)
                    stack.append(p)
        return within - free

    # -- constructs ---------------------------------------------------------
    def _find_constructs(self) -> list[Construct]:
        # Reachability read from idom, whose keys `reachable` views: compiled, a test on the dict is
        # its own lookup, on the view a generic one.
        reachable = self.idom
        out: list[Construct] = []
        back_from: dict[str, str] = {}  # loop header -> the first back-edge block into it
        for e in self.edges:
            if e.back:
                back_from.setdefault(e.target, e.source)
        for b in self.blocks.values():
            if b.merge is None or b.label not in reachable:
                continue
            merge = merge_block(b)
            if b.merge.opname == "OpLoopMerge":
                cont = continue_target(b)
                loop = Construct("loop", b.label, merge)
                out.append(loop)
                if cont in reachable:
                    # What the merge block dominates is never post-dominated by the back-edge block
                    # in structured code (it leaves the loop): cut off first, to keep this local.
                    blocks = self.dominated(cont, merge)
                    if b.label in back_from:
                        blocks = self._post_dominated(back_from[b.label], blocks)
                    out.append(Construct("continue", cont, merge, loop=loop, only=_label_set(blocks)))
            else:
                out.append(Construct("selection", b.label, merge))
                t = b.terminator
                if t is not None and t.opname == "OpSwitch":
                    for target in dict.fromkeys(o.token.text for o in t.ids()[1:]):
                        if target != merge and target in reachable:
                            out.append(Construct("case", target, merge))
        self._place(out)
        return out

    def _place(self, constructs: list[Construct]) -> None:
        """Each block's chain of constructs and each construct's parent, in one walk of the dominator
        tree (SPIR-V 2.11: a construct is the blocks its header dominates, minus those its merge block
        dominates). A block inherits its immediate dominator's chain; a merge block drops its
        construct and every construct inside it (a case that breaks to its loop's merge block leaves
        the case, the switch and the loop); a header then adds its own. Each block costs the few
        constructs it opens or closes, not its depth: nesting 5,000 deep stays linear."""
        opened: dict[str, list[Construct]] = {}
        closed: dict[str, list[Construct]] = {}
        for c in constructs:
            opened.setdefault(c.header, []).append(c)
            if c.merge is not None and c.kind != "continue":  # a continue construct ends with its loop
                closed.setdefault(c.merge, []).append(c)
        for cs in opened.values():  # at one block: those another header opens (outer) before its own
            if len(cs) > 1:
                cs.sort(
                    key=lambda c: (
                        _OPENING_ORDER[c.kind]
                        if c.kind != "continue" or c.loop is None or c.loop.header != c.header
                        else 3
                    )
                )
        chains = self._chains
        if self.entry is None or self.entry not in self.idom:
            return
        stack: list[tuple[str, _Chain]] = [(self.entry, None)]
        children = self._dom_children
        while stack:
            b, chain = stack.pop()
            ends = closed.get(b)
            if ends is not None:
                for c in ends:
                    chain = _drop(chain, c)
            starts = opened.get(b)
            if starts is not None:
                for c in starts:
                    if c.kind == "continue" and b not in (c.only or ()):
                        continue
                    # Always a construct already in the chain (so parents never form a cycle): a
                    # continue construct's is its loop when the loop holds it, as in structured code.
                    c.parent = c.loop if c.loop is not None and _has(chain, c.loop) else _first(chain, b)
                    chain = _Link(c, chain)
            chains[b] = chain
            below = children.get(b)
            if below is not None:
                for k in below:
                    stack.append((k, chain))

    def children(self, c: Construct | None) -> list[Construct]:
        """The constructs whose parent is c (None: the outermost ones)."""
        if self._children is None:
            self._children = {}
            for d in self.constructs:
                self._children.setdefault(id(d.parent), []).append(d)
        return self._children.get(id(c), [])

    def innermost(self, label: str) -> Construct | None:
        """The smallest construct that has the block (a continue construct is not in its loop's)."""
        _ = self.constructs  # places the blocks
        return _first(self._chains.get(label), label)

    def holds(self, c: Construct, label: str) -> bool:
        """Whether the block is one of the construct's (a loop's continue construct's are not the loop's)."""
        _ = self.constructs  # places the blocks
        return self._holds(c, label)

    def _holds(self, c: Construct, label: str) -> bool:
        """holds, the blocks placed."""
        chain = self._chains.get(label)
        while chain is not None:
            d, chain = chain.construct, chain.rest
            if d.kind == "continue" and label not in (d.only or ()):
                continue
            if d is c:
                return True
            if d.loop is c:  # in its continue construct
                return False
        return False

    def construct_exits(self) -> list[tuple[Edge, Construct]]:
        """The edges that leave a construct other than by a structured exit, each with the construct
        it leaves so (SPIR-V 2.11). A construct is left through its merge block; a loop construct
        also through its continue target, a continue construct through its loop's header or merge
        block, a case construct also to another case of its OpSwitch; from a selection or case
        construct, a break or continue of the innermost loop around it and a break to the innermost
        OpSwitch's merge block leave it too, and then each construct around it in turn.

        The constructs it places the first time are let go: a whole check reads them once per
        function, and the CFG lives as long as its module. Placed again (the function is checked
        again as it is edited), they are kept."""
        kept = self._constructs is not None or self._placed_before
        out = self._construct_exits()
        if not kept:
            self._constructs, self._chains, self._children = None, {}, None
            self._placed_before = True
        return out

    def _construct_exits(self) -> list[tuple[Edge, Construct]]:
        out: list[tuple[Edge, Construct]] = []
        if not self.constructs:
            return out
        reachable, chains = self.idom, self._chains  # (see _find_constructs)
        for e in self.edges:
            source, target = e.source, e.target
            if source not in reachable or target not in reachable:
                continue
            c = _first(chains.get(source), source)
            while c is not None and not self._holds(c, target):
                how = self._exit(c, target)
                if how is None:
                    out.append((e, c))
                    break
                if how == "merge":
                    break
                c = c.parent
        return out

    def _exit(self, c: Construct, t: str) -> str | None:
        """How a branch to t leaves c: through its own exit ("merge"), as a break or continue that
        also leaves the constructs around c ("out"), or not structurally (None)."""
        if t == c.merge:
            return "merge"
        if c.kind == "loop" and t == continue_target(self.blocks[c.header]):
            return "merge"
        if c.kind == "continue" and c.loop is not None and t == c.loop.header:
            return "merge"
        if c.kind == "case" and any(d.kind == "case" and d.header == t and d.merge == c.merge for d in self.constructs):
            return "merge"
        if c.kind not in ("selection", "case"):
            return None
        loop = _around(c, "loop")
        if loop is not None and t in (loop.merge, loop.header, continue_target(self.blocks[loop.header])):
            return "out"
        switch = _around(c, "case")
        return "out" if switch is not None and t == switch.merge else None

    def loop_around(self, c: Construct) -> Construct | None:
        """The innermost loop construct around c (a continue construct's is its loop)."""
        return _around(c, "loop")

    def members(self, c: Construct) -> set[str]:
        """The construct's blocks (costs the blocks its header dominates: for tests and tools)."""
        return {b for b in self.dominated(c.header) if self.holds(c, b)}


def _closes_loops(back: list[Edge], idom: dict[str, str], index: dict[str, int]) -> bool:
    """Whether each back edge's target dominates its source in the tree `idom` (blocks numbered by
    `index`, a dominator before the blocks it dominates)."""
    for e in back:
        target = e.target
        top = index[target]
        a = e.source
        while index[a] > top:
            a = idom[a]
        if a != target:
            return False
    return True


def _label_set(labels: set[str]) -> Collection[str]:
    """Labels kept for membership tests: a few as a tuple (a frozenset of one takes 216 bytes, a
    tuple 48, for every continue construct of the module), more as a frozenset."""
    return tuple(labels) if len(labels) <= 8 else frozenset(labels)


_OPENING_ORDER: Final = {"case": 0, "continue": 1, "selection": 2, "loop": 2}


def _first(chain: _Chain, label: str) -> Construct | None:
    """The innermost construct of the chain that holds the block (a continue construct holds only
    the blocks the back-edge block post-dominates)."""
    while chain is not None:
        c = chain.construct
        if c.kind != "continue" or label in (c.only or ()):
            return c
        chain = chain.rest
    return None


def _around(c: Construct, kind: str) -> Construct | None:
    """The innermost loop (kind "loop"; a continue construct stands for its loop) or case
    construct around c."""
    d = c.parent
    while d is not None:
        if d.kind == kind:
            return d
        if kind == "loop" and d.kind == "continue":
            return d.loop
        d = d.parent
    return None


def _has(chain: _Chain, c: Construct) -> bool:
    while chain is not None:
        if chain.construct is c:
            return True
        chain = chain.rest
    return False


def _drop(chain: _Chain, c: Construct) -> _Chain:
    """The chain without c and every construct inside it; unchanged when c is not in it."""
    walk = chain
    while walk is not None:
        if walk.construct is c:
            return walk.rest
        walk = walk.rest
    return chain


def targets(b: Block) -> list[Edge]:
    """The edges a block's terminator branches along (none for returns, kills and a missing
    terminator): the one reading of OpBranch, OpBranchConditional and OpSwitch operands."""
    t = b.terminator
    if t is None:
        return []
    op = t.opname
    if op not in _BRANCHES:
        return []
    label, line = b.label, t.line
    # An operand's token read as its first item (`o[0]`, its grammar operand `o[1]`): the compiled
    # build reads a tuple item, where `o.token` looks the name up on the class, for every branch of
    # the module.
    ids: list[Token] = []
    for o in t.operands:
        tok = o[0]
        if tok.kind == "ID":
            ids.append(tok)
    if op == "OpBranch":
        return [Edge(label, ids[0].text, "branch", None, ids[0], line)] if ids else []
    if op == "OpBranchConditional":
        out = [Edge(label, ids[1].text, "true", None, ids[1], line)] if len(ids) > 1 else []
        if len(ids) > 2:
            out.append(Edge(label, ids[2].text, "false", None, ids[2], line))
        return out
    out = [Edge(label, tok.text, "default", None, tok, line) for tok in ids[1:2]]
    lits = [o[0].text for o in t.operands if o[0].kind != "ID"]
    for i in range(2, len(ids)):
        tok = ids[i]
        out.append(Edge(label, tok.text, "case", lits[i - 2] if i - 2 < len(lits) else None, tok, line))
    return out


_BRANCHES: Final = frozenset(("OpBranch", "OpBranchConditional", "OpSwitch"))


# The operands of a merge instruction that name blocks, by the grammar's operand names.
_MERGE_OPERANDS: Final = ("Merge Block", "Continue Target")


def merge_targets(b: Block) -> list[Operand]:
    """The block's declared merge block and (for OpLoopMerge) continue target operands."""
    if b.merge is None:
        return []
    return [o for o in b.merge.operands if o[0].kind == "ID" and o[1].name in _MERGE_OPERANDS]  # (see targets)


def merge_block(b: Block) -> str | None:
    """The label of the block's declared merge block, if it is a header."""
    return _merge_operand(b, "Merge Block")


def continue_target(b: Block) -> str | None:
    """The label of a loop header's declared continue target."""
    return _merge_operand(b, "Continue Target")


def _merge_operand(b: Block, name: str) -> str | None:
    """The label the merge instruction's operand of that name gives (merge_targets' first of that
    name, without the list: headers are asked again and again)."""
    merge = b.merge
    if merge is None:
        return None
    for o in merge.operands:
        tok = o[0]  # (see targets)
        if tok.kind == "ID" and o[1].name == name:
            return tok.text
    return None


def _start(x: Function | Block) -> int:
    return x.line


def function_holding(m: Module, line: int) -> Function | None:
    """The function a line lies in, counting one whose OpFunctionEnd is missing as reaching up to
    the next OpFunction (its blocks go on until there)."""
    fn = m.function_at(line)
    if fn is not None:
        return fn
    k = bisect_right(m.functions, line, key=_start) - 1
    if k >= 0 and m.functions[k].end_line == m.functions[k].line:
        return m.functions[k]
    return None


def block_holding(fn: Function, line: int) -> Block | None:
    """The block whose label is the last at or before `line` (None before the first label)."""
    k = bisect_right(fn.blocks, line, key=_start) - 1
    return fn.blocks[k] if k >= 0 else None


def cfg_of(m: Module, fn: Function) -> Cfg:
    """The function's CFG: labels, branches and merges are structure, a module fact."""
    cfg = _cfg_at(m, fn.line)
    return cfg if cfg is not None and cfg.fn is fn else Cfg(fn)


@module_fact
def _cfg_at(m: Module, line: int) -> Cfg | None:
    fn = m.function_at(line)
    return Cfg(fn) if fn is not None else None
