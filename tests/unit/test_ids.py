"""Did-you-mean for an undefined id offers only ids visible where it is used (SPIR-V 2.4)."""
import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document

MODULE = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
    %uint_10 = OpConstant %uint 10
     %helper = OpFunction %void None %fn
      %entry = OpLabel
%helper_total = OpIAdd %uint %uint_10 %uint_10
               OpReturn
               OpFunctionEnd
       %main = OpFunction %void None %fn
     %start = OpLabel
   %m_sum_10 = OpIAdd %uint %uint_10 %uint_10
          %a = {use}
               OpReturn
               OpFunctionEnd
"""

# (the instruction using a misspelt id, the suggestion expected, or None)
CASES = [
    ("OpIAdd %uint %uint_1O %uint_10", "%uint_10"),          # module-level constant
    ("OpIAdd %uint %m_sum_1O %uint_10", "%m_sum_10"),        # this function's own id
    ("OpIAdd %uint %helper_totl %uint_10", None),               # another function's id is not visible here
    ("OpFunctionCall %void %helpr", "%helper"),              # functions, for OpFunctionCall
]


@pytest.mark.parametrize("use,expected", CASES)
def test_undefined_id_suggestion(use, expected):
    diags = [d for d in analyze(Document(MODULE.format(use=use))).diagnostics if d.code == "id.undefined"]
    assert len(diags) == 1
    fixes = [f.title for f in diags[0].fixes]
    if expected is None:
        assert "did you mean" not in diags[0].message and fixes == []
    else:
        assert f"did you mean {expected}?" in diags[0].message
        assert fixes[0] == f"Change to {expected}"
