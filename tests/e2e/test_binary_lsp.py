"""Binary modules over a real stdio LSP session: `spvls.disassemble` and `spvls.assemble` round
trip the corpus to identical bytes, and refusals leave the file on disk untouched."""
import csv
from pathlib import Path

import pytest
from helpers import FULL_DATA
from lsprotocol import types as T
from pygls.exceptions import JsonRpcException

from spvls.binary import convert, words
from spvls.binding import spirv_tools

ROOT = Path(__file__).resolve().parents[2]
SUBGROUP = (ROOT / "examples" / "subgroup.spvasm").read_text()


def module(text: str, env: str = "spv1.6") -> bytes:
    w = spirv_tools.assemble(text, env, preserve_numeric_ids=True)
    assert not isinstance(w, spirv_tools.Failure), w
    return words.to_bytes(w)


async def command(client, name: str, **arg):
    return await client.workspace_execute_command_async(T.ExecuteCommandParams(command=name, arguments=[arg]))


async def test_the_corpus_round_trips_through_the_server_commands(client, data_root, tmp_path):
    """Through the server's commands: every third module of the full corpus and its 20 largest (every
    module of the subset in tests/data). Every module goes through the same conversion in process
    (tests/test_binary.py); this holds the commands, the messages and the file written, which depend
    on a module's size, not its contents."""
    root = data_root / "corpus"
    f = tmp_path / "m.spv"
    uri = f.as_uri()
    counts = {"modules": 0, "same": 0}
    differ = []
    rows = [r for r in csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(),
                                      delimiter="\t") if r["assembles"] == "yes"]
    largest = set(sorted(range(len(rows)), key=lambda k: -(root / rows[k]["path"]).stat().st_size)[:20])
    for k, r in enumerate(rows):
        if FULL_DATA and k % 3 and k not in largest:
            continue
        data = module((root / r["path"]).read_text(encoding="utf-8"), r["env"])
        f.write_bytes(data)
        counts["modules"] += 1
        text = (await command(client, "spvls.disassemble", uri=uri))["text"]
        answer = await command(client, "spvls.assemble", uri=uri, text=text)
        # Written either way; one spirv-val rejects (MANIFEST's `validates`) is said to be invalid.
        if r["validates"].startswith("yes"):
            assert answer == {"words": len(data) // 4}
        else:
            assert answer["words"] == len(data) // 4 and answer["message"].startswith("m.spv: saved, but spirv-val")
        counts["same"] += f.read_bytes() == data or differ.append(r["path"]) or 0
    print("LSP round trips:", counts)
    assert len(rows) >= (590 if FULL_DATA else 190) and counts["modules"] >= 190 and not differ, differ[:10]


async def test_an_edit_is_saved_with_the_binary_ids(client, tmp_path):
    f = tmp_path / "m.spv"
    data = module(SUBGROUP, "spv1.3")
    f.write_bytes(data)
    text = (await command(client, "spvls.disassemble", uri=f.as_uri()))["text"]
    assert text == convert.disassemble(data).text
    edited = text.replace("LocalSize 64 1 1", "LocalSize 32 1 1")
    assert await command(client, "spvls.assemble", uri=f.as_uri(), text=edited) == {"words": len(data) // 4}
    old, new = words.read(data).words, words.read(f.read_bytes()).words
    assert [i for i in range(len(old)) if old[i] != new[i]] == [list(old).index(64, 5)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.spv"]  # the temporary file was renamed


async def test_an_invalid_edit_is_refused_with_its_line_and_the_file_kept(client, tmp_path):
    f = tmp_path / "m.spv"
    data = module(SUBGROUP, "spv1.3")
    f.write_bytes(data)
    text = (await command(client, "spvls.disassemble", uri=f.as_uri()))["text"]
    line = next(i for i, s in enumerate(text.split("\n")) if "OpLoad" in s)
    with pytest.raises(JsonRpcException) as e:
        await command(client, "spvls.assemble", uri=f.as_uri(), text=text.replace("OpLoad", "OpLoda", 1))
    assert f"line {line + 1}: Invalid Opcode name 'OpLoda'" in e.value.message
    assert e.value.data["line"] == line and e.value.data["message"] == "Invalid Opcode name 'OpLoda'"
    assert f.read_bytes() == data and sorted(p.name for p in tmp_path.iterdir()) == ["m.spv"]
    # The server keeps serving.
    assert (await command(client, "spvls.disassemble", uri=f.as_uri()))["text"] == text


@pytest.mark.parametrize("damage,says", [
    (lambda b: b[:-6], "truncated"),
    (lambda b: b[:12] + (3).to_bytes(4, "little") + b[16:], "not below the header's id bound 3"),
])
async def test_a_broken_binary_is_refused_with_where(client, tmp_path, damage, says):
    f = tmp_path / "m.spv"
    f.write_bytes(damage(module(SUBGROUP, "spv1.3")))
    with pytest.raises(JsonRpcException) as e:
        await command(client, "spvls.disassemble", uri=f.as_uri())
    assert says in e.value.message and f"{f}: word {e.value.data['word']}: " in e.value.message


async def test_assemble_to_a_new_file_numbers_the_text_itself(client, tmp_path):
    f = tmp_path / "new.spv"
    answer = await command(client, "spvls.assemble", uri=f.as_uri(), text=SUBGROUP)
    assert f.read_bytes() == module(SUBGROUP, "spv1.3") and answer == {"words": len(f.read_bytes()) // 4}
    with pytest.raises(JsonRpcException) as e:
        await command(client, "spvls.assemble", uri="untitled:Untitled-1", text=SUBGROUP)
    assert "only file: URIs" in e.value.message
