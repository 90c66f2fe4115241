"""syntax.bad-id's one search over a whole text (checks.families.syntax._BAD_ID) finds a bad id exactly where
the plain two-alternative pattern does, and the check's answers are those of a per-token check."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from spvls.checks import analyze
from spvls.checks.families.syntax import _BAD_ID
from spvls.syntax.document import Document

PLAIN = re.compile(r"%(?![A-Za-z0-9_])|%[A-Za-z0-9_]+[^\sA-Za-z0-9_=]")


@settings(max_examples=2000)
@given(st.text(alphabet="%a_9 =\t\n.;\"'-", max_size=40))
def test_the_fast_search_finds_what_the_plain_one_does(text):
    fast, plain = _BAD_ID.search(text), PLAIN.search(text)
    assert (fast and fast.start()) == (plain and plain.start())


def test_bad_ids_in_a_module_are_each_reported():
    text = "\n".join(
        [
            "OpCapability Shader",
            "OpMemoryModel Logical GLSL450",
            "%void = OpTypeVoid",
            "%a.b = OpTypeBool",
            "%x = OpTypeFunction %",
            "%ok = OpTypeInt 32 0",
            "%c = OpConstant %ok 1",
        ]
    )
    got = [(d.line, d.start, d.end) for d in analyze(Document(text)).diagnostics if d.code == "syntax.bad-id"]
    assert got == [(3, 0, 4), (4, 20, 21)]
