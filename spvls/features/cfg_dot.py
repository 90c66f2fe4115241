"""The control-flow graph as a picture: Graphviz DOT (and SVG through Graphviz's `dot`).

A node per block (its name, then an abridged body), an arrow per branch target, merge and continue
declarations dashed, structured constructs as nested clusters, unreachable blocks grey, blocks reached
in divergent control flow shaded (the branch that diverges and the merge where its invocations meet
again say so), and what an error (warning) points at red (orange) with the diagnostic's code.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..checks.diagnostic import ERROR, WARNING, Diagnostic
from ..model import uniformity as uni
from ..model.cfg import Cfg, cfg_of, merge_targets
from ..model.module import Block, Function, Inst, Module
from ..model.sourcemap import debug_op, function_names

BODY_LINES = 6  # instructions shown per block besides its merge and terminator
LINE_CHARS = 44
COLOURS = {ERROR: "red", WARNING: "darkorange"}
DIVERGENT_FILL = "#fde8e4"  # a block reached in divergent control flow
CLUSTER_COLOURS = {"selection": "#e8f0fe", "loop": "#e6f4ea", "continue": "#fef7e0", "case": "#f3e8fd"}
SVG_HELP = (
    "Graphviz's `dot` is not on PATH: install Graphviz (Debian/Ubuntu: apt-get install graphviz; "
    "macOS: brew install graphviz; Windows: winget install graphviz), or use --format dot"
)


@dataclass(slots=True)
class Node:
    id: str  # the DOT node id
    block: str  # the block's label id
    name: str  # its OpName, else the id
    line: int  # the OpLabel's line
    body: list[str]
    reachable: bool = True
    missing: bool = False  # a branch target that is no block of the function
    marks: list[Diagnostic] = field(default_factory=list)
    divergent: str = ""  # why control reaches it divergently ("" when it reaches it uniformly)


@dataclass(slots=True)
class Arrow:
    source: str  # node ids
    target: str
    kind: str  # branch, true, false, case, default, merge, continue
    label: str = ""
    back: bool = False
    marks: list[Diagnostic] = field(default_factory=list)


@dataclass(slots=True)
class Cluster:
    id: str
    kind: str  # selection, loop, continue, case
    header: str  # the block label that opens it
    nodes: list[str] = field(default_factory=list)  # node ids whose innermost construct it is
    children: list[Cluster] = field(default_factory=list)


@dataclass(slots=True)
class Picture:
    """One function's graph."""

    id: str
    name: str
    nodes: list[Node]
    arrows: list[Arrow]
    clusters: list[Cluster]  # outermost constructs
    loose: list[str]  # node ids in no construct

    def node(self, block: str) -> Node | None:
        return next((n for n in self.nodes if n.block == block), None)


# -- choosing functions ---------------------------------------------------------------------
def default_function(m: Module) -> Function | None:
    """The first entry point's function, else the first function."""
    for ep in m.entry_points.values():
        fn = m.function_of.get(ep.id)
        if fn is not None:
            return fn
    return m.functions[0] if m.functions else None


def find_function(m: Module, name: str) -> Function | None:
    """By id (`%main` or `main`), else by OpName as written (`op(f1;f1;u1;`), else by entry-point
    name, else by source-level name: the debug info's function name, or the OpName before glslang's
    mangled parameter list (`op`). Raises LookupError when a source-level name names several."""
    key = name if name.startswith("%") else "%" + name
    if key in m.function_of:
        return m.function_of[key]
    bare = name.lstrip("%")
    for fn in m.functions:
        if _name(m, fn.id) == bare:
            return fn
    for ep in m.entry_points.values():
        if ep.name == bare and ep.id in m.function_of:
            return m.function_of[ep.id]
    debug = function_names(m)
    found = [fn for fn in m.functions if debug.get(fn.id, _name(m, fn.id).split("(")[0]) == bare]
    if len(found) > 1:
        raise LookupError(
            f"{bare!r} names {len(found)} functions: "
            + ", ".join(f"{fn.id} ({_name(m, fn.id)})" for fn in found)
            + "; give one of their ids"
        )
    return found[0] if found else None


def _name(m: Module, id_: str) -> str:
    """The OpName's value (the model reads the string's escapes), else the id."""
    return m.name_of(id_)


# -- the graph --------------------------------------------------------------------------------
def _text(inst: Inst) -> str:
    """One instruction as written, comments dropped, spaces collapsed, cut to LINE_CHARS."""
    src = inst.src
    parts = [f"{src.result.text} =" if src.result else "", src.opcode.text if src.opcode else ""]
    parts += [t.text for t in src.operands]
    text = " ".join(p for p in parts if p)
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"


