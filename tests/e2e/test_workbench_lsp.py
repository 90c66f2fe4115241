"""The workbench over a real stdio LSP session: spvls.optimize and spvls.diff (against spirv-opt and
spirv-diff run in process here), the code lens on each entry point, and the refusals."""

from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException

from spvls.binary import compare, optimize
from spvls.binding import spirv_tools
from spvls.cli.modules import read_words

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "tests" / "data" / "reflect" / "texture-atomics.asm.frag.spvasm"
PHYSICAL = ROOT / "tests" / "data" / "workbench" / "physical.spvasm"


async def command(client, name: str, **arg):
    return await client.workspace_execute_command_async(T.ExecuteCommandParams(command=name, arguments=[arg]))


def _open(client, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        T.DidOpenTextDocumentParams(
            T.TextDocumentItem(uri=uri, language_id="spvasm", version=1, text=text or path.read_text())
        )
    )
    return uri


async def test_optimize_answers_spirv_opts_result_with_each_pass(client):
    uri = _open(client, MODULE)
    answer = await command(client, "spvls.optimize", uri=uri, passes=["-O"])
    words = read_words(str(MODULE))
    expected = optimize.optimize(words, ["-O"])
    assert answer["text"] == expected.text
    assert answer["source"] == spirv_tools.disassemble(words, "spv1.6", raw_ids=False, indent=True)
    assert (answer["before"], answer["after"]) == (expected.before, expected.after)
    assert answer["passes"] == [{"name": p.name, "before": p.before, "after": p.after} for p in expected.passes]


async def test_optimize_reads_the_open_text_not_the_file(client, tmp_path):
    """The editor's unsaved text is what is optimized."""
    path = tmp_path / "m.spvasm"
    path.write_text("this is not SPIR-V\n")
    uri = _open(client, path, MODULE.read_text())
    answer = await command(client, "spvls.optimize", uri=uri, passes="--eliminate-dead-code-aggressive", perPass=True)
    assert answer["passes"][0]["name"] == "eliminate-dead-code-aggressive"


async def test_a_failing_pass_is_named(client):
    uri = _open(client, PHYSICAL)
    with pytest.raises(JsonRpcException) as e:
        await command(client, "spvls.optimize", uri=uri, passes=["--graphics-robust-access"])
    assert "pass graphics-robust-access failed: " in str(e.value)
    assert "Addressing model must be Logical" in str(e.value)


async def test_diff_answers_both_sides_in_the_first_modules_ids(client, tmp_path):
    other = tmp_path / "other.spvasm"  # not open: read from disk
    text = MODULE.read_text().replace("OpConstant %uint 3", "OpConstant %uint 4", 1)
    assert text != MODULE.read_text()
    other.write_text(text)
    uri = _open(client, MODULE)
    answer = await command(client, "spvls.diff", uri=uri, other=other.as_uri())
    expected = compare.compare(read_words(str(MODULE)), read_words(str(other)), MODULE.name, other.name)
    assert answer == {
        "left": expected.left,
        "right": expected.right,
        "diff": expected.diff,
        "changed": expected.changed,
    }
    # The constant changed, and its use; spirv-diff leaves an OpUndef unmatched.
    assert [line for line in answer["diff"].splitlines() if line[:1] in "-+" and line[:3] not in ("---", "+++")] == [
        "-; Bound: 180",
        "+; Bound: 182",
        "-     %uint_3 = OpConstant %uint 3",
        "+   %uint_4_0 = OpConstant %uint 4",
        "-         %70 = OpUndef %v3float",
        "+        %181 = OpUndef %v3float",
        "-        %101 = OpVectorShuffle %v3float %70 %100 3 4 2",
        "+        %101 = OpVectorShuffle %v3float %181 %100 3 4 2",
        "-        %146 = OpIAdd %uint %103 %uint_3",
        "+        %146 = OpIAdd %uint %103 %uint_4_0",
    ]
    assert answer["changed"] == 10


async def test_code_lens_on_each_entry_point(client):
    uri = _open(client, MODULE)
    lenses = await client.text_document_code_lens_async(T.CodeLensParams(T.TextDocumentIdentifier(uri)))
    assert [(lens.range.start.line, lens.command.title) for lens in lenses] == [
        (11, "1 UBO, 1 SSBO, 1 storage image · 1 input, 1 output")
    ]
