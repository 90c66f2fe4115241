"""The CFG model (SPIR-V 2.11 constructs by dominance) and its picture, asserted structurally."""
import re
import subprocess
from pathlib import Path

import pytest
from helpers import tool
from shaders import build

from spvls.checks import analyze
from spvls.checks.diagnostic import ERROR, WARNING
from spvls.features import cfg_dot as draw
from spvls.model.cfg import (
    block_holding,
    cfg_of,
    continue_target,
    function_holding,
    merge_block,
    merge_targets,
    targets,
)
from spvls.model.sourcemap import debug_op
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]
NESTED = ROOT / "tests" / "data" / "cfg" / "nested.spvasm"
RULES = sorted((ROOT / "tests" / "data" / "rules").glob("*.spvasm"))
FUZZ = ROOT / "tests" / "data" / "corpus" / "spirv-cross/shaders-no-opt/asm/comp/fuzz-loop-variable-dominator-with-unreachable-continue-block.asm.comp"


def load(path: Path, env: str | None = None):
    a = analyze(Document(path.read_text(), uri=str(path)), env)
    return a.module, a.diagnostics


def constructs(c) -> dict:
    return {(k.kind, k.header): (sorted(c.members(k)), k.parent and (k.parent.kind, k.parent.header))
            for k in c.constructs}


def test_nested_module_is_valid_spirv(tmp_path):
    spv = tmp_path / "n.spv"
    subprocess.run([tool("spirv-as"), "--target-env", "spv1.5", str(NESTED), "-o", str(spv)], check=True)
    subprocess.run([tool("spirv-val"), "--target-env", "spv1.5", str(spv)], check=True)


def test_constructs_by_dominance():
    m, _ = load(NESTED)
    c = cfg_of(m, m.function_of["%main"])
    assert constructs(c) == {
        ("loop", "%outer"): (["%body", "%c1", "%c3", "%icont", "%imerge", "%inner", "%outer", "%smerge"], None),
        ("continue", "%ocont"): (["%ocont"], ("loop", "%outer")),
        ("loop", "%inner"): (["%body", "%c1", "%c3", "%inner", "%smerge"], ("loop", "%outer")),
        ("continue", "%icont"): (["%icont"], ("loop", "%inner")),
        ("selection", "%body"): (["%body", "%c1", "%c3"], ("loop", "%inner")),
        ("case", "%c1"): (["%c1"], ("selection", "%body")),
        ("case", "%c3"): (["%c3"], ("selection", "%body")),
    }
    assert c.reachable == set(c.blocks) - {"%dead"}
    assert c.dominates("%outer", "%done") and not c.dominates("%imerge", "%outer")
    assert c.idom["%smerge"] == "%body" and "%dead" not in c.idom
    assert c.innermost("%c1").kind == "case" and c.innermost("%entry") is None
    assert [(e.source, e.target) for e in c.edges if e.back] == [("%icont", "%inner"), ("%ocont", "%outer")]


def test_cfg_is_kept_until_the_model_is_rebuilt():
    m, _ = load(NESTED)
    fn = m.function_of["%main"]
    assert cfg_of(m, fn) is cfg_of(m, fn)


def kinds(p: draw.Picture) -> list[tuple[str, str, str, str, bool]]:
    block = {n.id: n.block for n in p.nodes}
    return [(block[a.source], block[a.target], a.kind, a.label, a.back) for a in p.arrows]


def tree(clusters) -> list:
    return [(c.kind, c.header, len(c.nodes), tree(c.children)) for c in clusters]