def _body(m: Module, block: Block) -> list[str]:
    # Debug instructions (OpLine, OpNoLine, and the DebugInfo sets' DebugLine, DebugScope, ...) say
    # where, not what: left out of the abridged body.
    insts = [
        i
        for i in block.insts
        if i is not block.merge
        and i is not block.terminator
        and not (i.grammar_inst is not None and i.grammar_inst.cls == "Debug")
        and debug_op(m, i) is None
    ]
    out = [_text(i) for i in insts[:BODY_LINES]]
    if len(insts) > BODY_LINES:
        out.append(f"… {len(insts) - BODY_LINES} more")
    out += [_text(i) for i in (block.merge, block.terminator) if i is not None]
    return out


def _block_end(fn: Function, k: int) -> int:
    b = fn.blocks[k]
    if b.terminator is not None:
        return b.terminator.line
    return fn.blocks[k + 1].line - 1 if k + 1 < len(fn.blocks) else fn.end_line


def picture(m: Module, fn: Function, diagnostics: Sequence[Diagnostic] = (), prefix: str = "") -> Picture:
    cfg = cfg_of(m, fn)
    nodes: dict[str, Node] = {}
    for k, b in enumerate(fn.blocks):
        if b.label not in nodes:
            nodes[b.label] = Node(
                f"{prefix}b{k}", b.label, _name(m, b.label), b.line, _body(m, b), reachable=b.label in cfg.reachable
            )
    # (line, token start, token end) of each operand an arrow is drawn for, to place diagnostics.
    spans: list[tuple[int, int, int, Arrow]] = []
    arrows: list[Arrow] = []

    def target(label: str) -> str:
        if label not in nodes:
            nodes[label] = Node(
                f"{prefix}x{len(nodes)}",
                label,
                _name(m, label),
                -1,
                ["(not a block of this function)"],
                reachable=False,
                missing=True,
            )
        return nodes[label].id

    for e in cfg.edges:
        label = {"true": "T", "false": "F", "default": "default"}.get(e.kind, e.literal or "")
        a = Arrow(nodes[e.source].id, target(e.target), e.kind, label, e.back)
        arrows.append(a)
        if e.token is not None:
            spans.append((e.line, e.token.start, e.token.end, a))
    for b in cfg.blocks.values():
        if b.merge is None:
            continue
        for o in merge_targets(b):
            kind = "merge" if o.grammar_operand.name == "Merge Block" else "continue"
            a = Arrow(nodes[b.label].id, target(o.token.text), kind, kind)
            arrows.append(a)
            spans.append((b.merge.line, o.token.start, o.token.end, a))
    _uniformity(m, fn, nodes)
    _mark(fn, nodes, spans, diagnostics)
    clusters, loose = _clusters(cfg, nodes, prefix)
    return Picture(fn.id, _name(m, fn.id), list(nodes.values()), arrows, clusters, loose)


def _uniformity(m: Module, fn: Function, nodes: dict[str, Node]) -> None:
    """Shade the blocks reached divergently; say which branch diverges and where it meets again."""
    u = uni.analyse(m, fn)
    for label, n in nodes.items():
        if n.reachable and not n.missing and u.control(label)[0] < uni.ALL:
            w = u.block_why.get(label)
            n.divergent = f"reached in control flow uniform only across {uni.LEVELS[u.control(label)[0]]}"
            n.divergent += f" (the branch on {w.next} in {w.block})" if w is not None and w.next else ""
    for header, merge in u.diverges.items():
        if header in nodes:
            where = f"meet again at {_name(m, merge)}" if merge else "do not meet again in this function"
            nodes[header].body.append(f"diverges: invocations {where}")
        if merge in nodes:
            who = "those of " if header in u.leaves else ""
            left = " that did not leave" if header in u.leaves else ""
            nodes[merge].body.append(f"reconverges: {who}{_name(m, header)}'s invocations{left} meet again")


def _mark(
    fn: Function, nodes: dict[str, Node], spans: list[tuple[int, int, int, Arrow]], diagnostics: Sequence[Diagnostic]
) -> None:
    """An error or warning on a branch or merge operand marks its arrow; anywhere else in a block,
    the block."""
    ends = [(b.line, _block_end(fn, k), b.label) for k, b in enumerate(fn.blocks)]
    for d in diagnostics:
        if d.severity not in COLOURS or not fn.line <= d.line <= fn.end_line:
            continue
        hit = [a for line, s, e, a in spans if line == d.line and s < max(d.end, d.start + 1) and d.start < e]
        if hit:
            hit[0].marks.append(d)
            continue
        for lo, hi, label in ends:
            if lo <= d.line <= hi:
                nodes[label].marks.append(d)
                break


