"""From SPIR-V back to the shader source, on real glslangValidator output (-g: OpLine; -gV:
NonSemantic.Shader.DebugInfo.100; spirv-opt inlining: DebugInlinedAt). Expected lines are found in
the test shaders' own text."""
import json
import subprocess
from pathlib import Path

import pytest
from shaders import build, line_of, mistyped, source_text
from test_cli import run

from spvls.checks import analyze
from spvls.cli.check import check_file
from spvls.features import hover, source, sourcefiles, symbols
from spvls.model import sourcemap
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPVLS_CACHE_DIR", str(tmp_path / "cache"))


def module(path: Path, uri: str | None = None):
    return analyze(Document(path.read_text(), uri=uri or str(path))).module


def function(m, name: str):
    """A function by its source name (OpName `square(f1;`, or its DebugFunction)."""
    names = sourcemap.function_names(m)
    for f in m.functions:
        if names.get(f.id, m.name_of(f.id).split("(")[0]) == name:
            return f
    raise AssertionError(f"no function {name}")


def first(m, fn_name: str, opname: str):
    return next(i for i in m.insts_in(function(m, fn_name)) if i.opname == opname)


def col(inst) -> int:
    return inst.src.opcode.start


COMPUTE = [  # (function, opcode, file, text on the source line)
    ("main", "OpULessThan", "sum.comp", "for (uint i = 0u"),
    ("main", "OpFunctionCall", "sum.comp", "acc += square("),
    ("main", "OpReturn", "sum.comp", "values[id] = acc;"),
    ("square", "OpFMul", "sum.comp", "return x * x;"),
    ("weight", "OpUMod", "common.glsl", "return float(i % 7u)"),
]


@pytest.mark.parametrize("variant", ["g", "gV"])
def test_compute_locations_hover_and_definition(tmp_path, variant):
    m = module(build(tmp_path, "sum.comp", variant))
    for fn, op, file, needle in COMPUTE:
        inst = first(m, fn, op)
        loc = sourcemap.location(m, inst.line)
        want = line_of(file, needle)
        assert (Path(loc.file).name, loc.line, loc.column) == (file, want, 0), (fn, op)
        # Definition on the opcode: the file on disk next to the document, at that line.
        assert source.definition(m, inst.line, col(inst)) == ((tmp_path / file).resolve(), want - 1, 0)
        # Hover: file:line (no column: glslang writes 0), the source line itself, then the opcode's docs.
        md, _ = hover.hover(m, inst.line, col(inst))
        head = f"Source: `{loc.file}:{want}`" + (f" in `{fn}`" if variant == "gV" else "")
        assert md.startswith(f"{head}\n\n```glsl\n{source_text(file, want)}\n```\n\n---\n\n"), md
    # An OpLine written before a function, with a column.
    main = function(m, "main")
    loc = sourcemap.location(m, main.line)
    assert (loc.file, loc.line) == ("sum.comp", line_of("sum.comp", "void main()")) and loc.column > 0
    assert str(loc) == f"sum.comp:{loc.line}:{loc.column}"


def test_fragment_shader_with_a_line_directive(tmp_path):
    """`#line 100 "generated.glsl"` names a file that does not exist and is not embedded: no
    definition target, but hover still says where."""
    for variant in ("g", "gV"):
        m = module(build(tmp_path, "shade.frag", variant))
        call = first(m, "main", "OpFunctionCall")
        assert str(sourcemap.location(m, call.line)) == f"shade.frag:{line_of('shade.frag', 'c = tint(c)')}"
        mul = first(m, "tint", "OpFMul")
        assert sourcemap.location(m, mul.line).line == line_of("shade.frag", "return c * vec3")
        store = next(i for i in m.insts_in(function(m, "main"))
                     if i.opname == "OpStore" and i.src.text.split()[1] == "%color")
        assert str(sourcemap.location(m, store.line)) == "generated.glsl:100"
        assert source.definition(m, store.line, col(store)) is None
        md, _ = hover.hover(m, store.line, col(store))
        assert md.startswith("Source: `generated.glsl:100`")