def test_picture_of_nested_loops_and_switch():
    m, diags = load(NESTED)
    p = draw.pictures(m, diags, None)[0]  # the entry point's function, not the first one
    assert p.id == "%main"
    assert [n.block for n in p.nodes] == ["%entry", "%outer", "%inner", "%body", "%c1", "%c3", "%smerge",
                                          "%icont", "%imerge", "%ocont", "%done", "%dead"]
    assert p.node("%outer").name == 'outer "loop" {\\}'
    assert p.node("%body").body == ["OpSelectionMerge %smerge None", "OpSwitch %int_0 %smerge 1 %c1 2 %c1 3 %c3"]
    assert kinds(p) == [
        ("%entry", "%outer", "branch", "", False), ("%outer", "%inner", "branch", "", False),
        ("%inner", "%body", "true", "T", False), ("%inner", "%imerge", "false", "F", False),
        ("%body", "%smerge", "default", "default", False),
        ("%body", "%c1", "case", "1", False), ("%body", "%c1", "case", "2", False),  # one edge per literal
        ("%body", "%c3", "case", "3", False),
        ("%c1", "%smerge", "branch", "", False), ("%c3", "%smerge", "branch", "", False),
        ("%smerge", "%icont", "branch", "", False), ("%icont", "%inner", "branch", "", True),
        ("%imerge", "%ocont", "branch", "", False),
        ("%ocont", "%outer", "true", "T", True), ("%ocont", "%done", "false", "F", False),
        ("%outer", "%done", "merge", "merge", False), ("%outer", "%ocont", "continue", "continue", False),
        ("%inner", "%imerge", "merge", "merge", False), ("%inner", "%icont", "continue", "continue", False),
        ("%body", "%smerge", "merge", "merge", False)]
    assert tree(p.clusters) == [
        ("loop", "%outer", 2, [("continue", "%ocont", 1, []),
                               ("loop", "%inner", 2, [("continue", "%icont", 1, []),
                                                      ("selection", "%body", 1, [("case", "%c1", 1, []),
                                                                                 ("case", "%c3", 1, [])])])])]
    loose = {n.id: n.block for n in p.nodes}
    assert sorted(loose[i] for i in p.loose) == ["%dead", "%done", "%entry"]
    assert [n.block for n in p.nodes if not n.reachable] == ["%dead"]
    assert not any(n.marks for n in p.nodes) and not any(a.marks for a in p.arrows)


def test_function_choice():
    m, diags = load(NESTED)
    for name in ("%helper", "helper"):
        assert draw.pictures(m, diags, name)[0].id == "%helper"
    assert draw.pictures(m, diags, "main")[0].id == "%main"  # by OpName / entry-point name
    assert [p.id for p in draw.pictures(m, diags, "all")] == ["%helper", "%main"]
    with pytest.raises(LookupError, match="functions: %helper, %main"):
        draw.pictures(m, diags, "%nope")


def test_conditional_branch_to_one_label_twice_and_red_marks():
    m, diags = load(ROOT / "tests/data/rules/reconvergence-fail.spvasm", "spv1.3")
    p = draw.pictures(m, diags, "%helper")[0]
    assert [(a.kind, a.label) for a in p.arrows if p.node("%hm").id == a.source and a.kind != "merge"] == \
        [("true", "T"), ("false", "F")]
    marked = {(n.block, d.code) for n in p.nodes for d in n.marks}
    assert marked == {("%join", "reconvergence.multiple-predecessors")}
    block = {n.id: n.block for n in p.nodes}
    assert [(block[a.source], a.kind, [d.code for d in a.marks]) for a in p.arrows if a.marks] == \
        [("%hm", "false", ["reconvergence.same-labels"])]
    dot = draw.to_dot([p])
    join = next(line for line in dot.splitlines() if line.strip().startswith(p.node("%join").id + " "))
    assert "color=red" in join and "reconvergence.multiple-predecessors" in join
    false = next(line for line in dot.splitlines() if 'class="edge false error"' in line)
    assert "color=red" in false and "reconvergence.same-labels" in false


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_every_error_and_warning_in_a_block_is_drawn(path):
    """Rule files: whatever an error (red) or warning (orange) points at inside a block carries its code."""
    text = path.read_text()
    env = text.split("; target-env: ", 1)[1].split()[0]
    m, diags = load(path, env)
    pics = draw.pictures(m, diags, "all") if m.functions else []
    shown = {(d, n.id) for p in pics for n in p.nodes for d in n.marks} | \
            {(d, a.source) for p in pics for a in p.arrows for d in a.marks}
    for d in diags:
        fn = m.function_at(d.line)
        inside = fn is not None and any(b.line <= d.line and (b.terminator is None or d.line <= b.terminator.line)
                                        for b in fn.blocks)
        if d.severity in (ERROR, WARNING) and inside:
            assert any(s is d for s, _ in shown), f"{d.code} at line {d.line + 1} is not drawn"
    dot = draw.to_dot(pics) if pics else ""
    for p in pics:
        for n in p.nodes:
            sev = draw._severity(n.marks)
            if sev:
                line = next(x for x in dot.splitlines() if x.strip().startswith(n.id + " "))
                assert f"color={draw.COLOURS[sev]}" in line
                assert all(d.code in line for d in n.marks)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.spvasm")), ids=lambda p: p.stem)