def _clusters(cfg: Cfg, nodes: dict[str, Node], prefix: str) -> tuple[list[Cluster], list[str]]:
    made: dict[int, Cluster] = {}
    for i, c in enumerate(cfg.constructs):
        made[id(c)] = Cluster(f"cluster_{prefix}c{i}", c.kind, c.header)
    loose: list[str] = []
    for label, n in nodes.items():
        inner = cfg.innermost(label)
        (made[id(inner)].nodes if inner is not None else loose).append(n.id)

    order, stack = [], list(cfg.children(None))  # outer before inner; loops, not recursion: nesting can be deep
    while stack:
        c = stack.pop()
        order.append(c)
        stack.extend(cfg.children(c))
    for c in reversed(order):  # inner first: a cluster is kept when it draws a node or a kept cluster
        made[id(c)].children = [k for k in (made[id(x)] for x in cfg.children(c)) if k.nodes or k.children]
    tops = [made[id(c)] for c in cfg.children(None)]
    return [c for c in tops if c.nodes or c.children], loose


# -- DOT ----------------------------------------------------------------------------------------
def quote(text: str) -> str:
    """A DOT double-quoted string whose text Graphviz shows as given: quotes and backslashes
    escaped (backslash starts an escape such as \\n in labels), '&' as '&amp;' (Graphviz reads
    '&lt;' in a label as '<'), line breaks made \\n."""
    text = text.replace("&", "&amp;").replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n") + '"'


def _label(lines: list[str]) -> str:
    """A left-justified multi-line label: each line ends with \\l (quoted text has no raw breaks)."""
    return '"' + "".join(quote(x)[1:-1] + "\\l" for x in lines) + '"'


def _severity(marks: list[Diagnostic]) -> str | None:
    if any(d.severity == ERROR for d in marks):
        return ERROR
    return WARNING if marks else None


def _codes(marks: list[Diagnostic]) -> list[str]:
    return list(dict.fromkeys(d.code for d in marks))


def _node_dot(n: Node, indent: str) -> str:
    lines = [n.name if n.name == n.block else f"{n.name} ({n.block})", *n.body]
    attrs = {"label": _label(lines)}
    tip = [f"{n.block}"] + [f"{d.severity} [{d.code}] {d.message}" for d in n.marks]
    if n.divergent:
        attrs["fillcolor"] = quote(DIVERGENT_FILL)
        tip.append(n.divergent)
    if not n.reachable:
        attrs.update(style='"filled,dashed"' if n.missing else "filled", fillcolor="lightgrey", fontcolor="gray35")
        tip.append("not a block of this function" if n.missing else "unreachable from the entry block")
    sev = _severity(n.marks)
    if sev:
        attrs["label"] = _label(lines + [f"⚠ {c}" for c in _codes(n.marks)])
        attrs.update(color=COLOURS[sev], penwidth="2.5")
        if n.reachable:
            attrs["fontcolor"] = COLOURS[sev]
    attrs["tooltip"] = quote("\n".join(tip))
    classes = ["block"] + (["unreachable"] if not n.reachable else []) + (["divergent"] if n.divergent else [])
    attrs["class"] = quote(" ".join(classes + ([sev] if sev else [])))
    return f"{indent}{n.id} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];"


def _arrow_dot(a: Arrow, indent: str) -> str:
    label = a.label + (" (back)" if a.back else "")
    attrs: dict[str, str] = {}
    classes = ["edge", a.kind] + (["back"] if a.back else [])
    if a.kind in ("merge", "continue"):
        attrs.update(style="dashed", color="gray45", fontcolor="gray45", constraint="false", arrowhead="empty")
    elif a.back:
        attrs.update(color="blue", fontcolor="blue", penwidth="1.8")
    elif a.kind == "true":
        attrs.update(color="darkgreen", fontcolor="darkgreen")
    elif a.kind == "false":
        attrs.update(color="firebrick4", fontcolor="firebrick4")
    sev = _severity(a.marks)
    if sev:
        label = "\n".join([label, *_codes(a.marks)]).strip("\n")
        attrs.update(color=COLOURS[sev], fontcolor=COLOURS[sev], penwidth="2.5")
        attrs["tooltip"] = quote("\n".join(f"{d.severity} [{d.code}] {d.message}" for d in a.marks))
        classes.append(sev)
    if label:
        attrs["label"] = quote(label)
    attrs["class"] = quote(" ".join(classes))
    return f"{indent}{a.source} -> {a.target} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];"


def _cluster_dot(top: Cluster, names: dict[str, str], indent: str) -> list[str]:
    out: list[str] = []
    stack: list[tuple[Cluster | None, str]] = [(top, indent)]
    while stack:
        c, ind = stack.pop()
        if c is None:  # the end of a cluster
            out.append(f"{ind}}}")
            continue
        header = names.get(c.header, c.header)
        out += [
            f"{ind}subgraph {c.id} {{",
            (
                f"{ind}  label={quote(f'{c.kind} {header}')}; style=filled; color=gray60; "
                f"fillcolor={quote(CLUSTER_COLOURS[c.kind])}; class={quote('construct ' + c.kind)};"
            ),
        ]
        out += [f"{ind}  {n};" for n in c.nodes]
        inner = ind + "  " if len(ind) < 40 else ind
        stack.append((None, ind))
        stack.extend((k, inner) for k in reversed(c.children))
    return out


