"""Semantic tokens: what each token is, with a modifier for the four extensions' symbols."""
from __future__ import annotations

from ..model.module import Module
from ..spec import docs

TOKEN_TYPES = ["keyword", "variable", "type", "function", "namespace", "enumMember", "number", "string",
               "comment", "parameter"]
TOKEN_MODIFIERS = ["declaration", "extension"]  # extension: from one of the four documented extensions
_NUM = {"INT": "number", "FLOAT": "number", "RAW": "number", "STRING": "string", "COMMENT": "comment"}


def _id_type(m: Module, id_: str) -> str:
    d = m.definition(id_)
    if d is None:
        return "variable"
    op = d.opname
    if op.startswith("OpType"):
        return "type"
    if op == "OpFunction":
        return "function"
    if op == "OpLabel":
        return "namespace"
    if op == "OpFunctionParameter":
        return "parameter"
    return "variable"


TYPE_INDEX = {t: i for i, t in enumerate(TOKEN_TYPES)}
DECLARATION, EXTENSION = 1, 2  # modifier bits, in TOKEN_MODIFIERS order
# (line, start, length, type index, modifier bits); columns in code points
SemToken = tuple[int, int, int, int, int]


def semantic_tokens(m: Module, first: int = 0, last: int | None = None) -> list[SemToken]:
    """Every token's meaning, in document order."""
    out: list[SemToken] = []
    lines = m.doc.lines
    last = len(lines) - 1 if last is None else min(last, len(lines) - 1)
    # Per line, kept while the line object is the same. An edit the model takes in place only
    # touches lines inside a function body, where every id is a value: what an id is (type,
    # function, label, parameter, value) never changes for lines it did not touch.
    cache = m.memo.setdefault("tokens", {})
    for n in range(max(first, 0), last + 1):
        line = lines[n]
        hit = cache.get(n)
        if hit is None or hit[0] is not line:
            hit = cache[n] = (line, _line_tokens(m, n, line))
        out.extend(hit[1])
    return out


def _line_tokens(m: Module, n: int, line) -> tuple[SemToken, ...]:
    out = []
    for tok in line.tokens:
        mods = 0
        if tok.kind == "OPNAME":
            kind = "keyword"
            if docs.extension_of(tok.text):
                mods = EXTENSION
        elif tok.kind == "ID":
            kind = _id_type(m, tok.text)
            if line.result is tok:
                mods = DECLARATION
        elif tok.kind == "WORD":
            kind = "enumMember"
            if any(docs.extension_of(p) for p in tok.text.split("|")):
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


def delta(old: list[int], new: list[int], chunk: int = 4096) -> tuple[int, int, list[int]]:
    """One edit turning old into new: (start, how many to delete, what to insert). The common ends
    are found a chunk at a time, so a keystroke in a 100k-line module costs milliseconds."""
    n = min(len(old), len(new))
    start = 0
    while start + chunk <= n and old[start:start + chunk] == new[start:start + chunk]:
        start += chunk
    while start < n and old[start] == new[start]:
        start += 1
    end = 0  # common suffix length, not overlapping the prefix
    room = n - start
    while end + chunk <= room and old[len(old) - end - chunk:len(old) - end] == new[len(new) - end - chunk:len(new) - end]:
        end += chunk
    while end < room and old[len(old) - end - 1] == new[len(new) - end - 1]:
        end += 1
    return start, len(old) - start - end, new[start:len(new) - end]
