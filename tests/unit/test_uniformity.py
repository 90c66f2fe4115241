"""The uniformity analysis (model/uniformity.py) and its rules, on real compiler output: WGSL that
Tint's uniformity analysis accepted gets no warning; spirv-lint's derivative warnings land where ours do;
an in-place edit re-checks the callers of a function whose summary changed."""

import re
import subprocess
from pathlib import Path

import pytest
from helpers import FULL_DATA, tool

from spvls.checks import analyze
from spvls.model import uniformity as uni
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "tests" / "data" / "rules"
CODES = ("uniformity.", "coopmat.non-uniform")


def uniformity_warnings(text: str, env: str = "vulkan1.1") -> list:
    a = analyze(Document(text), env)
    return [d for d in a.diagnostics if d.code.startswith(CODES)]


def test_tint_output_gets_no_uniformity_warning(data_root):
    paths = sorted((data_root / "uniformity" / "tint").glob("*.spvasm"))
    assert len(paths) > (100 if FULL_DATA else 10)
    warned = {p.name: [d.message for d in uniformity_warnings(p.read_text())] for p in paths}
    assert {k: v for k, v in warned.items() if v} == {}


def _lint_blocks(spv: Path) -> set[str]:
    """The blocks spirv-lint says hold a derivative in divergent control flow."""
    r = subprocess.run([tool("spirv-lint"), str(spv)], capture_output=True, text=True)
    return set(re.findall(r"derivative with divergent control flow located in block (%\d+)", r.stdout + r.stderr))


@pytest.mark.parametrize("stem", ["uniformity-derivative-fail", "uniformity-derivative-pass"])
def test_derivative_warnings_agree_with_spirv_lint(tmp_path, stem):
    """spirv-lint names a block at "line 0"; spvls puts its warning on the derivative in that block."""
    spv = tmp_path / f"{stem}.spv"
    subprocess.run(
        ["glslangValidator", "-V", "--target-env", "vulkan1.1", str(RULES / f"{stem}.frag"), "-o", str(spv)],
        check=True,
        capture_output=True,
    )
    text = subprocess.run([tool("spirv-dis"), "--raw-id", str(spv)], check=True, capture_output=True, text=True).stdout
    a = analyze(Document(text), "vulkan1.1")
    m = a.module
    ours = {}
    for d in a.diagnostics:
        if d.code == "uniformity.derivative":
            fn = m.function_at(d.line)
            label = [b.label for b in fn.blocks if b.line <= d.line][-1]
            ours[label] = m.inst_at[d.line].opname
    theirs = _lint_blocks(spv)
    assert theirs <= set(ours)
    if stem.endswith("fail"):
        assert sorted(ours.values()) == [
            "OpDPdx",
            "OpImageSampleImplicitLod",
            "OpImageSampleImplicitLod",
            "OpImageSampleImplicitLod",
        ]
        # The one spirv-lint does not see: after a call of a function that discards some fragments.
        [extra] = set(ours) - theirs
        block = next(b for f in a.module.functions for b in f.blocks if b.label == extra)
        assert any(i.opname == "OpFunctionCall" for i in block.insts)


def test_builtin_and_subgroup_tables_name_the_grammars_own():
    m = analyze(Document((RULES / "uniformity-pass.spvasm").read_text()), "vulkan1.1").module
    builtins = m.grammar.kinds["BuiltIn"].enumerants
    assert set(uni.BUILTINS) <= set(builtins)
    scopes = m.grammar.kinds["Scope"].enumerants
    assert set(uni.SCOPE_LEVEL) == {e.name for e in scopes.values()}
    for op in uni.BROADCASTS | uni.DIVERGING:
        assert m.grammar.instruction(op) is not None, op