def test_inlined_code_names_its_inlining_chain(tmp_path):
    m = module(build(tmp_path, "sum.comp", "inlined"))
    main = function(m, "main")
    body = m.insts_in(main)
    call_line = line_of("sum.comp", "acc += square(")
    square_mul = next(i for i in body if i.opname == "OpFMul"
                      and sourcemap.location(m, i.line).line == line_of("sum.comp", "return x * x;"))
    weight_mod = next(i for i in body if i.opname == "OpUMod")
    assert not any(i.opname == "OpFunctionCall" for i in body)  # spirv-opt inlined both calls
    for inst, fn, file, needle in ((square_mul, "square", "sum.comp", "return x * x;"),
                                   (weight_mod, "weight", "common.glsl", "return float(i % 7u)")):
        line_inst, scope = sourcemap.in_effect(m, inst.line)
        assert sourcemap.scope_function_name(m, scope) == fn
        assert sourcemap.inlining(m, scope) == [
            sourcemap.Inlining("main", sourcemap.SourceLoc("sum.comp", call_line, 0))]
        md, _ = hover.hover(m, inst.line, col(inst))
        loc = sourcemap.location_of(m, line_inst)
        assert needle in source_text(file, loc.line)
        assert md.startswith(f"Source: `{loc}` in `{fn}`\n\n```glsl\n{source_text(file, loc.line)}\n```\n\n"
                             f"inlined into `main` at `sum.comp:{call_line}`\n\n---\n\n"), md


def test_numeric_ids_take_debug_function_names(tmp_path):
    m = module(build(tmp_path, "sum.comp", "raw"))
    assert all(m.name_of(f.id)[1:].isdigit() for f in m.functions)
    names = [s.name for s in symbols.document_symbols(m) if s.kind == "function"]
    assert sorted(names) == ["main", "square", "weight"]


def test_source_hints_mark_each_run(tmp_path):
    m = module(build(tmp_path, "sum.comp", "g"))
    main = function(m, "main")
    hints = source.source_hints(m, main.line, main.end_line)

    def L(s: str) -> str:
        return f"sum.comp:{line_of('sum.comp', s)}"

    # A block's label has no location (OpLine ends with its block), so each block starts a run.
    assert [h[2] for h in hints] == [L("void main()"), L("uint id ="), L("float acc"), L("for (uint"),
                                     L("for (uint"), L("for (uint"), L("acc += square"), L("for (uint"),
                                     L("values[id] = acc")]
    for line, column, _ in hints:
        assert column == len(m.doc.texts[line].rstrip()) and m.inst_at[line].opname != "OpLine"
    # A range starting inside a run marks nothing until the next run.
    inner = hints[6][0]
    assert [h[0] for h in source.source_hints(m, inner + 1, main.end_line)] == [h[0] for h in hints[7:]]


def broken(path: Path) -> Path:
    """The module with one operand in square's multiply made undefined."""
    text = path.read_text()
    lines = text.split("\n")
    m = analyze(Document(text)).module
    mul = first(m, "square", "OpFMul")
    lines[mul.line] = lines[mul.line].rsplit(" ", 1)[0] + " %nowhere"
    out = path.with_name("broken-" + path.name)
    out.write_text("\n".join(lines))
    return out


@pytest.mark.parametrize("variant", ["g", "gV"])
def test_diagnostics_carry_the_source_location_and_check_prints_it(tmp_path, variant):
    path = broken(build(tmp_path, "sum.comp", variant))
    want = f"sum.comp:{line_of('sum.comp', 'return x * x;')}"
    (d,) = [d for d in check_file(path, None) if d.code == "id.undefined"]
    assert str(d.source) == want
    out = run("check", path)  # in this process (test_cli.run)
    lines = out.stdout.splitlines()
    k = next(i for i, x in enumerate(lines) if x.endswith("[id.undefined]"))
    assert lines[k + 1] == f"  --> {want}"
    out = run("check", "--format", "json", path)
    rec = next(r for r in json.loads(out.stdout) if r["code"] == "id.undefined")
    assert rec["source"] == {"file": "sum.comp", "line": int(want.split(":")[1]), "column": 0}


@pytest.mark.parametrize("variant", ["g", "gV"])
def test_spirv_val_diagnostics_carry_the_source_location_too(tmp_path, variant):
    path, n = mistyped(build(tmp_path, "sum.comp", variant))
    where = line_of("common.glsl", "return float(i % 7u)")
    out = run("check", path)
    # -g's module is SPIR-V 1.0: the env glslang targeted is stated in its OpSource text.
    stated = [line for line in out.stdout.splitlines() if line.endswith("[env.stated]")]
    assert len(stated) == (variant == "g")
    assert [line for line in out.stdout.splitlines() if line not in stated] == [
        f"{path}:{n + 1}:10: error: Expected input to be float scalar or vector: FConvert [spirv-val]",
        f"  --> ./common.glsl:{where}",
    ]
    assert (out.returncode, out.stderr) == (1, "checked 1 file: 1 error, 0 warnings\n")
    (rec,) = [r for r in json.loads(run("check", "--format", "json", path).stdout) if r["code"] != "env.stated"]
    assert (rec["code"], rec["source"]) == ("spirv-val", {"file": "./common.glsl", "line": where, "column": 0})


