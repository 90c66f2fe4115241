"""Semantic tokens: what each token is, with a modifier for the four extensions' symbols and one for
values that are divergent (model.uniformity)."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence

from ..model import uniformity as uni
from ..model.module import Function, Module
from ..spec import extension_docs
from ..syntax.parser import Line

TOKEN_TYPES = [
    "keyword",
    "variable",
    "type",
    "function",
    "namespace",
    "enumMember",
    "number",
    "string",
    "comment",
    "parameter",
]
# extension: from one of the four documented extensions; divergent: a value not uniform across the
# whole draw or dispatch
TOKEN_MODIFIERS = ["declaration", "extension", "divergent"]
_NUM = {"INT": "number", "FLOAT": "number", "RAW": "number", "STRING": "string", "COMMENT": "comment"}


def _id_type(m: Module, id_: str) -> str:
    d = m.definition(id_)
    if d is None:
        return "variable"
    op = d.opname
    if d.is_type:
        return "type"
    if op == "OpFunction":
        return "function"
    if op == "OpLabel":
        return "namespace"
    if op == "OpFunctionParameter":
        return "parameter"
    return "variable"


TYPE_INDEX = {t: i for i, t in enumerate(TOKEN_TYPES)}
DECLARATION, EXTENSION, DIVERGENT = 1, 2, 4  # modifier bits, in TOKEN_MODIFIERS order
# (line, start, length, type index, modifier bits); columns in code points
SemToken = tuple[int, int, int, int, int]
# A code-point column of a line's text in the units the client negotiated
Column = Callable[[str, int], int]


def semantic_tokens(m: Module, first: int = 0, last: int | None = None) -> list[SemToken]:
    """Every token's meaning, in document order."""
    return list(iter_tokens(m, first, last))


def iter_tokens(m: Module, first: int = 0, last: int | None = None) -> Iterator[SemToken]:
    """semantic_tokens one line at a time: a large module has hundreds of thousands of tokens, and a
    list of them all (or a cache of each line's) would hold memory the encoded answer does not need."""
    lines = m.doc.lines
    last = len(lines) - 1 if last is None else min(last, len(lines) - 1)
    fn: Function | None = None
    divergent: dict[str, uni.Fact] = {}
    for n in range(max(first, 0), last + 1):
        line = lines[n]
        if line.opcode is not None or line.result is not None or line.comment is not None or line.operands:
            if fn is None or not fn.line <= n <= fn.end_line:
                fn = m.function_at(n)
                divergent = uni.analyse(m, fn).values if fn is not None else {}
            yield from _line_tokens(m, n, line, divergent)


def _line_tokens(m: Module, n: int, line: Line, divergent: dict[str, uni.Fact]) -> tuple[SemToken, ...]:
    out = []
    for tok in line.tokens:
        mods = 0
        if tok.kind == "OPNAME":
            kind = "keyword"
            if extension_docs.extension_of(tok.text):
                mods = EXTENSION
        elif tok.kind == "ID":
            kind = _id_type(m, tok.text)
            if line.result is tok:
                mods = DECLARATION
            if tok.text in divergent and divergent[tok.text][0] < uni.ALL:
                mods |= DIVERGENT
        elif tok.kind == "WORD":
            kind = "enumMember"
            if any(extension_docs.extension_of(p) for p in tok.text.split("|")):
                mods = EXTENSION
        elif tok.kind in _NUM:
            kind = _NUM[tok.kind]
        else:
            continue
        t = TYPE_INDEX[kind]
        if "\n" in tok.text:  # a multi-line string: one token per physical line
            ln, col = n, tok.start
            for piece in tok.text.split("\n"):
                out.append((ln, col, len(piece), t, mods))
                ln, col = ln + 1, 0
            continue
        out.append((n, tok.start, tok.end - tok.start, t, mods))
    return tuple(out)


def delta(old: Sequence[int], new: Sequence[int], chunk: int = 4096) -> tuple[int, int, list[int]]:
    """One edit turning old into new: (start, how many to delete, what to insert). The common ends
    are found a chunk at a time, so a keystroke in a 100k-line module costs milliseconds."""
    n = min(len(old), len(new))
    start = 0
    while start + chunk <= n and old[start : start + chunk] == new[start : start + chunk]:
        start += chunk
    while start < n and old[start] == new[start]:
        start += 1
    end = 0  # common suffix length, not overlapping the prefix
    room = n - start
    while (
        end + chunk <= room
        and old[len(old) - end - chunk : len(old) - end] == new[len(new) - end - chunk : len(new) - end]
    ):
        end += chunk
    while end < room and old[len(old) - end - 1] == new[len(new) - end - 1]:
        end += 1
    return start, len(old) - start - end, list(new[start : len(new) - end])


class Sent:
    """Tokens as last sent for a document, LSP-encoded, with each line's token count: after an edit
    the model took in place, only the edited lines are encoded again and spliced in. The data is
    kept as an array of 8-bit integers while every value fits, else 16-bit (see packed): an eighth
    of a list's size. So are the counts (see narrow)."""

    __slots__ = ("counts", "data", "generation", "module", "result_id", "summaries")

    def __init__(self, result_id: str, data: Sequence[int], counts: Sequence[int], module: Module):
        self.result_id = result_id
        self.counts = counts if isinstance(counts, array) else narrow(array("i", counts))
        self.data = data if isinstance(data, array) else packed(array("B"), list(data))
        self.module, self.generation = module, module.doc.generation
        # What each function's callers read of it: while that stays, an edit changes divergence
        # only inside the edited function. The summaries themselves (the analyses hold them; an
        # analysis made again makes a new one): their keys are compared only for an edited function.
        self.summaries = {f.id: uni.analyse(module, f).summary for f in module.functions}


