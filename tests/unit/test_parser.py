"""syntax layer: one line, every token with its exact range. Cases are data."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spvls.syntax.parser import parse_line

# line, expected (kind, text) tokens in order, expected error substring or None
CASES = [
    ("%a = OpConstant %f 0x1.8p+1 ; c",
     [("ID", "%a"), ("OPNAME", "OpConstant"), ("ID", "%f"), ("FLOAT", "0x1.8p+1"), ("COMMENT", "; c")], None),
    ("OpDecorate %x SpecId !5", [("OPNAME", "OpDecorate"), ("ID", "%x"), ("WORD", "SpecId"), ("RAW", "!5")], None),
    ("OpLoopMerge %m %c Unroll|DontUnroll",
     [("OPNAME", "OpLoopMerge"), ("ID", "%m"), ("ID", "%c"), ("WORD", "Unroll|DontUnroll")], None),
    ('%s = OpString "a\\"b"', [("ID", "%s"), ("OPNAME", "OpString"), ("STRING", '"a\\"b"')], None),
    ("%c = OpConstant %i -42", [("ID", "%c"), ("OPNAME", "OpConstant"), ("ID", "%i"), ("INT", "-42")], None),
    ("%c = OpConstant %u 0xFFFFFFFF", [("ID", "%c"), ("OPNAME", "OpConstant"), ("ID", "%u"), ("INT", "0xFFFFFFFF")],
     None),
    ("%c = OpConstant %f -1.5e3", [("ID", "%c"), ("OPNAME", "OpConstant"), ("ID", "%f"), ("FLOAT", "-1.5e3")], None),
    ("%t = OpTypeImage %f 2D 0 0 0 1 Unknown",
     [("ID", "%t"), ("OPNAME", "OpTypeImage"), ("ID", "%f"), ("WORD", "2D"), ("INT", "0"), ("INT", "0"),
      ("INT", "0"), ("INT", "1"), ("WORD", "Unknown")], None),
    ("   ; Version: 1.3", [("COMMENT", "; Version: 1.3")], None),
    ("", [], None),
    ("%x = ", [("ID", "%x")], "expected an instruction"),
    ("foo bar", [("WORD", "foo"), ("WORD", "bar")], "expected an instruction"),
    ('%x = OpString "abc', [("ID", "%x"), ("OPNAME", "OpString"), ("STRING", '"abc')], "unterminated string"),
    ("OpName %a $$", [("OPNAME", "OpName"), ("ID", "%a"), ("OTHER", "$$")], "unexpected '$$'"),
]


@pytest.mark.parametrize("text,tokens,error", CASES)
def test_line(text, tokens, error):
    line = parse_line(text)
    assert [(t.kind, t.text) for t in line.tokens] == tokens
    for t in line.tokens:
        assert text[t.start:t.end] == t.text  # exact ranges
    if error is None:
        assert line.error is None
    else:
        assert error in line.error.message
        assert 0 <= line.error.start < line.error.end <= len(text)


def test_error_points_at_the_bad_token():
    line = parse_line("OpFoo %a = %b")
    assert (line.error.start, line.error.end) == (9, 10)


def test_hostile_lines_do_not_raise():
    for text in ["\x00\x01\x02", "Op" * 50000, '"' * 1001, "%" * 10, "\ufffd\ufffd OpNop", "=" * 3]:
        parse_line(text)


def test_shape_cache_parses_as_lark_does(data_root):
    """parse_line parses a line's shape (ids written '%') once and moves the tokens over the real
    ids: it must give what parsing the line itself gives, on real lines and on mangled ones."""
    import random

    from spvls.syntax import parser

    lines = []
    for path in sorted((data_root / "corpus").rglob("*.asm.*")):
        lines += path.read_text(encoding="utf-8", errors="replace").split("\n")
    rng = random.Random(7)
    for text in rng.sample(lines, 3000):
        i = rng.randrange(len(text) + 1)
        lines.append(text[:i] + rng.choice(["%", "=", "!", "1", "x", "%%", '"', " ", ".", "-", "0x", ";"]) + text[i:])
    for text in dict.fromkeys(lines):  # a line seen before is parsed from the same caches: 59% of the corpus
        assert parser.parse_line(text)._replace(shape=None) == parser._parse(text)._replace(shape=None), text


_ids = st.from_regex(r"%[A-Za-z0-9_]{0,12}", fullmatch=True) | st.sampled_from(["%", "%1", "%a.b", "%x-y"])
_other = st.sampled_from(["OpIAdd", "OpStore", "OpDecorate", "Location", "1", "-2", "0x1p+1", "1.5", "!3", "=",
                          "Unroll|DontUnroll", "2D", "Op", "x", "$", "Opx"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(_ids, _other), st.sampled_from([" ", "  ", "\t", "   "])), max_size=8),
       st.lists(_ids, min_size=1, max_size=8))
def test_lines_of_one_shape_parse_as_lark_parses_each(words, other_ids):
    """Lines of one shape with ids of other lengths (each layout of lengths is built once and
    shared): each gives what Lark gives for it."""
    from spvls.syntax import parser

    text = "".join(w + sp for w, sp in words)
    for k in range(len(other_ids)):
        swapped = iter(other_ids[k:] + other_ids[:k])
        line = parser._ID.sub(lambda m, swapped=swapped: next(swapped, m.group()), text)
        assert parser.parse_line(line)._replace(shape=None) == parser._parse(line)._replace(shape=None), line


_words = (st.from_regex(r"Op[A-Za-z0-9_]{0,10}", fullmatch=True) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)
          | st.from_regex(r"[-+]?[0-9]{1,6}(\.[0-9]{1,4})?", fullmatch=True))
_glue = st.sampled_from(["=", "|", "1D", "0x1p+1", "!3", "$", "-", ".5", "1e3", "%", "%a.b", "\x0c", "é", "Op|x", "; c", ";"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.one_of(_ids, _words, _glue), st.sampled_from([" ", "  ", "\t", ""])), max_size=8),
       st.lists(_words, min_size=1, max_size=6))
def test_lines_differing_in_their_words_parse_as_lark_parses_each(words, other_words):
    """A shape is parsed by Lark once with each word alone between blanks (Op name, name, integer,
    float) written as a stand-in of its class, and the words put back: each line, with its words
    spelt any other way of the same class, gives what Lark gives for it."""
    from spvls.syntax import parser

    text = "".join(w + sp for w, sp in words).rstrip()
    lines = [text]
    for k in range(len(other_words)):
        swapped = iter(other_words[k:] + other_words[:k])

        def respell(m, swapped=swapped):
            word = next(swapped, m.group())
            return word if parser._stand_in(word) == parser._stand_in(m.group()) else m.group()

        lines.append(parser._WORD.sub(respell, text))
    for line in lines:
        assert parser.parse_line(line)._replace(shape=None) == parser._parse(line)._replace(shape=None), line
        assert parser.parse_line(line).shape == (parser._ID.sub("%", line) if parser.parse_line(line).shape else None)


def test_a_shape_of_abstracted_words_is_the_shape_lark_parses(data_root):
    """Every corpus line's shape: the template built from its words' stand-ins equals Lark's own
    parse of the shape, token for token (kind, text, column)."""
    from spvls.syntax import parser

    shapes = set()
    for path in sorted((data_root / "corpus").rglob("*.asm.*")):
        for text in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            if '"' not in text and ";" not in text:
                shapes.add(parser._ID.sub("%", text))
    abstracted = 0
    for shape in sorted(shapes):
        direct = parser._lark_template(shape)
        derived = parser._template(shape)
        assert (derived and derived.toks) == (direct and direct.toks), shape
        abstracted += len(parser._WORD.split(shape)) > 1
    assert abstracted > 0.9 * len(shapes)


_blanks = st.sampled_from(
    [" ", "  ", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\x01", "\x7f", "\x85", "\xa0", "\u2028"]
    + ["=", " = ", "%", ";", '"', ""]
)


def _regex_split(text):
    from spvls.syntax import parser

    parts = parser._ID_SPLIT.split(text)
    return "%".join(parts[::2]), parts[1::2]


def test_split_ids_splits_lines_as_the_id_regex_does(data_root):
    """The compiled build's split of a line into its shape and ids (a loop over its characters, not
    the regex): on every corpus line with an id, and seeded mangled ones, it gives the regex's split
    or declines (an id beyond ASCII)."""
    import random

    from spvls.syntax import parser

    lines = []
    for path in sorted((data_root / "corpus").rglob("*.asm.*")):
        lines += [t for t in path.read_text(encoding="utf-8", errors="replace").split("\n") if "%" in t]
    rng = random.Random(11)
    for text in rng.sample(lines, 3000):
        i = rng.randrange(len(text) + 1)
        lines.append(text[:i] + rng.choice(["%", "=", "\t", "\x0b", "\x0c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "%%", " ", "x", "\x7f", "é", ";"]) + text[i:])
    taken = 0
    for text in lines:
        ids: list[str] = []
        shape = parser._split_ids(text, ids)
        if shape is not None:
            taken += 1
            assert (shape, ids) == _regex_split(text), text
    assert taken > 0.95 * len(lines)  # it is the common case, not the exception


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.one_of(_ids, _other, _glue), _blanks), max_size=8))
def test_split_ids_splits_any_line_as_the_id_regex_does(words):
    from spvls.syntax import parser

    text = "".join(w + sp for w, sp in words)
    ids: list[str] = []
    shape = parser._split_ids(text, ids)
    assert shape is None or (shape, ids) == _regex_split(text), text
