"""The CFG view on generated shapes and names: random structured functions (selections, loops,
switches, breaks out of cases and ifs to the loop's merge), kept when spirv-val accepts them, nest
their constructs as the blocks nest; deep nesting stays linear (its cost: bench/, not here); names
with quotes, backslashes, entities and markup are drawn as written (real Graphviz)."""

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import tool

from spvls.checks import analyze
from spvls.features import cfg_dot as draw
from spvls.model.cfg import cfg_of
from spvls.syntax.document import Document

SEED = int(os.environ.get("SPVLS_SEED") or 0)
DATA = Path(__file__).resolve().parents[1] / "data" / "cfg"
HEAD = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
{names}%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%t = OpConstantTrue %bool
%one = OpConstant %int 1
%main = OpFunction %void None %fn
"""


class Shape:
    """A random structured function body: each region starts at a label and ends by branching to
    its exit (or, inside a loop, sometimes to the loop's merge block: a break)."""

    def __init__(self, rng: random.Random):
        self.rng, self.n, self.lines = rng, 0, []

    def label(self, kind: str) -> str:
        self.n += 1
        return f"%{kind}{self.n}"

    def region(self, entry: str, exit_: str, depth: int, loop: str | None) -> None:
        out = self.lines
        out.append(f"{entry} = OpLabel")
        kind = self.rng.choice(["plain", "if", "loop", "switch"]) if depth > 0 else "plain"
        if kind == "plain":
            out.append(f"OpBranch {loop if loop and self.rng.random() < 0.25 else exit_}")
        elif kind == "if":
            merge, a, b = self.label("m"), self.label("then"), self.label("else")
            out += [f"OpSelectionMerge {merge} None", f"OpBranchConditional %t {a} {b}"]
            self.region(a, merge, depth - 1, loop)
            self.region(b, merge, depth - 1, loop)
            self.region(merge, exit_, depth - 1, loop)
        elif kind == "loop":
            body, cont, merge = self.label("body"), self.label("cont"), self.label("lm")
            out += [f"OpLoopMerge {merge} {cont} None", f"OpBranch {body}"]
            self.region(body, cont, depth - 1, merge)
            out += [f"{cont} = OpLabel", f"OpBranchConditional %t {entry} {merge}"]
            self.region(merge, exit_, depth - 1, loop)
        else:
            merge = self.label("sm")
            cases = [self.label("case") for _ in range(self.rng.randint(1, 3))]
            out += [
                f"OpSelectionMerge {merge} None",
                f"OpSwitch %one {merge} " + " ".join(f"{k + 1} {c}" for k, c in enumerate(cases)),
            ]
            for c in cases:
                self.region(c, merge, depth - 1, loop)
            self.region(merge, exit_, depth - 1, loop)


def _function(rng: random.Random, depth: int) -> str:
    s = Shape(rng)
    s.region("%entry", "%exit", depth, None)
    return HEAD.format(names="") + "\n".join(s.lines) + "\n%exit = OpLabel\nOpReturn\nOpFunctionEnd\n"


def _valid(text: str, tmp_path: Path) -> bool:
    src, spv = tmp_path / "s.spvasm", tmp_path / "s.spv"
    src.write_text(text)
    subprocess.run([tool("spirv-as"), str(src), "-o", str(spv)], check=True)
    return subprocess.run([tool("spirv-val"), str(spv)], capture_output=True).returncode == 0


def _check_nesting(text: str) -> None:
    m = analyze(Document(text)).module
    fn = m.function_of["%main"]
    c = cfg_of(m, fn)
    for k in c.constructs:
        members = c.members(k)
        assert k.header in members and k.merge not in members, (k.kind, k.header)
        if k.parent is not None:
            outer = c.members(k.parent) | (c.members(k) if k.kind == "continue" else set())
            assert members <= outer, (k.kind, k.header, k.parent.header)
    for label in c.reachable:
        inner = c.innermost(label)
        assert inner is None or c.holds(inner, label)
    p = draw.picture(m, fn)
    drawn: list[str] = list(p.loose)
    stack = list(p.clusters)
    while stack:
        k = stack.pop()
        drawn += k.nodes
        stack += k.children
    assert sorted(drawn) == sorted(n.id for n in p.nodes)  # each block drawn once


def test_generated_structured_functions_nest_as_their_blocks(tmp_path):
    rng = random.Random(SEED)
    kept = 0
    for _ in range(40):
        text = _function(rng, rng.randint(1, 5))
        if _valid(text, tmp_path):
            kept += 1
            _check_nesting(text)
    assert kept >= 10, kept  # spirv-val accepts most: breaks it rejects are the few dropped


def test_deep_nesting_keeps_its_shape():
    """5,000 nested selections (the scale input of issue 31): each selection the child of the one
    around it, each block in the innermost construct holding it."""
    depth = 5000
    body = [
        f"%b{i} = OpLabel\nOpSelectionMerge %m{i} None\nOpBranchConditional %t %b{i + 1} %m{i}" for i in range(depth)
    ]
    body.append(f"%b{depth} = OpLabel\nOpBranch %m{depth - 1}")
    body += [f"%m{i} = OpLabel\n" + (f"OpBranch %m{i - 1}" if i else "OpReturn") for i in reversed(range(depth))]
    m = analyze(Document(HEAD.format(names="") + "\n".join(body) + "\nOpFunctionEnd\n")).module
    c = cfg_of(m, m.function_of["%main"])
    by_header = {k.header: k for k in c.constructs}
    assert all(by_header[f"%b{i}"].parent is by_header[f"%b{i - 1}"] for i in range(1, depth))
    assert c.innermost(f"%m{depth - 1}") is by_header[f"%b{depth - 2}"] and c.innermost("%m0") is None
    p = draw.picture(m, m.function_of["%main"])
    assert len(p.clusters) == 1 and draw.to_dot([p]).count("subgraph") == depth


SWITCH_BREAK = DATA / "switch-break.spvasm"


def test_a_case_that_breaks_to_the_loop_merge_nests_inside_the_loop():
    """The whole picture: the switch's selection inside the loop, the loop's merge block outside
    every construct (the case's dominance would hold it), names with quotes and entities as written."""
    m = analyze(Document(SWITCH_BREAK.read_text())).module
    got = draw.to_dot(draw.pictures(m, [], None))
    expected = SWITCH_BREAK.with_suffix(".dot")
    if os.environ.get("SPVLS_UPDATE_EXPECTED") and not os.environ.get("CI"):
        expected.write_text(got)
    assert got == expected.read_text()


def _random_name(rng: random.Random) -> str:
    pieces = ['"', "\\", "&lt;", "&amp;", "&#60;", "<b>", "</b>", "{", "}", "|", "a", "é", "`", "*", "[x](y)", " ", "%"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))


