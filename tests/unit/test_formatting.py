"""Formatting in spirv-dis's layout: whitespace changes only, cases as data."""
import pytest

from spvls.features.formatting import format_lines, formatted
from spvls.syntax.document import Document
from spvls.syntax.parser import parse_line

# (a line as typed, the line formatted; None: left as it is)
CASES = [
    ("OpCapability Shader", "               OpCapability Shader"),
    ("%void = OpTypeVoid", "       %void = OpTypeVoid"),
    ("\t%x   =   OpIAdd   %int %a\t%b", "          %x = OpIAdd %int %a %b"),
    ("%a_very_long_result_name = OpLoad %t %p", "%a_very_long_result_name = OpLoad %t %p"),
    ('OpName %main "main   with spaces"', '               OpName %main "main   with spaces"'),
    ("%x = OpIAdd %int %a %b        ; sum", "          %x = OpIAdd %int %a %b ; sum"),  # comment keeps column 32
    ("  %x = OpIAdd %int %a %b                          ; aligned",
     "          %x = OpIAdd %int %a %b                  ; aligned"),
    ("OpLoopMerge %m %c Unroll|DontUnroll", "               OpLoopMerge %m %c Unroll|DontUnroll"),
    ("; a comment alone", None),
    ("", None),
    ("%x = OpIAdd %int %a %b junk=", None),  # does not parse: left for the user
    ("       %void = OpTypeVoid", "       %void = OpTypeVoid"),  # already in layout
]


@pytest.mark.parametrize("typed,expected", CASES)
def test_formatted_line(typed, expected):
    assert formatted(parse_line(typed)) == expected


def test_only_changed_lines_are_edited_and_strings_spanning_lines_are_kept():
    text = 'OpSource GLSL 450 %f "line one\nline two"\n%void = OpTypeVoid\n       %fn = OpTypeFunction %void\n'
    doc = Document(text)
    assert format_lines(doc) == [(2, "%void = OpTypeVoid", "       %void = OpTypeVoid"),
                                 (3, "       %fn = OpTypeFunction %void", "         %fn = OpTypeFunction %void")]
    assert format_lines(doc, 3, 3) == format_lines(doc)[1:]


def test_nothing_after_a_string_left_open_is_reformatted(tmp_path):
    """spirv-as reads an open string on to its next quote, across lines (fuzz seed 7302): the
    second line's blanks are inside its string, so indenting them changed the module."""
    text = 'OpExtension "SPV_KHR_sub\nOpExtension "SPV_KHR_subgroup$0_\x0brotate"'
    assert format_lines(Document(text)) == []
    closed = 'OpExtension "a\\\\"\nOpName %x "b"\n'  # "a\\" ends at its quote (the backslash is escaped): formatted on
    assert [n for n, _, _ in format_lines(Document(closed))] == [0, 1]
    escaped = 'OpName %x "a\\"\nOpName %y "b"\n'  # "a\" is open: its quote is escaped
    assert [n for n, _, _ in format_lines(Document(escaped))] == []


def _tokens(doc: Document):
    return [(n, t.kind, t.text) for n, line in enumerate(doc.lines) for t in line.tokens]


def test_corpus_formatting_keeps_every_token_and_is_idempotent(data_root):
    files = sorted((data_root / "corpus").rglob("*"))
    changed = 0
    for path in files:
        if not path.is_file() or path.suffix in (".tsv", ".md", ".txt"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        doc = Document(text)
        lines = list(doc.texts)
        for n, old, new in format_lines(doc):
            assert lines[n] == old
            lines[n] = new
            changed += 1
        again = Document("\n".join(lines))
        assert _tokens(again) == _tokens(doc), path
        assert format_lines(again) == [], path
    assert changed > 1000  # the corpus has hand-edited lines to lay out