def test_examples(path):
    m, diags = load(path)
    p = draw.pictures(m, diags, None)[0]
    assert p.id == "%main"
    assert [n.block for n in p.nodes] == [b.label for b in m.function_of["%main"].blocks]
    if path.stem == "mistakes":  # OpBranchConditional %cond %done %done in SPIR-V 1.6: two edges, F red
        assert [(a.kind, bool(a.marks)) for a in p.arrows] == [("true", False), ("false", True), ("merge", False)]
        assert tree(p.clusters) == [("selection", "%entry", 1, [])]
    else:
        assert p.arrows == [] and p.clusters == []


def test_debug_lines_and_scopes_are_left_out_of_block_bodies(tmp_path):
    """glslang -g writes OpLine, -gV the DebugInfo set's DebugScope, DebugLine, DebugDeclare, ...:
    each says where, not what, so both builds of one shader draw the same bodies."""
    def bodies(variant):
        m, diags = load(build(tmp_path, "sum.comp", variant))
        return {p.id: [[re.search(r"Op\w+|… \d+ more", x).group() for x in n.body] for n in p.nodes]
                for p in draw.pictures(m, diags, "all")}, m

    plain, _ = bodies("g")
    debug, m = bodies("gV")
    assert plain == debug
    assert debug["%weight_u1_"] == [["OpLoad", "OpUMod", "OpConvertUToF", "OpFMul", "OpReturnValue"]]
    assert debug["%main"][0] == ["OpVariable"] * 5 + ["OpAccessChain", "… 4 more", "OpBranch"]
    hidden = {debug_op(m, i) for f in m.functions for i in m.insts_in(f)}  # what there was to leave out
    assert {"DebugScope", "DebugLine", "DebugDeclare", "DebugFunctionDefinition"} <= hidden


def test_corpus_module_with_nested_loops_and_a_switch():
    m, diags = load(FUZZ)
    assert not [d for d in diags if d.severity == ERROR]  # spirv-val accepts it (MANIFEST)
    c = cfg_of(m, m.function_of["%1"])
    got = constructs(c)
    assert got[("loop", "%135")][1] == ("loop", "%128") and got[("loop", "%140")][1] == ("loop", "%128")
    assert got[("continue", "%142")] == (["%142"], ("loop", "%140"))
    assert got[("case", "%249")] == (["%249"], ("selection", "%134"))
    assert sorted(b for b in c.blocks if b not in c.reachable) == ["%137", "%187"]
    p = draw.picture(m, m.function_of["%1"], diags)
    block = {n.id: n.block for n in p.nodes}
    # Loops %135 and %185 are continued from unreachable blocks: no back edge reaches them.
    assert len(p.nodes) == 26 and sorted((block[a.source], block[a.target]) for a in p.arrows if a.back) == \
        [("%131", "%128"), ("%142", "%140"), ("%193", "%190")]
    assert sorted((block[a.source], a.label, block[a.target]) for a in p.arrows if a.kind in ("case", "default")) == [
        ("%134", "1", "%250"), ("%134", "default", "%249"), ("%172", "default", "%185"),
        ("%198", "1", "%206"), ("%198", "default", "%207"), ("%69", "default", "%128")]
    assert {p.node("%137").reachable, p.node("%187").reachable} == {False}


def test_dot_escaping():
    assert draw.quote('a "b" {c} \\d é\nx') == '"a \\"b\\" {c} \\\\d é\\nx"'