def _function_dot(p: Picture, indent: str) -> list[str]:
    names = {n.block: n.name for n in p.nodes}
    out = [_node_dot(n, indent) for n in p.nodes]
    for c in p.clusters:
        out += _cluster_dot(c, names, indent)
    out += [_arrow_dot(a, indent) for a in p.arrows]
    return out


def to_dot(pictures: list[Picture]) -> str:
    """One picture as a graph, several as clusters of one graph."""
    out = [
        "digraph cfg {",
        '  graph [fontname="Courier", fontsize=11, rankdir=TB, newrank=true];',
        '  node [shape=box, fontname="Courier", fontsize=10, style=filled, fillcolor=white];',
        '  edge [fontname="Courier", fontsize=9];',
    ]
    if len(pictures) == 1:
        p = pictures[0]
        out.append(f"  label={quote(_title(p))}; labelloc=t;")
        out += _function_dot(p, "  ")
    else:
        for i, p in enumerate(pictures):
            out += [f"  subgraph cluster_f{i} {{", f'    label={quote(_title(p))}; color=black; class="function";']
            out += _function_dot(p, "    ")
            out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _title(p: Picture) -> str:
    return p.id if p.name == p.id else f"{p.name} ({p.id})"


def pictures(m: Module, diagnostics: list[Diagnostic], which: str | None) -> list[Picture]:
    """The pictures `spvls cfg --function` asks for: None = the default function, "all" = every one.
    Raises LookupError naming the functions there are."""
    if which == "all":
        fns = m.functions
        if not fns:
            raise LookupError("the module has no function")
        return [picture(m, fn, diagnostics, f"f{i}_") for i, fn in enumerate(fns)]
    fn = default_function(m) if which is None else find_function(m, which)
    if fn is None:
        have = ", ".join(f.id for f in m.functions) or "none"
        raise LookupError(f"no function {which!r} (functions: {have})" if which else "the module has no function")
    return [picture(m, fn, diagnostics)]


class GraphvizError(RuntimeError):
    """Graphviz's `dot` failed or ran past its time: the message says which."""


def _dot_command(exe: str) -> list[str]:
    """`dot -Tsvg`, killed if the process that started it dies first (Linux's parent-death signal,
    through util-linux's setpriv when installed): a layout left running would hold a core for nothing."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", exe, "-Tsvg"] if setpriv else [exe, "-Tsvg"]


def render_svg(dot: str, timeout: float = 60) -> str | None:
    """The SVG Graphviz draws for `dot`, or None when `dot` is not installed; GraphvizError when it
    fails or takes longer than `timeout` seconds (it is killed then)."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        r = subprocess.run(
            _dot_command(exe), input=dot.encode("utf-8", "replace"), capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise GraphvizError(f"Graphviz's dot took longer than {timeout:g} s and was stopped") from None
    except OSError as e:
        raise GraphvizError(f"Graphviz's dot could not run: {e.strerror or e}") from None
    if r.returncode != 0:
        why = r.stderr.decode("utf-8", "replace").strip() or f"exit status {r.returncode}"
        raise GraphvizError(f"Graphviz's dot failed: {why}")
    return r.stdout.decode("utf-8", "replace")  # a label is shown, never read back: "?" for a lone surrogate


@dataclass(slots=True)
class View:
    """What the editor's CFG panel shows for a cursor: the function's DOT and where each node's label is."""

    function: str | None
    dot: str | None
    blocks: list[tuple[str, str, tuple[int, int, int]]]  # node id, label id, (line, start, end) of the label
    current: str | None  # the node id of the block at the cursor
    message: str = ""


def view(m: Module, diagnostics: list[Diagnostic], line: int) -> View:
    """The CFG of the function at `line` (outside every function: the default one)."""
    fn = m.function_at(line) or default_function(m)
    if fn is None:
        return View(None, None, [], None, "the module has no function")
    p = picture(m, fn, diagnostics)
    ids = {n.block: n.id for n in p.nodes}
    blocks = [
        (ids[b.label], b.label, (b.line, b.label_inst.src.result.start, b.label_inst.src.result.end))
        for b in fn.blocks
        if b.label_inst is not None and b.label_inst.src.result is not None
    ]
    at = [b.label for b in fn.blocks if b.line <= line] if fn.line <= line <= fn.end_line else []
    return View(p.id, to_dot([p]), blocks, ids[at[-1]] if at else None)
