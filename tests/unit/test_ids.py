"""Undefined ids: did-you-mean offers only ids visible where the id is used (SPIR-V 2.4), and an
edit inside a function that defines an id used elsewhere is checked as a fresh analysis would."""
import pytest

from spvls.checks import analyze
from spvls.syntax.document import Document

MODULE = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               {top}
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

NAME = 'OpName %main "main"'
# (a module-level line, a line in %main, each maybe using a misspelt id; the suggestion expected, or None)
CASES = [
    (NAME, "OpIAdd %uint %uint_1O %uint_10", "%uint_10"),        # module-level constant
    (NAME, "OpIAdd %uint %m_sum_1O %uint_10", "%m_sum_10"),      # this function's own id
    (NAME, "OpIAdd %uint %helper_totl %uint_10", None),          # another function's id is not visible here
    (NAME, "OpFunctionCall %void %helpr", "%helper"),            # functions, for OpFunctionCall
    ('OpName %hepler "helper"', "OpIAdd %uint %uint_10 %uint_10", "%helper"),  # and at module level
    ('OpName %uint_1O "ten"', "OpIAdd %uint %uint_10 %uint_10", "%uint_10"),
]


@pytest.mark.parametrize("top,use,expected", CASES)
def test_undefined_id_suggestion(top, use, expected):
    text = MODULE.format(top=top, use=use)
    diags = [d for d in analyze(Document(text)).diagnostics if d.code == "id.undefined"]
    assert len(diags) == 1
    fixes = [f.title for f in diags[0].fixes]
    if expected is None:
        assert "did you mean" not in diags[0].message and fixes == []
    else:
        assert f"did you mean {expected}?" in diags[0].message
        assert fixes[0] == f"Change to {expected}"


def test_defining_an_id_used_in_another_function_rechecks_that_use():
    text = MODULE.format(top=NAME, use="OpIAdd %uint %uint_10 %uint_10")
    text = text.replace("%helper_total = OpIAdd %uint %uint_10 %uint_10", "%helper_total = OpIAdd %uint %later %uint_10")
    doc = Document(text)
    before = analyze(doc)
    assert [d.code for d in before.diagnostics] == ["id.undefined"]
    n = doc.texts.index("          %a = OpIAdd %uint %uint_10 %uint_10")
    doc.replace((n, 10), (n, 12), "%later")  # %a becomes %later, in the other function
    after = analyze(doc, previous=before)
    assert after.diagnostics == analyze(Document(doc.text)).diagnostics
    assert [d.code for d in after.diagnostics] == ["id.forward-reference"]  # no longer undefined


def test_removing_a_first_definition_makes_the_duplicate_the_definition():
    text = MODULE.format(top=NAME, use="OpIAdd %uint %uint_10 %uint_10").replace(
        "   %m_sum_10 = OpIAdd", "%helper_total = OpIAdd")  # a second %helper_total, in %main
    doc = Document(text)
    before = analyze(doc)
    assert [d.code for d in before.diagnostics] == ["id.duplicate"]
    n = doc.texts.index("%helper_total = OpIAdd %uint %uint_10 %uint_10")  # the first, in %helper
    doc.replace((n, 0), (n, len(doc.texts[n])), "OpNop")
    after = analyze(doc, previous=before)
    assert after.diagnostics == analyze(Document(doc.text)).diagnostics == []
    assert after.module.defs["%helper_total"].line > n


# An edit inside a function re-checks that function alone only when nothing outside it can read
# what changed; otherwise the model is rebuilt. Either way the result is a fresh analysis's.
# (module-level lines, the new definition of %a in %main, whether the function alone is re-checked)
IN_PLACE_CASES = [
    ('OpName %a "a"', "OpISub %uint %uint_10 %uint_10", True),  # only OpName reads %a: its name stays
    ('OpName %a "a"', None, False),  # %a renamed: OpName %a is now undefined
    ('OpDecorate %a RelaxedPrecision', "OpISub %uint %uint_10 %uint_10", False),  # a decoration reads it
]


@pytest.mark.parametrize("top,new,in_place", IN_PLACE_CASES)
def test_edit_inside_a_function_rechecks_only_what_it_can(top, new, in_place):
    doc = Document(MODULE.format(top=top, use="OpIAdd %uint %uint_10 %uint_10"))
    before = analyze(doc)
    n = doc.texts.index("          %a = OpIAdd %uint %uint_10 %uint_10")
    doc.replace((n, 10), (n, len(doc.texts[n])), "%b = OpIAdd %uint %uint_10 %uint_10" if new is None else f"%a = {new}")
    after = analyze(doc, previous=before)
    assert (after.module is before.module) == in_place
    assert (after.rechecked is not None) == in_place
    if in_place:
        assert after.rechecked.id == "%main"
    assert after.diagnostics == analyze(Document(doc.text)).diagnostics
