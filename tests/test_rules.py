"""Rules as data: each module in data/rules marks its expected diagnostics with `; expect: code`.

A `*-fail` module breaks each rule on a marked line; a `*-pass` module satisfies them
and must produce nothing at all.
"""
import re
from pathlib import Path

import pytest

from spvls.checks import FAMILIES
from spvls.cli import check_file

RULES = sorted((Path(__file__).parent / "data" / "rules").glob("*.spvasm"))


def expectations(text: str) -> set[tuple[int, str]]:
    out = set()
    for n, line in enumerate(text.split("\n")):
        if "; expect:" in line:
            out |= {(n + 1, c.strip()) for c in line.split("; expect:", 1)[1].split(",")}
    return out


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_rule_module(path: Path):
    text = path.read_text()
    env = re.search(r"; target-env: (\S+)", text).group(1)
    got = {(d.line + 1, d.code) for d in check_file(path, env, spirv_val=False)}
    assert got == expectations(text)


def test_every_cited_rule_has_failing_and_passing_modules():
    failing = set()
    for path in RULES:
        failing |= {code for _, code in expectations(path.read_text())}
    for family in FAMILIES:
        for rule in family.rules:
            if rule.sentence:
                assert rule.code in failing, f"no failing module exercises {rule.code}"
                prefix = rule.code.split(".")[0]
                assert any(p.stem == f"{prefix}-pass" for p in RULES), f"no passing module for {prefix}"


def test_every_rule_cites_its_spec_text():
    for family in FAMILIES:
        for rule in family.rules:
            if rule.sentence is not None:
                assert rule.code.split(".")[0] in (family.prefix, "types")
                assert len(rule.sentence) > 20


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_no_diagnostic_given_twice(path: Path):
    text = path.read_text()
    env = re.search(r"; target-env: (\S+)", text).group(1)
    got = [(d.line, d.start, d.code) for d in check_file(path, env, spirv_val=False)]
    assert sorted(got) == sorted(set(got))