CALLER = """               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %lid
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %lid BuiltIn LocalInvocationIndex
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %fn_u32 = OpTypeFunction %void %uint
      %ptr_u = OpTypePointer Input %uint
        %lid = OpVariable %ptr_u Input
     %uint_2 = OpConstant %uint 2
     %uint_8 = OpConstant %uint 8
   %uint_264 = OpConstant %uint 264
       %sync = OpFunction %void None %fn_u32
          %n = OpFunctionParameter %uint
         %s0 = OpLabel
          %c = OpUGreaterThan %bool %uint_8 %uint_2
               OpSelectionMerge %s2 None
               OpBranchConditional %c %s1 %s2
         %s1 = OpLabel
               OpControlBarrier %uint_2 %uint_2 %uint_264
               OpBranch %s2
         %s2 = OpLabel
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fn
         %m0 = OpLabel
          %i = OpLoad %uint %lid
         %r1 = OpFunctionCall %void %sync %i
               OpReturn
               OpFunctionEnd
"""


def test_an_edit_that_changes_a_summary_rechecks_the_callers():
    """Making %sync's branch depend on its parameter moves a warning onto the call in %main, a
    function the edit did not touch; the in-place analysis says what a fresh one does."""
    doc = Document(CALLER)
    a = analyze(doc, "vulkan1.1")
    assert [d.code for d in a.diagnostics if d.code.startswith("uniformity")] == []
    n = CALLER.split("\n").index("          %c = OpUGreaterThan %bool %uint_8 %uint_2")
    doc.replace((n, 0), (n, len(doc.texts[n])), "          %c = OpUGreaterThan %bool %n %uint_2")
    b = analyze(doc, "vulkan1.1", a)
    assert b.rechecked is not None and b.rechecked.id == "%sync"
    got = [(d.line, d.code) for d in b.diagnostics if d.code.startswith("uniformity")]
    fresh = [(d.line, d.code) for d in uniformity_warnings(doc.text)]
    assert (
        got == fresh == [(CALLER.split("\n").index("         %r1 = OpFunctionCall %void %sync %i"), "uniformity.call")]
    )


@pytest.mark.parametrize("where", ["main", "callee"])
def test_an_edit_adding_the_first_barrier_is_checked_in_place_as_afresh(where):
    """A module with nothing that needs uniform control flow, then a barrier typed in place: in the
    divergent branch of the rule module's first function, or in %sync, whose branch follows its
    parameter, so the warning lands on the call in %main, a function the edit did not touch."""
    if where == "main":
        text = (RULES / "uniformity-barrier-fail.spvasm").read_text()
    else:
        text = CALLER.replace("%c = OpUGreaterThan %bool %uint_8 %uint_2", "%c = OpUGreaterThan %bool %n %uint_2")
    lines = text.split("\n")
    n = next(k for k, t in enumerate(lines) if "OpControlBarrier" in t)
    barrier = lines[n]
    for k, t in enumerate(lines):
        if "OpControlBarrier" in t:
            lines[k] = "               OpNop"
    doc = Document("\n".join(lines))
    a = analyze(doc, "vulkan1.1")
    assert uniformity_warnings(doc.text) == []
    doc.replace((n, 0), (n, len(doc.texts[n])), barrier)
    b = analyze(doc, "vulkan1.1", a)
    assert b.module is a.module  # taken in place
    fresh = analyze(Document(doc.text), "vulkan1.1")
    assert b.diagnostics == fresh.diagnostics
    assert [d.code for d in b.diagnostics if d.code.startswith(CODES)] == [
        "uniformity.barrier" if where == "main" else "uniformity.call"
    ]


def test_cfg_view_shades_divergent_blocks_whole_answer():
    """The CFG of the barrier rule module: the four divergent regions shaded, each diverging branch
    and the merge where its invocations meet again labelled (SPVLS_UPDATE_EXPECTED=1 rewrites it)."""
    import os

    from spvls.features import cfg_dot as draw

    path = RULES / "uniformity-barrier-fail.spvasm"
    a = analyze(Document(path.read_text(), uri=str(path)), "vulkan1.1")
    dot = draw.to_dot(draw.pictures(a.module, a.diagnostics, None))
    expected = ROOT / "tests" / "data" / "cfg" / "uniformity-barrier-fail.expected.dot"
    if os.environ.get("SPVLS_UPDATE_EXPECTED"):
        expected.write_text(dot)
    assert dot == expected.read_text()