@pytest.mark.parametrize("variant", ["g", "gV"])
def test_sarif_carries_the_source_location_as_a_related_location(tmp_path, variant):
    path, n = mistyped(build(tmp_path, "sum.comp", variant))
    where = line_of("common.glsl", "return float(i % 7u)")
    log = json.loads(run("check", "--format", "sarif", path).stdout)
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] != "env.stated"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == n + 1
    assert result["relatedLocations"] == [{
        "id": 0, "message": {"text": f"compiled from ./common.glsl:{where}"},
        "physicalLocation": {"artifactLocation": {"uri": "./common.glsl"}, "region": {"startLine": where}}}]


@pytest.mark.parametrize("variant", ["g", "gVS"])
def test_missing_file_falls_back_to_the_embedded_text(tmp_path, variant):
    """-g embeds the source in OpSource, -gVS in DebugSource: with the files gone, definition opens a
    read-only copy of it."""
    path = build(tmp_path, "sum.comp", variant)
    elsewhere = tmp_path / "moved"
    elsewhere.mkdir()
    m = module(path, uri=(elsewhere / path.name).as_uri())
    inst = first(m, "square", "OpFMul")
    want = line_of("sum.comp", "return x * x;")
    target, line, column = source.definition(m, inst.line, col(inst))
    assert target.parent.parent == tmp_path / "cache" / "embedded" and target.name == "sum.comp"
    assert target.read_text().splitlines()[line] == source_text("sum.comp", want) and (line, column) == (want - 1, 0)
    assert target.read_text() == (tmp_path / "sum.comp").read_text()  # glslang's preamble is left out
    assert not target.stat().st_mode & 0o222  # read-only
    md, _ = hover.hover(m, inst.line, col(inst))
    fn = " in `square`" if variant == "gVS" else ""
    assert md.startswith(f"Source: `sum.comp:{want}`{fn}\n\n```glsl\n{source_text('sum.comp', want)}\n```")
    # The included file is embedded too.
    umod = first(m, "weight", "OpUMod")
    target, line, _ = source.definition(m, umod.line, col(umod))
    assert target.read_text().splitlines()[line] == source_text("common.glsl", line_of("common.glsl", "% 7u"))


def test_missing_file_without_embedded_text_has_no_target(tmp_path):
    path = build(tmp_path, "sum.comp", "gV")  # -gV embeds no text
    elsewhere = tmp_path / "moved"
    elsewhere.mkdir()
    m = module(path, uri=(elsewhere / path.name).as_uri())
    inst = first(m, "square", "OpFMul")
    assert source.definition(m, inst.line, col(inst)) is None
    md, _ = hover.hover(m, inst.line, col(inst))
    assert md.startswith(f"Source: `sum.comp:{line_of('sum.comp', 'return x * x;')}` in `square`\n\n---\n\n")


def test_a_workspace_folder_is_searched_after_the_documents_directory(tmp_path):
    """The document moved away from its sources: a workspace folder holding them (the session's
    state, passed in) gives hover its source line and definition its target; none, neither."""
    path = build(tmp_path, "sum.comp", "gV")  # -gV embeds no text
    elsewhere = tmp_path / "moved"
    elsewhere.mkdir()
    m = module(path, uri=(elsewhere / path.name).as_uri())
    inst = first(m, "square", "OpFMul")
    want = line_of("sum.comp", "return x * x;")
    assert source.definition(m, inst.line, col(inst), [elsewhere]) is None
    assert source.definition(m, inst.line, col(inst), [elsewhere, tmp_path]) == ((tmp_path / "sum.comp").resolve(),
                                                                                 want - 1, 0)
    md, _ = hover.hover(m, inst.line, col(inst), [tmp_path])
    assert md.startswith(f"Source: `sum.comp:{want}` in `square`\n\n```glsl\n{source_text('sum.comp', want)}\n```\n\n")


def test_the_server_keeps_the_workspace_folders_in_its_session(tmp_path):
    """initialize's workspace folders (else its root) become the session's Workspace.folders."""
    from lsprotocol import types as T

    from spvls.server.app import SpvServer
    from spvls.server.lifecycle import initialize

    ls = SpvServer()
    folders = [T.WorkspaceFolder((tmp_path / "a").as_uri(), "a"), T.WorkspaceFolder((tmp_path / "b").as_uri(), "b")]
    initialize(ls, T.InitializeParams(T.ClientCapabilities(), workspace_folders=folders, root_uri=tmp_path.as_uri()))
    assert ls.session.ws.folders == [tmp_path / "a", tmp_path / "b"]
    initialize(ls, T.InitializeParams(T.ClientCapabilities(), root_uri=tmp_path.as_uri()))
    assert ls.session.ws.folders == [tmp_path]


