"""Call hierarchy items for functions written without their '%id ='."""
from spvls.checks import analyze
from spvls.features import calls
from spvls.syntax.document import Document

_SRC = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
          %g = OpFunction %void None %fn
         %e1 = OpLabel
               OpReturn
               OpFunctionEnd
               OpFunction %void None %fn
      %entry = OpLabel
          %r = OpFunctionCall %void %g
               OpReturn
               OpFunctionEnd
"""


def test_incoming_calls_from_a_function_without_a_result_id():
    # It crashed: the caller's item took its selection range from a result token that is absent.
    m = analyze(Document(_SRC)).module
    [(item, sites)] = calls.incoming(m, "%g")
    assert (item.first_line, item.last_line, item.selection) == (8, 12, (8, 15, 25))
    assert sites == [(10, 36, 38)]
