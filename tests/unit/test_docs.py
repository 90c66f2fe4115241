"""The docs index covers every symbol and defined term of the four extensions."""
import pytest

from spvls.spec.extension_docs import index

# What each extension text defines, read off the texts (Token Number Assignments, new terms, tables).
EXPECTED = {
    "SPV_KHR_maximal_reconvergence": ["MaximallyReconvergesKHR", "Tangle", "Converged", "Dynamic Successor"],
    "SPV_KHR_cooperative_matrix": [
        "CooperativeMatrixKHR", "OpTypeCooperativeMatrixKHR", "OpCooperativeMatrixLoadKHR",
        "OpCooperativeMatrixStoreKHR", "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixLengthKHR",
        "NoneKHR", "MatrixASignedComponentsKHR", "MatrixBSignedComponentsKHR", "MatrixCSignedComponentsKHR",
        "MatrixResultSignedComponentsKHR", "SaturatingAccumulationKHR", "RowMajorKHR", "ColumnMajorKHR",
        "MatrixAKHR", "MatrixBKHR", "MatrixAccumulatorKHR", "Cooperative Matrix"],
    "SPV_KHR_subgroup_rotate": ["OpGroupNonUniformRotateKHR", "GroupNonUniformRotateKHR"],
    "SPV_KHR_shader_ballot": [
        "SubgroupBallotKHR", "SubgroupEqMaskKHR", "SubgroupGeMaskKHR", "SubgroupGtMaskKHR", "SubgroupLeMaskKHR",
        "SubgroupLtMaskKHR", "OpSubgroupBallotKHR", "OpSubgroupFirstInvocationKHR",
        "OpSubgroupReadInvocationKHR"],
}


@pytest.mark.parametrize("ext,name", [(e, n) for e, names in EXPECTED.items() for n in names])
def test_entry(ext, name):
    entry = index().get(name)
    assert entry is not None, f"no docs entry for {name}"
    assert entry.extension == ext
    assert len(entry.text) > 15


def test_quotes_are_the_extension_text():
    assert index()["OpCooperativeMatrixMulAddKHR"].text.startswith(
        "Linear-algebraic matrix multiply of A by B and then component-wise add C.")
    assert "where SubgroupLocalInvocationId is equal to the bit index" in index()["SubgroupEqMaskKHR"].text
    assert "Delta must be a scalar of integer type" in index()["OpGroupNonUniformRotateKHR"].text
