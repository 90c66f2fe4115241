"""The registry of codes (spvls/checks/codes.py) holds every code spvls emits: each family's in its
own table, checked over every module the tests have, and every code any other part of spvls writes
in its source."""

import ast
import csv
import re
from pathlib import Path

import pytest
from helpers import DATA, DATA_ROOT

from spvls.checks import FAMILIES, analyze, codes
from spvls.syntax.document import Document
from tools import codes_table

ROOT = Path(__file__).resolve().parents[1]
_ENV = re.compile(r"; target-env: (\S+)")


def _modules() -> list[tuple[Path, str | None]]:
    """Every module the tests have, with its target env (None: the header's): tests/data, examples/,
    the corpus and the cases (the full sets in ../shared when present, else tests/data's)."""
    out: list[tuple[Path, str | None]] = []
    ours = [p for p in DATA.rglob("*.spvasm") if not p.is_relative_to(DATA / "cases")]
    cases = sorted((DATA_ROOT / "cases").glob("*.spvasm"))
    for path in sorted([*ours, *(ROOT / "examples").glob("*.spvasm")]) + cases:
        found = _ENV.search(path.read_text(encoding="utf-8", errors="replace"))
        out.append((path, found.group(1) if found else None))
    corpus = DATA_ROOT / "corpus" / "MANIFEST.tsv"
    rows = csv.DictReader(corpus.read_text(encoding="utf-8").splitlines(), delimiter="\t")
    out += [(corpus.parent / r["path"], r["env"]) for r in rows]
    return out


def test_every_code_a_family_emits_is_in_its_table():
    families = {f.name: f for f in FAMILIES}
    modules = _modules()
    stray: set[tuple[str, str]] = set()
    emitted: set[str] = set()
    for path, env in modules:
        a = analyze(Document(path.read_text(encoding="utf-8", errors="replace")), env)
        for name, diags in a.by_family.items():
            emitted |= {d.code for d in diags}
            stray |= {(name, d.code) for d in diags if d.code not in families[name].by_code}
    assert len(modules) >= 100
    assert len(emitted) >= 60  # the modules do break rules: a reader that found none would pass anything
    assert stray == set()


def test_every_rule_has_one_family_and_a_summary():
    owners: dict[str, str] = {}
    for family in FAMILIES:
        for rule in family.rules:
            assert rule.code not in owners, f"{rule.code}: {owners[rule.code]} and {family.name}"
            owners[rule.code] = family.name
            assert rule.summary and rule.link.startswith("https://")
            assert rule.code.split(".")[0] in (family.prefix, "types")  # ids judges two types.* rules
    assert codes.rules().keys() >= owners.keys()


def _written_codes() -> dict[str, str]:
    """Every code a module under spvls/ writes as a string: the code argument of Diagnostic, at,
    cite, a Problem and an LSP diagnostic (code=...), with where it is."""
    out = {}
    positions = {"Diagnostic": 4, "at": 3, "cite": 2, "problem": 0, "Problem": 0, "unknown": 0}
    for p in sorted((ROOT / "spvls").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = list(node.args)
            code = args[positions[name]] if name in positions and len(args) > positions[name] else None
            code = next((k.value for k in node.keywords if k.arg == "code"), code)
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                out[code.value] = f"{p.relative_to(ROOT)}:{node.lineno}"
            elif isinstance(code, ast.BinOp) and isinstance(code.right, ast.Constant):  # SOURCE + ".unavailable"
                out["spirv-val" + code.right.value] = f"{p.relative_to(ROOT)}:{node.lineno}"
    return out


def test_every_code_spvls_writes_is_registered():
    written = _written_codes()
    assert {"spvls.internal", "syntax.empty", "io.unreadable", "suppression.unused", "id.undefined"} <= set(written)
    written.pop("warm")  # state/warm.py primes the LSP converter with it, and never sends it
    missing = {code: where for code, where in written.items() if codes.rule(code) is None}
    assert missing == {}


@pytest.mark.parametrize(
    ("code", "link"),
    [
        ("rotate.delta", "https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_subgroup_rotate.html"),
        ("id.undefined", "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html"),
        ("spirv-val", "https://github.com/KhronosGroup/SPIRV-Tools"),
        (
            "spirv-val.VUID-StandaloneSpirv-None-10685",
            "https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#VUID-StandaloneSpirv-None-10685",
        ),
    ],
)
def test_a_code_links_to_its_rules_page(code: str, link: str):
    assert codes.link(code) == link


def test_the_readme_table_and_docs_codes_are_current():
    stale = "stale: run python tools/codes_table.py"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert codes_table.with_table(readme) == readme, stale
    assert (ROOT / "docs" / "codes.md").read_text(encoding="utf-8") == codes_table.codes_md(), stale
    listed = set(re.findall(r"^\| `([^`]+)` \|", codes_table.codes_md(), re.M))
    assert listed == set(codes.rules())
