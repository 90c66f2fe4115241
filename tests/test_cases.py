"""Agreement with spirv-val on the cases (tests/data/cases): same verdict, error on the offending line.

spirv-val's "line N" counts instructions; we map it to the text line of the N-th instruction.
"""
import csv
import re

import pytest

from spvls.cli import check_file
from spvls.syntax.document import Document

# Where we differ from spirv-val, and the spec sentence that decides.
SPEC_DECIDES = {
    "coopmat-BadCooperativeMatrixLength.spvasm": (
        "invalid",
        "SPV_KHR_cooperative_matrix, OpCooperativeMatrixLengthKHR: 'Type is a cooperative matrix type.' "
        "spirv-val does not look inside OpSpecConstantOp; the original SPIRV-Tools test expected invalid."),
}
# Same verdict, but we point at the operand that breaks the rule, not where spirv-val noticed it.
OUR_LINE = {
    "ballot-SubgroupMaskMemberDecorate.spvasm": (
        7, "the OpMemberDecorate that names the mask builtin; spirv-val reports the variable using the struct"),
}


def _cases(data_root):
    return list(csv.DictReader(open(data_root / "cases" / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t"))


def test_agreement_table(data_root):
    table = []
    for r in _cases(data_root):
        path = data_root / "cases" / r["path"]
        errors = [d for d in check_file(path, r["env"]) if d.severity == "error"]
        ours = "invalid" if errors else "valid"
        expected = SPEC_DECIDES.get(r["path"], (r["spirv_val"], ""))[0]
        assert ours == expected, f"{r['path']}: we say {ours}, expected {expected}: {errors}"
        if ours == "invalid" and r["spirv_val"] == "invalid":
            inst_lines = [i for i, line in enumerate(Document(path.read_text()).lines) if line.opcode]
            n = int(re.search(r"line (\d+)", r["message"]).group(1))
            want = OUR_LINE.get(r["path"], (inst_lines[n - 1] + 1,))[0]
            assert want in {d.line + 1 for d in errors}, f"{r['path']}: no error on line {want}: {errors}"
        table.append((r["path"], r["spirv_val"], ours, errors[0].code if errors else ""))
    for row in table:
        print(" | ".join(row))
    assert len(table) >= 40


@pytest.mark.parametrize("name", sorted(SPEC_DECIDES))
def test_documented_disagreements_still_hold(data_root, name):
    row = next(r for r in _cases(data_root) if r["path"] == name)
    assert row["spirv_val"] != SPEC_DECIDES[name][0], "spirv-val now agrees: drop the exception"