def test_edits_keep_locations_and_names_equal_to_a_fresh_analysis(tmp_path):
    """Typing inside a function (the model updates in place) leaves the same source locations on
    diagnostics, and the same outline, as analysing the text afresh."""
    path = build(tmp_path, "sum.comp", "raw")
    doc = Document(path.read_text())
    a = analyze(doc)
    m = a.module
    edits = []
    for f in m.functions:
        for inst in m.insts_in(f):
            text = inst.src.text
            if sourcemap.debug_op(m, inst) in ("DebugLine", "DebugScope", "DebugFunctionDefinition") or \
                    inst.opname in ("OpFMul", "OpLoad"):
                edits.append((inst.line, len(text)))
    assert len(edits) > 20
    for n, (line, end) in enumerate(edits):
        doc.replace((line, end), (line, end), " %typo" if n % 3 else "x")
        a = analyze(doc, previous=a)
        fresh = analyze(Document(doc.text))
        assert a.diagnostics == fresh.diagnostics
        assert symbols.document_symbols(a.module) == symbols.document_symbols(fresh.module)
        assert [sourcemap.location(a.module, i.line) for i in a.module.insts] == \
            [sourcemap.location(fresh.module, i.line) for i in fresh.module.insts]
    assert any(d.source is not None for d in a.diagnostics)


def test_corpus_files_with_opline(data_root, tmp_path):
    """Every corpus file carrying OpLine: locations, hover and definition on each instruction, nothing
    raises; an id made undefined on a located instruction gets the location in `spvls check`'s note."""
    files = sorted(p for p in (data_root / "corpus").rglob("*") if p.is_file() and "OpLine " in p.read_text(errors="replace"))
    assert len(files) >= 4
    located = targets = 0
    for path in files:
        check_file(path, None)
        m = module(path, uri=path.as_uri())
        for inst in m.insts:
            loc = sourcemap.location(m, inst.line)
            hov = hover.hover(m, inst.line, col(inst))
            found = source.definition(m, inst.line, col(inst))
            if loc is not None:
                located += 1
                assert hov is not None and hov[0].startswith(f"Source: `{loc}`")
                targets += found is not None
            else:
                assert found is None
        source.source_hints(m, 0, len(m.doc.lines))
        symbols.document_symbols(m)
        inst = next(i for f in m.functions for i in m.insts_in(f)
                    if sourcemap.location(m, i.line) and i.ids(skip_type=True) and i.opname != "OpLine")
        loc = sourcemap.location(m, inst.line)
        lines = m.doc.texts[:]
        tok = inst.ids(skip_type=True)[-1].token
        lines[inst.line] = lines[inst.line][:tok.start] + "%nowhere" + lines[inst.line][tok.end:]
        broken = tmp_path / path.name
        broken.write_text("\n".join(lines))
        out = run("check", broken).stdout.splitlines()
        k = next(i for i, x in enumerate(out) if x.startswith(f"{broken}:{inst.line + 1}:") and "[id.undefined]" in x)
        assert out[k + 1] == f"  --> {loc}"
    print(f"corpus files with OpLine: {len(files)}; located instructions: {located}; with a target: {targets}")
    assert located > 100 and targets > 100


def test_opencl_debuginfo_literals_inlining_and_embedded_text(tmp_path):
    """OpenCL.DebugInfo.100 (hand-written, accepted by spirv-val): literal line numbers, the
    DebugFunction 'Function' operand, and the DebugSource text as the definition target."""
    from helpers import tool

    path = ROOT / "tests" / "data" / "source" / "opencl-debuginfo.spvasm"
    subprocess.run([tool("spirv-as"), "--target-env", "spv1.3", str(path), "-o", str(tmp_path / "cl.spv")], check=True)
    subprocess.run([tool("spirv-val"), str(tmp_path / "cl.spv")], check=True)
    m = module(path)
    assert sourcemap.function_names(m) == {"%main": "main"}
    mul, add = first(m, "main", "OpFMul"), first(m, "main", "OpFAdd")
    line_inst, scope = sourcemap.in_effect(m, mul.line)
    assert str(sourcemap.location_of(m, line_inst)) == "kernel.hlsl:11:5"
    assert sourcemap.scope_function_name(m, scope) == "scale"
    assert sourcemap.inlining(m, scope) == [sourcemap.Inlining("main", sourcemap.SourceLoc("kernel.hlsl", 3, 0))]
    assert str(sourcemap.location(m, add.line)) == "kernel.hlsl:3:5"
    target, line, column = source.definition(m, add.line, col(add))
    assert target.name == "kernel.hlsl" and (line, column) == (2, 4)
    assert target.read_text().split("\n")[line] == "    float x = scale(2.0);"
    md, _ = hover.hover(m, add.line, col(add))
    assert md.startswith("Source: `kernel.hlsl:3:5` in `main`\n\n```hlsl\n    float x = scale(2.0);\n```\n\n---")


