"""Incremental documents: an edit re-parses only the lines it touched."""
import re

import pytest

from spvls.syntax.document import Document
from spvls.syntax.parser import Stats


def _unique_module(n: int) -> str:
    return "\n".join(f"%c{i} = OpConstant %uint {i}" for i in range(n))


def test_edit_reparses_only_touched_lines():
    doc = Document(_unique_module(500) + "\n; unique-tail-marker-1")
    before = Stats.lines
    doc.replace((250, 0), (250, 0), "%new = OpConstant %uint 123456789\n")
    # Only the two lines the edit spans: the inserted one and the rest of line 250.
    assert Stats.lines - before == 2
    assert doc.lines[250].result.text == "%new"
    assert doc.lines[251].result.text == "%c250"
    assert len(doc.lines) == 502


def test_edit_matches_fresh_parse():
    doc = Document("OpCapability Shader\n%a = OpTypeInt 32 0\n")
    doc.replace((1, 5), (1, 14), "OpTypeFloat")
    fresh = Document(doc.text)
    assert doc.lines == fresh.lines
    assert doc.text == "OpCapability Shader\n%a = OpTypeFloat 32 0\n"
    assert doc.lines[1].error is None


def test_multiline_string_joins_and_splits():
    doc = Document('OpSource GLSL 450 %f "line one\nline two"\n%f = OpString "x.glsl"')
    assert list(doc.span[:3]) == [2, 0, 1]
    assert doc.lines[0].operands[-1].text == '"line one\nline two"'
    assert doc.position(0, len("OpSource GLSL 450 %f \"line one\nline")) == (1, 4)
    doc.replace((1, 8), (1, 9), "")  # remove the closing quote: the string no longer closes
    assert list(doc.span[:3]) == [1, 1, 1]
    assert doc.lines[0].error is not None
    doc.replace((1, 8), (1, 8), '"')
    assert list(doc.span[:3]) == [2, 0, 1] and doc.lines == Document(doc.text).lines


def test_quote_typed_lines_below_closes_a_string_left_open_above():
    # Found by the property test: the open string's search for its closing quote runs over lines
    # with paired quotes, so a quote typed two lines down joins all three.
    doc = Document('OpSource GLSL 450 %f "void main() {\nOpName %main "main"\nOpDecorate %x SpecId 7\nOpNop')
    assert list(doc.span) == [1, 1, 1, 1]
    doc.replace((2, 0), (2, 0), '"')
    assert list(doc.span) == [3, 0, 0, 1] and doc.lines == Document(doc.text).lines
    doc.replace((2, 0), (2, 1), "")
    assert list(doc.span) == [1, 1, 1, 1] and doc.lines == Document(doc.text).lines


def test_quote_typed_below_closes_a_string_opened_above_a_line_that_opens_one_itself():
    # Found by the fuzzer (seed 9003): line 1 opens a string (an escaped quote, then one left open)
    # but is itself inside the string line 0 left open. A quote typed on line 3 closes line 0's
    # string, so line 0's instruction runs to line 3, not line 1's.
    doc = Document('OpName %a "open\nOpName %b "a\\"b" %c "x\nOpNop\n%t = OpTypeInt 32 0\nOpNop')
    assert list(doc.span) == [1, 1, 1, 1, 1]
    doc.replace((3, 5), (3, 5), '"')
    assert list(doc.span) == list(Document(doc.text).span) == [4, 0, 0, 0, 1]
    assert doc.lines == Document(doc.text).lines
    doc.replace((3, 5), (3, 6), "")
    assert list(doc.span) == [1, 1, 1, 1, 1] and doc.lines == Document(doc.text).lines


def test_out_of_range_edit_is_clamped():
    doc = Document("OpNop")
    doc.replace((99, 5), (120, 0), "\nOpNop")
    assert doc.text == "OpNop\nOpNop"


def test_header_version():
    assert Document("; SPIR-V\n; Version: 1.3\nOpCapability Shader").header_version() == (1, 3)


def test_changed_since_a_generation_never_logged_is_unknown():
    # It crashed (None - None) when no logged edit came after the generation asked about.
    doc = Document("OpCapability Shader\n")
    doc.replace((0, 0), (0, 0), "; x\n")
    assert doc.changed_since(doc.generation + 3) is None
    assert doc.changed_since(doc.generation - 1) == (0, 1, 2)


def test_an_id_at_the_same_column_shares_one_token_and_its_text_one_string():
    """Memory at 100k lines: the id tokens of a document are shared where equal, and none is kept
    past the document's build (the table is emptied)."""
    from spvls.syntax import parser

    doc = Document("%a = OpLabel\nOpBranch %a\nOpBranch %a\n%b = OpCopyObject %t %a\nOpBranch %a\n  OpBranch %a\n")
    first, second = doc.lines[1].operands[0], doc.lines[2].operands[0]
    assert first == ("ID", "%a", 9, 11) and first is second
    assert doc.lines[3].operands[1].text is doc.lines[0].result.text  # one string for %a
    # Back at column 9 after %a was written at another column: still the one token of column 9.
    assert doc.lines[4].operands[0] is first and doc.lines[5].operands[0] == ("ID", "%a", 11, 13)
    assert not parser._interned.last and not parser._interned.id_at
    doc.replace((2, 0), (2, 11), "OpBranch %a")
    assert doc.lines[2] == doc.lines[1] and not parser._interned.last and not parser._interned.id_at


def test_a_document_built_in_another_thread_leaves_this_threads_ids_alone():
    """A large open is parsed in a worker thread while the loop parses edits: a build finishing
    there (which empties its interned ids) does not empty them under a parse here."""
    import threading

    from spvls.syntax import parser

    parser.parse_line("%x = OpIAdd %int %a %b")
    here = parser._interned.id_at
    assert here
    other = threading.Thread(target=lambda: Document("%y = OpIAdd %int %c %d\n"))
    other.start()
    other.join()
    assert parser._interned.id_at is here and here  # the other thread's build emptied only its own
    line = parser.parse_line("%x = OpISub %int %a %b")
    assert line.result is parser.parse_line("%x = OpIAdd %int %a %b").result
    parser.forget_ids()


@pytest.mark.parametrize(
    "text", ["", "a", "a\n", "\n\n", "x\ny\n\nz", "a\r\nb\rc\n", "a\r", "\r\n", "OpNop\u2028%x\x0b\x0c\n"]
)
def test_lines_split_as_lsp_splits_them_with_or_without_a_cr(text):
    # str.split for texts without '\r' (the common case) must agree with the regex's three breaks;
    # '\u2028', '\v' and '\f' are not line breaks for LSP (str.splitlines would take them).
    d = Document(text)
    assert d.text == text
    want = re.split(r"\r\n|\r|\n", text)
    assert d.texts == want
    assert d.breaks == re.findall(r"\r\n|\r|\n", text) + [""]
