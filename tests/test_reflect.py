"""`spvls reflect` against `spirv-cross --reflect` (Debian's spirv-cross, the oracle), field by
field: on the fixtures in tests/data/reflect (spirv-cross's answers stored beside them), and on
every module of the corpus that spirv-cross reads."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import FULL_DATA

from spvls.binding import tools
from spvls.cli import main
from spvls.cli.modules import numbered_module, read_words
from spvls.features.reflect import reflect

DATA = Path(__file__).resolve().parent / "data"

FIXTURES = sorted((DATA / "reflect").glob("*.spvasm"))

# Differences from spirv-cross 2021 that spvls makes on purpose: (field path pattern, why).
ALLOWED = [
    (
        re.compile(r"/acceleration_structures\[\d+\]/type"),
        "spirv-cross's --reflect skips the capability scan its GLSL output makes, so it names every "
        "acceleration structure accelerationStructureNV; spvls names it as that GLSL does: "
        "accelerationStructureEXT in a module declaring RayTracingKHR or RayQueryKHR",
    ),
    (
        re.compile(r"/entryPoints\[\d+\]/mode"),
        "spirv-cross 2021 predates the mesh and task execution models' names and prints '???'; "
        "spvls prints 'mesh' and 'task', as later spirv-cross does",
    ),
]


def differences(ours, theirs, path: str = "") -> list[str]:
    """Every field where the two answers differ, as `path: ours != theirs`."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(ours) | set(theirs)):
            if key not in theirs or key not in ours:
                out.append(f"{path}/{key}: {json.dumps(ours.get(key))} != {json.dumps(theirs.get(key))}")
            else:
                out += differences(ours[key], theirs[key], f"{path}/{key}")
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in differences(a, b, f"{path}[{i}]")]
    if ours != theirs or type(ours) is not type(theirs):
        return [f"{path}: {json.dumps(ours)} != {json.dumps(theirs)}"]
    return []


def unallowed(diffs: list[str]) -> list[str]:
    return [d for d in diffs if not any(p.match(d.split(":")[0]) for p, _ in ALLOWED)]


def spirv_cross() -> str:
    found = shutil.which("spirv-cross")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs spirv-cross (Debian's spirv-cross package)")
        pytest.skip("spirv-cross is not installed")
    return found


def cross_reflect(source: Path, env: str, tmp: Path) -> dict | str:
    """spirv-cross's reflection of a text module assembled by spirv-as (left beside it as
    NAME.spv); a string saying why not."""
    binary = tmp / (source.name + ".spv")
    made = tools.run("spirv-as", ["--preserve-numeric-ids", "--target-env", env, "-o", str(binary), str(source)])
    if made.returncode:
        return "spirv-as rejects it"
    proc = subprocess.run([spirv_cross(), str(binary), "--reflect"], capture_output=True, timeout=60, check=False)
    if proc.returncode:
        return "spirv-cross cannot read it: " + proc.stderr.decode("utf-8", "replace").strip()
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return "spirv-cross's JSON does not parse"


def ours(source: Path) -> dict:
    """spvls's reflection of a text or binary module."""
    return reflect(numbered_module(read_words(str(source))))


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_fixture_matches_spirv_cross(source):
    theirs = json.loads(source.with_suffix(".spirv-cross.json").read_text(encoding="utf-8"))
    assert unallowed(differences(ours(source), theirs)) == []


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_fixture_is_what_spirv_cross_says(source, tmp_path):
    """The stored answers are the live spirv-cross's (so the fixtures cannot drift from the oracle)."""
    spirv_cross()
    version = re.search(r"^; Version: (\d+\.\d+)", source.read_text(encoding="utf-8"), re.MULTILINE)
    theirs = cross_reflect(source, f"spv{version.group(1)}" if version else "spv1.6", tmp_path)
    assert theirs == json.loads(source.with_suffix(".spirv-cross.json").read_text(encoding="utf-8"))


def test_allowed_differences_occur(capsys):
    """Each allowed difference is one spvls makes (an allowance nothing needs is dropped)."""
    source = DATA / "reflect" / "ray-query-function-object.spv14.asm.vk.nocompat.comp.spvasm"
    theirs = json.loads(source.with_suffix(".spirv-cross.json").read_text(encoding="utf-8"))
    diffs = differences(ours(source), theirs)
    assert diffs == ['/acceleration_structures[0]/type: "accelerationStructureEXT" != "accelerationStructureNV"']
    assert unallowed(diffs) == []
    task = DATA / "reflect" / "task-shader.vk.nocompat.spv14.asm.task.spvasm"
    theirs = json.loads(task.with_suffix(".spirv-cross.json").read_text(encoding="utf-8"))
    diffs = differences(ours(task), theirs)
    assert diffs == ['/entryPoints[0]/mode: "task" != "???"']
    assert unallowed(diffs) == []


def test_cli_prints_spirv_cross_layout(capsys):
    source = DATA / "reflect" / "op-source-none-uav-2.asm.comp.spvasm"
    assert main(["reflect", str(source)]) == 0
    out = capsys.readouterr().out
    assert out == source.with_suffix(".spirv-cross.json").read_text(encoding="utf-8") + "\n"


def test_cli_entry_names_an_entry_point(capsys):
    source = DATA / "reflect" / "aliased-entry-point-names.asm.multi.spvasm"
    assert main(["reflect", str(source), "--entry", "nope"]) == 1
    assert capsys.readouterr().err == "spvls reflect: no entry point named 'nope'\n"


def test_cli_entry_and_stage_choose_whose_interface(capsys):
    """Four entry points, two names, two stages: the fragment "main" has the output %FragColor (no
    OpName: `_` and its number, as spirv-cross names it); the vertex ones list only the built-in
    block (left out, as spirv-cross leaves built-ins out)."""
    source = DATA / "reflect" / "aliased-entry-point-names.asm.multi.spvasm"
    assert main(["reflect", str(source), "--entry", "main", "--stage", "frag"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outputs"] == [{"type": "vec4", "name": "_11", "location": 0}]
    assert main(["reflect", str(source), "--entry", "main"]) == 0
    assert "outputs" not in json.loads(capsys.readouterr().out)
    assert main(["reflect", str(source), "--entry", "main", "--stage", "comp"]) == 1
    assert capsys.readouterr().err == "spvls reflect: no entry point named 'main' of stage comp\n"


def test_corpus_matches_spirv_cross(data_root, tmp_path):
    """Both read the binary spirv-as makes (the fixtures test reading text)."""
    root = data_root / "corpus"
    rows = list(csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    rows = [r for r in rows if r["assembles"] == "yes"]

    def one(r: dict) -> tuple[str, dict | str]:
        out = tmp_path / r["path"].replace("/", "_")
        out.mkdir()
        return r["path"], cross_reflect(root / r["path"], r["env"], out)

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(one, rows))
    compared, unread, allowed, wrong = 0, {}, {}, {}
    for path, theirs in answers:
        if isinstance(theirs, str):
            unread[path] = theirs
            continue
        compared += 1
        diffs = differences(ours(tmp_path / path.replace("/", "_") / (Path(path).name + ".spv")), theirs)
        if unallowed(diffs):
            wrong[path] = unallowed(diffs)
        elif diffs:
            allowed[path] = diffs
    print(
        f"corpus: {compared} compared, {compared - len(allowed) - len(wrong)} identical, "
        f"{len(allowed)} with allowed differences, {len(unread)} spirv-cross does not read"
    )
    assert compared >= (580 if FULL_DATA else 180)
    assert wrong == {}, "\n".join(f"{p}: {d[:5]}" for p, d in wrong.items())
