"""`spvls cfg`: DOT always; SVG drawn by the real Graphviz, parsed as XML, holding every block label."""
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import required_program
from shaders import build
from test_cli import VALID, run

ROOT = Path(__file__).resolve().parents[1]
NESTED = ROOT / "tests" / "data" / "cfg" / "nested.spvasm"
SVG = "{http://www.w3.org/2000/svg}"


def spvls(*args):
    """`spvls cfg ARGS`, in this process (test_cli.run)."""
    return run("cfg", *args)


@pytest.fixture
def dot():
    return required_program("dot", ".ci/run installs it: apt-get install graphviz")


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == SVG + "svg"
    return [t.text for t in root.iter(SVG + "text") if t.text]


def block_labels(path: Path) -> list[str]:
    return [line.split("=")[0].strip() for line in path.read_text().splitlines() if "= OpLabel" in line]


@pytest.mark.parametrize("path", [NESTED, *sorted((ROOT / "examples").glob("*.spvasm")),
                                  *sorted((ROOT / "tests" / "data" / "rules").glob("reconvergence*.spvasm"))],
                         ids=lambda p: p.stem)
def test_svg_is_xml_with_every_block_label(path, dot, tmp_path):
    out = tmp_path / "g.svg"
    r = spvls("--function", "all", "--format", "svg", "-o", out, path)
    assert r.returncode == 0, r.stderr
    texts = svg_texts(out.read_text())
    firsts = {t.split(" (")[0] for t in texts}
    for label in block_labels(path):
        assert label in firsts or any(t.endswith(f"({label})") for t in texts), f"{label} is not drawn"


def test_dot_parsed_by_graphviz(dot):
    """Graphviz reads our DOT back: nodes, clusters (nested), the quoted/braced/backslashed OpName."""
    r = spvls(NESTED)
    assert r.returncode == 0 and r.stdout.startswith("digraph cfg {")
    g = json.loads(subprocess.run([dot, "-Tjson0"], input=r.stdout, capture_output=True, text=True,
                                  check=True).stdout)
    objects = g["objects"]
    clusters = {o["label"]: o for o in objects if o["name"].startswith("cluster_")}
    assert set(clusters) == {"case %c1", "case %c3", "continue %icont", "continue %ocont",
                             'loop outer "loop" {\\\\}', "loop %inner", "selection %body"}
    nodes = {o["_gvid"]: o for o in objects if "nodes" not in o and "subgraphs" not in o}
    assert len(nodes) == 12
    names = {o["label"].split("\\l")[0] for o in nodes.values()}
    assert 'outer "loop" {\\\\} (%outer)' in names and "%dead" in names
    inner = clusters["loop %inner"]
    member = {nodes[i]["label"].split("\\l")[0] for i in inner["nodes"]}
    assert member == {"%inner", "%body", "%c1", "%c3", "%smerge", "%icont"}  # with nested clusters' nodes
    dead = next(o for o in nodes.values() if o["label"].startswith("%dead"))
    assert dead["fillcolor"] == "lightgrey"
    assert len(g["edges"]) == 20
    # Drawn, the name reads as the OpName's string means it.
    svg = subprocess.run([dot, "-Tsvg"], input=r.stdout, capture_output=True, text=True, check=True).stdout
    assert 'outer "loop" {\\} (%outer)' in svg_texts(svg)


def test_functions_by_name_all_and_unknown():
    assert 'label="%helper"' in spvls("--function", "%helper", NESTED).stdout
    assert 'label="%helper"' in spvls("--function", "helper", NESTED).stdout
    both = spvls("--function", "all", NESTED).stdout
    assert "subgraph cluster_f0 {" in both and "subgraph cluster_f1 {" in both
    r = spvls("--function", "nope", NESTED)
    assert r.returncode == 2 and "no function 'nope' (functions: %helper, %main)" in r.stderr


def test_svg_without_graphviz_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` here
    r = spvls("--format", "svg", NESTED)
    assert r.returncode == 2 and r.stdout == ""
    assert "apt-get install graphviz" in r.stderr and "--format dot" in r.stderr


def test_unreadable_file():
    r = spvls(ROOT / "no-such.spvasm")
    assert r.returncode == 1 and "io.unreadable" in r.stderr


@pytest.mark.parametrize("variant", ["g", "gV"])
def test_a_function_by_its_opname_as_written_or_its_source_name_and_from_a_binary(tmp_path, variant):
    """glslang names a function `square(f1;`: that OpName and the source's `square` find it, in the
    assembly and in the binary module it came from."""
    asm = build(tmp_path, "sum.comp", variant)
    spv = asm.with_suffix(".spv")
    by_id = spvls("--function", "%square_f1_", asm)
    assert by_id.returncode == 0 and 'label="square(f1; (%square_f1_)"' in by_id.stdout
    for name in ("square(f1;", "square"):
        for path in (asm, spv):
            r = spvls("--function", name, path)
            assert (r.returncode, r.stdout, r.stderr) == (0, by_id.stdout, ""), (name, path)
    r = spvls("--function", "sq", spv)
    assert (r.returncode, r.stderr) == (2, f"spvls cfg: {spv}: no function 'sq' (functions: %main, %weight_u1_, %square_f1_)\n")


def test_a_source_name_shared_by_overloads_names_them_all(tmp_path):
    f = tmp_path / "over.spvasm"
    f.write_text(VALID.replace("%void = OpTypeVoid", 'OpName %helper "op(i1;"\nOpName %main "op(f1;"\n%void = OpTypeVoid')
                 + "%helper = OpFunction %void None %fn\n%l2 = OpLabel\nOpReturn\nOpFunctionEnd\n")
    r = spvls("--function", "op", f)
    assert r.returncode == 2 and r.stderr.endswith(
        "'op' names 2 functions: %main (op(f1;), %helper (op(i1;); give one of their ids\n")