BROKEN = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%empty = OpFunction %void None %fn
OpFunctionEnd
%main = OpFunction %void None %fn
%a = OpLabel
OpSelectionMerge %nowhere None
OpBranchConditional %true %b %gone
%b = OpLabel
OpLoopMerge %b %b None
OpBranch %a
%a = OpLabel
OpBranch %b
%open = OpLabel
OpNop
OpFunctionEnd
"""


def test_broken_control_flow_is_drawn_not_crashed_on():
    """Undefined targets, a label defined twice, a block without terminator, a function without blocks."""
    m, diags = load_text(BROKEN)
    assert draw.pictures(m, diags, "%empty")[0].nodes == []
    p = draw.pictures(m, diags, None)[0]
    missing = sorted(n.block for n in p.nodes if n.missing)
    assert missing == ["%gone", "%nowhere"]
    block = {n.id: n.block for n in p.nodes}
    assert ("%a", "%b") in {(block[a.source], block[a.target]) for a in p.arrows if a.kind == "branch"}  # the 2nd %a
    assert {d.code for a in p.arrows for d in a.marks} >= {"id.undefined"}
    assert p.node("%open").reachable is False
    assert "digraph cfg {" in draw.to_dot([p])


def load_text(text: str):
    a = analyze(Document(text))
    return a.module, a.diagnostics


def test_merges_and_where_a_line_is():
    m, _ = load(NESTED)
    fn = m.function_of["%main"]
    c = cfg_of(m, fn)
    assert c.declared_merges == {"%done", "%ocont", "%imerge", "%icont", "%smerge"}
    assert c.structurally_reachable == set(c.blocks) - {"%dead"}
    assert [(o.grammar_operand.name, o.token.text) for o in merge_targets(c.blocks["%outer"])] == [
        ("Merge Block", "%done"), ("Continue Target", "%ocont")]
    assert (merge_block(c.blocks["%body"]), continue_target(c.blocks["%body"])) == ("%smerge", None)
    assert [(e.target, e.kind) for e in targets(c.blocks["%body"])] == [
        (e.target, e.kind) for e in c.edges if e.source == "%body"]
    line = c.blocks["%c3"].line + 1
    assert function_holding(m, line) is fn and block_holding(fn, line).label == "%c3"
    assert function_holding(m, 0) is None


IRREDUCIBLE = """OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%bool = OpTypeBool
%fn = OpTypeFunction %void
%c = OpConstantTrue %bool
%f = OpFunction %void None %fn
%entry = OpLabel
OpBranchConditional %c %x %b
%x = OpLabel
OpBranch %a
%a = OpLabel
OpBranch %b
%b = OpLabel
OpBranchConditional %c %a %out
%out = OpLabel
OpReturn
OpFunctionEnd
"""


def reached_without(c, without: str) -> set[str]:
    """The blocks a path from the entry reaches without passing through `without`."""
    seen, todo = ({c.entry}, [c.entry]) if c.entry != without else (set(), [])
    while todo:
        for t in c.succ[todo.pop()]:
            if t not in seen and t != without:
                seen.add(t)
                todo.append(t)
    return seen


@pytest.mark.parametrize("text", [IRREDUCIBLE, NESTED.read_text()])
def test_dominators_agree_with_their_definition(text):
    """Each block's dominators are those whose removal cuts it off from the entry: also in a loop
    entered at two blocks (%a and %b, an irreducible graph), where a first round over the edges
    without the back edge %b -> %a makes %x dominate %a and a second round corrects it."""
    m, _ = load_text(text)
    for fn in m.functions:
        c = cfg_of(m, fn)
        for d in c.reachable:
            cut = set(c.reachable) - reached_without(c, d)
            assert {b for b in c.reachable if c.dominates(d, b)} == cut, (fn.id, d)
    if text is IRREDUCIBLE:
        assert cfg_of(m, m.functions[0]).idom == {"%entry": "%entry", "%x": "%entry", "%a": "%entry", "%b": "%entry",
                                                  "%out": "%b"}
