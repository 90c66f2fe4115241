"""Semantic-token deltas spliced from the document's edit log: applied to what the client holds,
they give exactly a fresh full answer, after any run of random edits."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spvls.checks import analyze
from spvls.features import tokens
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parent
SOURCES = [p.read_text() for p in sorted((ROOT.parent / "examples").glob("*.spvasm"))
           + sorted((ROOT / "data" / "rules").glob("*-pass.spvasm"))]
PIECES = ["", " ", "%", "x", "=", '"', ";", "\t", "\r\n", "\n", "é", "😀", "Op", "%a = OpIAdd %u32 %b %c",
          "OpBranch %entry\n", "%x = OpLabel\n", "1", "%int_1", "%y = OpTypeInt 32 0"]


def utf16(text: str, col: int) -> int:
    return len(text[:col].encode("utf-16-le", "surrogatepass")) // 2


def full(m) -> tuple[list[int], list[int]]:
    data, counts = tokens.encode(m.doc.texts, tokens.semantic_tokens(m), utf16)
    return list(data), counts


edit = st.tuples(st.integers(0, 10_000), st.integers(0, 120), st.integers(0, 2), st.integers(0, 40),
                 st.sampled_from(PIECES))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=st.sampled_from(SOURCES), rounds=st.lists(st.lists(edit, min_size=0, max_size=3), min_size=1, max_size=5))
def test_spliced_delta_equals_a_fresh_full_answer(src, rounds):
    doc = Document(src)
    a = analyze(doc)
    sent = tokens.Sent("1", *full(a.module), a.module)
    client = list(sent.data)
    for edits in rounds:
        for line, col, dl, dc, text in edits:
            sl = line % len(doc.texts)
            doc.replace((sl, col), (min(len(doc.texts) - 1, sl + dl), dc), text)
        a = analyze(doc, previous=a)
        spliced = tokens.splice(sent, a.module, utf16)
        if spliced is None:  # the model was rebuilt: a full answer, diffed, as the server does
            data, counts = full(a.module)
            spliced = tokens.delta(sent.data, data)
            sent = tokens.Sent("1", data, counts, a.module)
        start, deleted, inserted = spliced
        client[start:start + deleted] = inserted
        fresh = analyze(Document(doc.text)).module
        assert client == full(fresh)[0]
        assert list(sent.data) == client


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SOURCES), st.integers(0, 500), st.sampled_from(["x", " ", "1", "%", "é", ""]))
def test_typing_in_a_function_splices_only_that_line(src, pick, char):
    doc = Document(src)
    a = analyze(doc)
    body = [i.line for f in a.module.functions for i in a.module.insts_in(f)
            if i.opname not in ("OpFunction", "OpFunctionEnd", "OpLabel")]
    if not body:
        return
    sent = tokens.Sent("1", *full(a.module), a.module)
    client = list(sent.data)
    n = body[pick % len(body)]
    doc.replace((n, len(doc.texts[n])), (n, len(doc.texts[n])), char)
    a = analyze(doc, previous=a)
    if a.module is not sent.module:
        return  # the edit reached beyond the function (e.g. made an id used elsewhere)
    spliced = tokens.splice(sent, a.module, utf16)
    fn = a.module.function_at(n)
    if spliced is None:  # what callers read of the function changed: their divergence may have too
        assert any(u.opname == "OpFunctionCall" for u in a.module.uses.get(fn.id, ()))
        return
    start, deleted, inserted = spliced
    # That line's tokens and the next one's; when the edit changed which values are divergent
    # (an id becomes undefined, a stored value changes), those of the function the edit is in.
    in_fn = sum(1 for t in tokens.semantic_tokens(a.module, fn.line, fn.end_line)) + 1
    assert deleted <= in_fn * 5 and len(inserted) <= in_fn * 5
    divergent = {t for t in tokens.semantic_tokens(a.module, fn.line, fn.end_line) if t[4] & tokens.DIVERGENT}
    if not divergent and not any(sent_mods & tokens.DIVERGENT for sent_mods in client[4::5]):
        assert deleted <= 10 * 5 and len(inserted) <= 10 * 5
    client[start:start + deleted] = inserted
    assert client == full(analyze(Document(doc.text)).module)[0]


def test_edit_log_gives_one_range_over_several_edits():
    doc = Document("a\nb\nc\nd\ne\nf\n")
    g = doc.generation
    assert doc.changed_since(g) == (0, 0, 0)
    doc.replace((1, 0), (1, 1), "B\nB2")  # line 1 becomes lines 1-2
    doc.replace((5, 0), (5, 1), "E")  # old line 4
    assert doc.changed_since(g) == (1, 4, 5)  # old lines 1-4, now lines 1-5
    doc.replace((0, 0), (2, 0), "")  # lines 0-2 become one line
    assert doc.changed_since(g) == (0, 5, 4)
    assert doc.text == "B2\nc\nd\nE\nf\n"
    assert doc.changed_since(g - 100) is None


def _spliced(edit):
    """A module's tokens kept 8-bit (data and counts), then a body line edited in place by
    edit(doc, line) and spliced: the Sent, the line, the document's fresh encoding. The client's
    data, with the splice applied, equals a fresh full answer."""
    src = next(s for s in SOURCES if "OpFunctionEnd" in s)
    doc = Document(src)
    a = analyze(doc)
    sent = tokens.Sent("1", *tokens.encode(doc.texts, tokens.semantic_tokens(a.module), utf16), a.module)
    assert sent.data.typecode == sent.counts.typecode == "B"
    client = list(sent.data)
    body = [i.line for f in a.module.functions for i in a.module.insts_in(f) if i.opname not in ("OpFunction", "OpFunctionEnd", "OpLabel")]
    n = body[0]
    edit(doc, n)
    a = analyze(doc, previous=a)
    assert a.module is sent.module  # taken in place: spliced
    start, deleted, inserted = tokens.splice(sent, a.module, utf16)
    client[start:start + deleted] = inserted
    assert client == full(analyze(Document(doc.text)).module)[0] == list(sent.data)
    return sent, n, tokens.encode(doc.texts, tokens.semantic_tokens(a.module), utf16)


@pytest.mark.parametrize("indent, typecode", [(300, "H"), (70_000, "i")])
def test_a_value_past_8_or_16_bits_widens_the_kept_array(indent, typecode):
    """The kept data is 8-bit while every value fits; a token past column 255 (spliced in, or in a
    full answer) makes it 16-bit, one past 65,535 32-bit."""
    sent, _, (data, _) = _spliced(lambda doc, n: doc.replace((n, 0), (n, 0), " " * indent))
    assert sent.data.typecode == typecode and max(sent.data) >= indent
    assert data.typecode == typecode and data == sent.data


def test_a_line_of_over_255_tokens_widens_the_kept_counts():
    """Each line's token count is kept 8-bit while every count fits: a line spliced in with 300
    more tokens makes the counts 16-bit."""
    sent, n, (_, counts) = _spliced(lambda doc, n: doc.replace((n, len(doc.texts[n])), (n, len(doc.texts[n])), " %zz" * 300))
    assert sent.counts.typecode == "H" and sent.counts[n] > 300
    assert counts == sent.counts
