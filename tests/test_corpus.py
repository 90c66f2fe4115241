"""Real-world SPIR-V (the corpus: tests/data/corpus, or the full one in ../shared) against spirv-as and spirv-val's verdicts: the native checks alone
(tests/test_validator.py checks them merged with SPIRV-Tools' own)."""
import csv

from helpers import FULL_DATA

from spvls.cli import check_file

GRAMMAR_FAMILIES = {"syntax", "operand", "id"}


def test_corpus_agrees_with_spirv_as_and_spirv_val(data_root):
    root = data_root / "corpus"
    rows = list(csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    disagree = []
    counts = dict(files=0, assembled=0, clean=0, rejected=0, rejected_by_us=0, valid=0)
    for r in rows:
        errors = [d for d in check_file(root / r["path"], r["env"], spirv_val=False) if d.severity == "error"]
        grammar = [d for d in errors if d.family in GRAMMAR_FAMILIES]
        counts["files"] += 1
        if r["assembles"] == "yes":
            counts["assembled"] += 1
            counts["clean"] += not grammar
            if grammar:
                disagree.append((r["path"], "spirv-as assembles it", grammar[0]))
        else:
            counts["rejected"] += 1
            counts["rejected_by_us"] += bool(grammar)
            if not grammar:
                disagree.append((r["path"], "spirv-as rejects it", None))
        if r["validates"] == "yes":
            counts["valid"] += 1
            if errors:
                disagree.append((r["path"], "spirv-val accepts it", errors[0]))
    print("corpus:", counts, "disagreements:", len(disagree))
    assert counts["files"] >= (600 if FULL_DATA else 200)
    assert not disagree, "\n".join(f"{p}: {why}: {d}" for p, why, d in disagree)