def _escaped(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz")
def test_generated_names_are_drawn_as_written():
    rng = random.Random(SEED)
    names = [_random_name(rng) for _ in range(12)]
    labels = [f"%n{i}" for i in range(len(names))]
    text = HEAD.format(names="".join(f"OpName {lab} {_escaped(v)}\n" for lab, v in zip(labels, names, strict=True)))
    text += "%entry = OpLabel\nOpBranch %n0\n"
    text += "".join(
        f"{lab} = OpLabel\nOpBranch {labels[i + 1] if i + 1 < len(labels) else '%end'}\n"
        for i, lab in enumerate(labels)
    )
    text += "%end = OpLabel\nOpReturn\nOpFunctionEnd\n"
    m = analyze(Document(text)).module
    assert [m.names[lab] for lab in labels] == names  # hover and the outline read these
    svg = draw.render_svg(draw.to_dot(draw.pictures(m, [], None)))
    import html

    # SVG text shows a run of spaces as one: compared so on both sides.
    shown = [" ".join(html.unescape(t).split()) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    for lab, value in zip(labels, names, strict=True):
        assert " ".join(f"{value} ({lab})".split()) in shown, (value, shown)


def test_generated_unstructured_graphs_draw_each_block_once():
    """Random graphs, merges declared anywhere (a loop nested in its own continue construct made
    the parents a cycle, and its blocks vanished from the picture): each block drawn once, each
    name as written."""
    from tests.fuzz import surfaces

    rng = random.Random(SEED)
    findings = [f for _ in range(300) for f in surfaces.cfg(rng)]
    assert findings == []
