"""What is at a cursor (the id under it, what the grammar expects there): shared by the features."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.module import Module
from ..model.operands import match
from ..spec.grammar import GrammarOperand, Instruction
from ..syntax.parser import Line, Token, parse_line


@dataclass(slots=True)
class Cursor:
    line: int
    col: int
    prefix: str  # the word being typed, up to the cursor
    start: int  # where that word starts
    opcode_slot: bool  # typing an instruction name
    has_result: bool  # the line starts with '%x ='
    inst: Instruction | None
    expected: GrammarOperand | None  # the operand the next token fills
    before: tuple[Token, ...]  # operand tokens before the cursor
    ext_set: str | None = None  # OpExtInst: the imported set named on the line
    end: int = -1  # where the word under the cursor ends (the cursor when nothing follows it)
    more: bool = False  # words follow that one on the line (a comment aside)
    ext_inst: Instruction | None = None  # OpExtInst: the set's instruction, once named before the cursor


_WORD = re.compile(r'[%A-Za-z0-9_|."!-]*$')
_WORD_ON = re.compile(r'[%A-Za-z0-9_."!-]*')  # the rest of the word at the cursor (a mask's '|' ends it)


def cursor(m: Module, line_no: int, col: int) -> Cursor | None:
    line = m.doc.line(line_no)
    if line is None or m.doc.span[line_no] == 0:
        return None
    col = max(0, min(col, len(line.text)))
    text = line.text[:col]
    if ";" in re.sub(r'"(\\.|[^"\\])*"', "", text):
        return None  # inside a comment
    found = _WORD.search(text)  # always matches, if only the empty end
    whole = found.group() if found else ""
    word = whole.rsplit("|", 1)[1] if "|" in whole else whole
    start = col - len(word)
    # In a mask (A|B|_) the slot is the mask's: look at what comes before the whole mask.
    head = parse_line(text[: col - len(whole)])
    has_result = head.result is not None or bool(re.match(r"\s*%\S*\s*=", text))
    found_on = _WORD_ON.match(line.text, col)
    end = found_on.end() if found_on else col
    more = bool(line.text[end:].split(";", 1)[0].strip())
    if head.opcode is None:
        return Cursor(line_no, col, word, start, True, has_result, None, None, (), None, end, more)
    ops = tuple(t for t in head.operands)
    probe = Line(text[: col - len(whole)], head.result, head.opcode, ops, None, None)
    mt = match(m.grammar, probe, m.ext_imports)
    expected = mt.pending[0] if mt.pending else None
    ext = None
    if mt.inst and mt.inst.name == "OpExtInst" and len(ops) >= 2:
        ext = m.ext_imports.get(ops[1].text)
    return Cursor(line_no, col, word, start, False, has_result, mt.inst, expected, ops, ext, end, more, mt.ext_inst)


# (line, start, end)
Span = tuple[int, int, int]


def id_at(m: Module, line: int, col: int) -> Token | None:
    src = m.doc.line(line)
    tok = src.token_at(col) if src else None
    return tok if tok is not None and tok.kind == "ID" else None
