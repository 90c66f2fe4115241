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


def semantic_tokens(m: Module, first: int = 0, last: int | None = None) -> list[tuple[int, int, int, str, set]]:
    """(line, start, length, type, modifiers), in document order."""
    out = []
    last = len(m.doc.lines) - 1 if last is None else min(last, len(m.doc.lines) - 1)
    for n in range(max(first, 0), last + 1):
        line = m.doc.lines[n]
        for tok in line.tokens:
            mods: set = set()
            if tok.kind == "OPNAME":
                kind = "keyword"
                if docs.extension_of(tok.text):
                    mods.add("extension")
            elif tok.kind == "ID":
                kind = _id_type(m, tok.text)
                if line.result is tok:
                    mods.add("declaration")
            elif tok.kind == "WORD":
                kind = "enumMember"
                if any(docs.extension_of(p) for p in tok.text.split("|")):
                    mods.add("extension")
            elif tok.kind in _NUM:
                kind = _NUM[tok.kind]
            else:
                continue
            if "\n" in tok.text:  # a multi-line string: one token per physical line
                ln, col = n, tok.start
                for piece in tok.text.split("\n"):
                    out.append((ln, col, len(piece), kind, mods))
                    ln, col = ln + 1, 0
                continue
            out.append((n, tok.start, tok.end - tok.start, kind, mods))
    return out