def test_broken_debug_info_never_raises(tmp_path):
    """Debug instructions with operands dropped, swapped or undefined (a scope its own parent, an
    inlining chain that loops, a string left open): every feature still answers."""
    import random

    text = build(tmp_path, "sum.comp", "inlined").read_text()
    lines = text.split("\n")
    debug = [n for n, x in enumerate(lines) if "OpLine" in x or "Debug" in x or "OpString" in x or "OpSource" in x]
    rng = random.Random(18)
    for _ in range(60):
        mangled = list(lines)
        for n in rng.sample(debug, 6):
            words = mangled[n].split(" ")
            i = rng.randrange(len(words))
            choice = rng.randrange(4)
            if choice == 0:
                del words[i]
            elif choice == 1:
                words[i] = rng.choice(["%17", "%224", "%18", "%nowhere", "%uint_0", "0", "-1", "99999999999"])
            elif choice == 2:
                words.append(rng.choice(["%224", "%17", '"open']))
            else:
                words[i], words[-1] = words[-1], words[i]
            mangled[n] = " ".join(words)
        m = analyze(Document("\n".join(mangled), uri=(tmp_path / "x.spvasm").as_uri())).module
        for inst in m.insts:
            if inst.src.opcode is not None:
                hover.hover(m, inst.line, col(inst))
                source.definition(m, inst.line, col(inst))
        source.source_hints(m, 0, len(m.doc.lines))
        symbols.document_symbols(m)


def test_continued_source_text_is_joined(tmp_path):
    """OpSourceContinued and DebugSourceContinued carry on the text of the instruction before them
    (the module assembles with spirv-as; its strings run over lines, as spirv-dis writes them)."""
    from helpers import tool

    text = """OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
%set = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%a = OpString "a.comp"
%b = OpString "b.glsl"
%b1 = OpString "float one;
"
%b2 = OpString "float two;
"
OpSource GLSL 450 %a "void main()
"
OpSourceContinued "{
"
OpSourceContinued "}
"
OpName %main "main"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%uint_2 = OpConstant %uint 2
%uint_0 = OpConstant %uint 0
%srcb = OpExtInst %void %set DebugSource %b %b1
%more = OpExtInst %void %set DebugSourceContinued %b2
%main = OpFunction %void None %fn
%entry = OpLabel
OpLine %a 2 1
%l = OpExtInst %void %set DebugLine %srcb %uint_2 %uint_2 %uint_0 %uint_0
OpReturn
OpFunctionEnd
"""
    path = tmp_path / "continued.spvasm"
    path.write_text(text)
    subprocess.run([tool("spirv-as"), str(path), "-o", str(tmp_path / "c.spv")], check=True)
    m = module(path)
    assert sourcemap.embedded_texts(m) == {"a.comp": "void main()\n{\n}\n", "b.glsl": "float one;\nfloat two;\n"}
    ret = first(m, "main", "OpReturn")
    assert str(sourcemap.location(m, ret.line)) == "b.glsl:2"
    target, line, _ = source.definition(m, ret.line, col(ret))
    assert target.read_text().split("\n")[line] == "float two;"


def test_an_edited_embedded_text_is_not_served_from_the_old_copy(tmp_path, monkeypatch):
    """Where a source file was found is cached for 2 s. The key was the id() of the module's
    embedded texts, which a new module's can reuse once the old one is dropped: then the edited
    text's locations named the old text's copy. One dict object for both modules stands for a
    reused id."""
    texts: dict[str, str] = {}
    monkeypatch.setattr(sourcefiles, "embedded_texts", lambda m: texts)
    uri = (tmp_path / "moved" / "x.spvasm").as_uri()
    for body in ("first", "second"):
        m = analyze(
            Document(f'OpCapability Shader\nOpMemoryModel Logical GLSL450\n%s = OpString "a.comp"\n'
                     f'OpSource GLSL 450 %s "{body}"\n', uri)
        ).module
        texts.clear()
        texts.update(sourcemap.embedded_texts(m))
        path, line, column = sourcefiles.target(m, sourcemap.SourceLoc("a.comp", 1, 1))
        assert (path.read_text(), line, column) == (body, 0, 0)
