"""A Scope or Memory Semantics written by name where its <id> belongs (as the subgroup-rotate
proposal's example does): the message gives the value, the quick fix uses or defines a constant."""
import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document

MODULE = """\
               OpCapability Shader
               OpCapability GroupNonUniformRotateKHR
               OpExtension "SPV_KHR_subgroup_rotate"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 32 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_1 = OpConstant %uint 1
{constants}
       %main = OpFunction %void None %fn
      %entry = OpLabel
{use}
               OpReturn
               OpFunctionEnd
"""

# (constants, the instruction, words the message must hold, the first fix's title)
CASES = [
    ("", "%r = OpGroupNonUniformRotateKHR %uint Subgroup %uint_1 %uint_1",
     ["'Execution'", "Subgroup is 3"], "Define %subgroup_3 = OpConstant %uint 3 and use it"),
    ("%s3 = OpConstant %uint 3", "%r = OpGroupNonUniformRotateKHR %uint Subgroup %uint_1 %uint_1",
     ["Subgroup is 3"], "Change to %s3"),
    ("", "OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory",
     ["'Memory'", "Workgroup is 2"], "Define %workgroup_2 = OpConstant %uint 2 and use it"),
    ("%sem = OpConstant %uint 264", "OpControlBarrier %uint_1 %uint_1 AcquireRelease|WorkgroupMemory",
     ["'Semantics'", "AcquireRelease|WorkgroupMemory is 264"], "Change to %sem"),
]


@pytest.mark.parametrize("constants,use,words,fix", CASES)
def test_scope_written_by_name(constants, use, words, fix):
    text = MODULE.format(constants=constants, use=use)
    diags = [d for d in analyze(Document(text)).diagnostics if d.code == "operand.expected-id"]
    assert diags
    for w in words:
        assert any(w in d.message for d in diags), (w, [d.message for d in diags])
    d = next(d for d in diags if all(w in d.message for w in words))
    assert d.fixes[0].title == fix
    # Applied, the fix leaves no operand error on that line.
    lines = text.split("\n")
    for e in sorted(d.fixes[0].edits, key=lambda e: (e.line, e.start), reverse=True):
        lines[e.line] = lines[e.line][:e.start] + e.text + lines[e.line][e.end:]
    after = analyze(Document("\n".join(lines))).diagnostics
    assert len([x for x in after if x.code == "operand.expected-id"]) == len(diags) - 1