_WIDER = {"B": "H", "H": "i"}
WIDTHS = "BHi"  # the kept data's typecodes, narrowest first


def packed(out: array, values: list[int]) -> array:
    """out with values appended: 8-bit while they fit (line gaps, columns and lengths under 256,
    as in most files), else 16-bit (under 65,536: nearly always), else the whole array as 32-bit
    integers."""
    while True:
        try:
            out.fromlist(values)  # unchanged when a value does not fit
            return out
        except OverflowError:
            out = array(_WIDER[out.typecode], out)


def narrow(values: array) -> array:
    """values in the narrowest array of WIDTHS that holds them all."""
    for code in WIDTHS:
        if code == values.typecode:
            break
        try:
            return array(code, values)
        except OverflowError:
            continue
    return values


def _alike(a: array, b: array) -> tuple[array, array]:
    """a and b as arrays of one width, the wider of theirs."""
    if a.typecode == b.typecode:
        return a, b
    wide = max(a.typecode, b.typecode, key=WIDTHS.index)
    return array(wide, a) if a.typecode != wide else a, array(wide, b) if b.typecode != wide else b


FLUSH = 1 << 14  # integers gathered in a list before they join the array


def encode(
    texts: list[str],
    toks: Iterable[SemToken],
    column: Column,
    lo: int = 0,
    hi: int | None = None,
    prev_line: int = 0,
) -> tuple[array, array]:
    """LSP's relative encoding of the tokens of lines lo..hi-1 (the first relative to prev_line, the
    last line before lo with a token), as an array (see packed), and each line's token count (an
    array too, see narrow).
    `column(text, col)` turns a code-point column into the negotiated units; it is called only on
    lines that are not ASCII. The integers pass through a short list on their way to the array: a
    list of them all would raise the server's peak on a large module."""
    hi = len(texts) if hi is None else hi
    out = array("B")
    data: list[int] = []
    counts = array("i", [0]) * (hi - lo)
    prev_col = run = 0  # run: the tokens seen on text_line
    text_line, ascii_line, text = -1, True, ""
    for line, start, length, kind, mods in toks:
        if line != text_line:
            if run:
                counts[text_line - lo] += run
                run = 0
            text_line = line
            text = texts[line] if 0 <= line < len(texts) else ""
            ascii_line = text.isascii()
            if len(data) >= FLUSH:
                out = packed(out, data)
                data.clear()
        if not ascii_line:
            col = column(text, start)
            start, length = col, column(text, start + length) - col
        if line == prev_line:
            data += (0, start - prev_col, length, kind, mods)
        else:
            data += (line - prev_line, start, length, kind, mods)
        prev_line, prev_col = line, start
        run += 1
    if run:
        counts[text_line - lo] += run
    return packed(out, data), narrow(counts)


def splice(sent: Sent, m: Module, column: Column) -> tuple[int, int, list[int]] | None:
    """Bring `sent` up to the module's document by encoding only the lines edited since it was sent;
    returns the one edit (start, how many to delete, what to insert) that does the same to the data
    the client holds. None when only a full answer will do: the model was rebuilt (what an id is may
    have changed anywhere) or the document's edit log no longer reaches back."""
    doc = m.doc
    if m is not sent.module:
        return None
    changed = doc.changed_since(sent.generation)
    if changed is None:
        return None
    lo, old_n, new_n = changed
    fn = m.function_at(lo) if old_n == new_n else None
    if fn is not None and lo + old_n - 1 <= fn.end_line:
        # Which values are divergent may change anywhere in the function, and in its callers when
        # what they read of it changed.
        now, then = uni.analyse(m, fn).summary, sent.summaries.get(fn.id)
        if (
            now is not then
            and (then is None or now.key() != then.key())
            and any(u.opname == "OpFunctionCall" for u in m.uses.get(fn.id, ()))
        ):
            return None
        lo, old_n, new_n = fn.line, fn.end_line - fn.line + 1, fn.end_line - fn.line + 1
    counts, data = sent.counts, sent.data
    if lo + old_n > len(counts) or len(counts) - old_n + new_n != len(doc.lines):
        return None
    first = sum(counts[:lo])  # tokens before the edited lines
    gone = sum(counts[lo : lo + old_n])
    p = lo - 1
    while p >= 0 and not counts[p]:
        p -= 1
    fresh, fresh_counts = encode(doc.texts, semantic_tokens(m, lo, lo + new_n - 1), column, lo, lo + new_n, max(p, 0))
    after = first + gone  # the next token: its line delta now counts from another line
    if after * 5 < len(data):
        q = lo + old_n
        while not counts[q]:
            q += 1
        last = lo + new_n - 1
        while last >= lo and not fresh_counts[last - lo]:
            last -= 1
        if last < lo:
            last = max(p, 0)
        fresh = packed(fresh, [q + new_n - old_n - last, *data[after * 5 + 1 : after * 5 + 5]])
        gone += 1
    start, deleted = first * 5, gone * 5
    # A value past 8 (or 16) bits, here or there: both as wide.
    data, fresh = _alike(data, fresh)
    counts, fresh_counts = _alike(counts, fresh_counts)
    sent.data, sent.counts = data, counts
    s, d, ins = delta(data[start : start + deleted], fresh)
    data[start : start + deleted] = fresh
    counts[lo : lo + old_n] = fresh_counts
    sent.generation = doc.generation
    return start + s, d, ins
