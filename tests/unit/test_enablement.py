"""Issue 13.2: one enablement rule — the checker, completion and hover agree on what an
instruction or enumerant needs."""
from spvls.checks import analyze
from spvls.features import completion, hover
from spvls.model.enablement import CAPABILITY, EXTENSION, lacks
from spvls.syntax.document import Document

PSB = """; SPIR-V
; Version: 1.3
OpCapability Shader
OpCapability PhysicalStorageBufferAddresses
OpMemoryModel Logical GLSL450
%int = OpTypeInt 32 0
%ptr = OpTypePointer PhysicalStorageBuffer %int
"""


def _completion_detail(m, line, col, name):
    return next(i.detail for i in completion.complete(m, line, col) if i.label == name)


def test_spv13_with_the_capability_but_not_the_extension_agrees_everywhere():
    a = analyze(Document(PSB))
    m = a.module
    e = m.grammar.kinds["StorageClass"].enumerants["PhysicalStorageBuffer"]
    need = lacks(m, e)
    assert need is not None and need.what == EXTENSION
    assert need.names == ("SPV_EXT_physical_storage_buffer", "SPV_KHR_physical_storage_buffer")
    # The checker flags the operand ...
    flagged = [d for d in a.diagnostics if d.line == 6 and d.code == "capability.extension"]
    assert len(flagged) == 1 and "PhysicalStorageBuffer" in flagged[0].message
    # ... completion does not rank it as enabled and says why ...
    line = PSB.splitlines().index("%ptr = OpTypePointer PhysicalStorageBuffer %int")
    col = len("%ptr = OpTypePointer ")
    detail = _completion_detail(m, line, col, "PhysicalStorageBuffer")
    assert detail.endswith(' — needs OpExtension "SPV_EXT_physical_storage_buffer"')
    assert not m.allows(e)
    # ... and hover says the same.
    md, _ = hover.hover(m, line, col + 2)
    assert md.endswith('\n\n**Not enabled in this module**: needs OpExtension "SPV_EXT_physical_storage_buffer"')


def test_with_the_extension_everything_agrees_it_is_enabled():
    text = PSB.replace("OpMemoryModel", 'OpExtension "SPV_KHR_physical_storage_buffer"\nOpMemoryModel')
    a = analyze(Document(text))
    m = a.module
    e = m.grammar.kinds["StorageClass"].enumerants["PhysicalStorageBuffer"]
    assert lacks(m, e) is None and m.allows(e)
    assert not [d for d in a.diagnostics if d.code.startswith("capability.")]
    line = text.splitlines().index("%ptr = OpTypePointer PhysicalStorageBuffer %int")
    col = len("%ptr = OpTypePointer ")
    assert " — " not in _completion_detail(m, line, col, "PhysicalStorageBuffer")
    md, _ = hover.hover(m, line, col + 2)
    assert "Not enabled" not in md


def test_a_missing_capability_is_what_is_named_first():
    a = analyze(Document(PSB.replace("OpCapability PhysicalStorageBufferAddresses\n", "")))
    m = a.module
    need = lacks(m, m.grammar.kinds["StorageClass"].enumerants["PhysicalStorageBuffer"])
    assert need.what == CAPABILITY and need.names == ("PhysicalStorageBufferAddresses",)
    assert [d.code for d in a.diagnostics if d.line == 5] == ["capability.missing"]


def test_opcode_completion_follows_each_modules_enablement_and_shares_equal_ones():
    """Each opcode's completion row is judged once per grammar and enablement: a module built again
    with the same capabilities, extensions and version (a line added) shares the rows; one that
    declares another capability gets its own."""
    typing = PSB + "%x = \n"
    at = (typing.count("\n") - 1, len("%x = "))
    plain = analyze(Document(typing)).module
    again = analyze(Document(typing.replace("%x = \n", "%uint = OpTypeInt 32 0\n%x = \n"))).module
    ballot = analyze(Document(typing.replace("OpCapability Shader", "OpCapability Shader\nOpCapability SubgroupBallotKHR"))).module
    assert again is not plain and again.declared_caps == plain.declared_caps
    assert completion._opcode_rows(again) is completion._opcode_rows(plain)
    assert _completion_detail(plain, *at, "OpSubgroupBallotKHR") == "Group (SPV_KHR_shader_ballot) — needs OpCapability SubgroupBallotKHR"
    assert _completion_detail(again, at[0] + 1, at[1], "OpSubgroupBallotKHR") == _completion_detail(plain, *at, "OpSubgroupBallotKHR")
    assert _completion_detail(ballot, at[0] + 1, at[1], "OpSubgroupBallotKHR") == "Group (SPV_KHR_shader_ballot)"


def test_each_line_of_a_repeated_shape_that_lacks_a_capability_is_reported():
    # The capabilities family skips a line shape once all its enumerants were found satisfied:
    # a shape with a missing capability is never taken as satisfied, however often it repeats.
    text = (
        "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat 32\n"
        "%a = OpTypeImage %float Rect 0 0 0 1 Unknown\n%b = OpTypeImage %float Rect 0 0 0 2 Unknown\n"
        "%c = OpTypeImage %float Rect 0 0 0 1 Unknown\n"
    )
    got = [(d.line, d.start, d.code) for d in analyze(Document(text), "spv1.6").diagnostics]
    assert got == [(4, 24, "capability.missing"), (5, 24, "capability.missing"), (6, 24, "capability.missing")]