def test_derivative_warnings_agree_with_spirv_lint_over_the_corpus(data_root, tmp_path):
    """Every corpus module that takes a derivative and assembles: spvls warns in exactly the blocks
    spirv-lint names (read back from its binary with raw ids, so the labels are spirv-lint's)."""
    import csv

    corpus = data_root / "corpus"
    rows = list(csv.DictReader((corpus / "MANIFEST.tsv").open(), delimiter="\t"))
    checked, disagree = 0, {}
    for row in rows:
        path = corpus / row["path"]
        text = path.read_text(errors="replace")
        if row["assembles"] != "yes" or not re.search(r"ImplicitLod|OpDPd|OpFwidth", text):
            continue
        spv = tmp_path / "m.spv"
        env = row["env"] or "spv1.0"
        if subprocess.run([tool("spirv-as"), "--target-env", env, str(path), "-o", str(spv)]).returncode:
            continue
        raw = subprocess.run([tool("spirv-dis"), "--raw-id", str(spv)], capture_output=True, text=True).stdout
        a = analyze(Document(raw), env)
        ours = set()
        for d in a.diagnostics:
            if d.code == "uniformity.derivative":
                fn = a.module.function_at(d.line)
                ours.add([b.label for b in fn.blocks if b.line <= d.line][-1])
        theirs = _lint_blocks(spv)
        checked += 1
        if ours != theirs:
            disagree[row["path"]] = (sorted(ours), sorted(theirs))
    assert checked > (20 if FULL_DATA else 5)
    assert disagree == {}


def _facts(m) -> dict:
    """Each function's facts, its summary's needs by kind, level and line."""
    out = {}
    for k, u in uni.of_module(m).items():
        s = u.summary
        needs = [(n.kind, n.level, n.inst.line, n.deps, n.via) for n in s.needs]
        out[k] = (u.values, u.blocks, u.contents, s.returns, s.kills, s.writes, needs)
    return out


COOPMAT = sorted(
    p
    for d in ("rules", "cases")
    for p in (Path(__file__).parents[1] / "data" / d).glob("*.spvasm")
    if "OpTypeCooperativeMatrixKHR" in p.read_text()
)


@pytest.mark.parametrize("path", COOPMAT, ids=lambda p: p.stem)
def test_a_first_checks_matrix_scan_of_some_lines_finds_what_a_scan_of_all_finds(path, monkeypatch):
    # A fresh model's analysis looks for cooperative-matrix levels only on the lines naming a matrix
    # type or a value one defines (uniformity._matrix_lines); None makes it look everywhere.
    fresh = _facts(analyze(Document(path.read_text()), "vulkan1.3").module)
    monkeypatch.setattr(uni, "_matrix_lines", lambda m, matrices: None)
    assert _facts(analyze(Document(path.read_text()), "vulkan1.3").module) == fresh


def test_matrix_facts_after_edits_in_place_are_a_fresh_checks(rng):
    # After an edit in place the matrix scan reads every line (the lines a first check found may
    # have changed): seeded edits swap one id in a function's line for another the function names.
    for path in COOPMAT:
        doc = Document(path.read_text())
        a = analyze(doc, "vulkan1.3")
        for _ in range(20):
            fn = rng.choice(a.module.functions) if a.module.functions else None
            if fn is None:
                break
            ids = sorted({t for n in range(fn.line + 1, fn.end_line) for t in re.findall(r"%\w+", doc.texts[n])})
            n = rng.randrange(fn.line + 1, fn.end_line)
            found = [m for m in re.finditer(r"%\w+", doc.texts[n])][1:]  # not the result
            if not found or not ids:
                continue
            m = rng.choice(found)
            doc.replace((n, m.start()), (n, m.end()), rng.choice(ids))
            a = analyze(doc, "vulkan1.3", a)
            fresh = analyze(Document(doc.text), "vulkan1.3").module
            assert _facts(a.module) == _facts(fresh), (path.name, n, doc.texts[n])
