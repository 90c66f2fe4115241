"""syntax.*: the text does not parse."""

from __future__ import annotations

import re

from ...binding.text import LONE, utf8
from ...model.module import Module
from ...syntax.parser import VALID_ID, Line, LineFields
from ..diagnostic import ERROR, WARNING, Diagnostic, at
from ..family import Family, Rule
from ..scope import Scope, line_range

# In a line with a shape (no strings or comments) every '%' starts an id: one search clears them all.
# A '%' with no id character after it, or whose id characters run into one that is neither a blank
# nor '='. Written so that each '%' is tried once, possessively (the two alternatives it stands for,
# '%(?![A-Za-z0-9_])|%[A-Za-z0-9_]+[^\sA-Za-z0-9_=]', try each '%' twice and backtrack).
_BAD_ID = re.compile(r"%[A-Za-z0-9_]*+(?:(?<=%)|[^\sA-Za-z0-9_=])")


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    texts, span = m.doc.texts, m.doc.span
    ascii_, clean = False, False
    numbers = line_range(m, scope)
    if scope is None:  # one search of the whole text clears every one-line instruction at once
        whole = "\n".join(texts)
        ascii_, clean = whole.isascii(), _BAD_ID.search(whole) is None
        if ascii_ and clean:  # only these lines can have something to say
            # A line's shape read as its item (`line[1]`, LineFields' second), its error only where it
            # is a NotedLine (a plain Line has none): the compiled build reads a tuple item, not a field
            # of Line (a class it does not compile) by name, for every line.
            numbers = [
                n
                for n, line in enumerate(m.doc.lines)
                if line[1] is None or span[n] != 1 or (type(line) is not Line and line.error)
            ]
    for n in numbers:
        line = m.doc.lines[n]
        e = line.error if type(line) is not Line else None  # (see above)
        if e is not None:
            out.append(at(n, e, ERROR, "syntax.parse", e.message))
        if not ascii_ and not texts[n].isascii():
            out.extend(_lone_surrogates(m, n, line))
        fields: LineFields = line
        if fields.shape is not None and ((clean and span[n] == 1) or not _BAD_ID.search(fields.text)):
            continue
        for tok in (line.result, *line.operands):
            if tok is not None and tok.kind == "ID" and not VALID_ID.fullmatch(tok.text):
                out.append(
                    at(
                        n,
                        tok,
                        ERROR,
                        "syntax.bad-id",
                        f"invalid id {tok.text!r}: an id is '%' followed by letters, "
                        "digits and '_' (spirv-as accepts no other characters)",
                    )
                )
    return out


def _lone_surrogates(m: Module, n: int, line: Line) -> list[Diagnostic]:
    """Each lone surrogate is a character no UTF-8 file can hold: saved, it becomes bytes that are
    not UTF-8 (or "?"). Given those bytes, spirv-as skips them in a comment, copies them into a
    string and rejects them anywhere else, as any unknown character."""
    out = []
    for hit in LONE.finditer(m.doc.texts[n]):  # this line's own text (line.text holds a whole instruction)
        col, ch = hit.start(), hit.group()
        what = f"U+{ord(ch):04X} is half of a UTF-16 surrogate pair, not a character"
        tok = line.token_at(col)
        kind = tok.kind if tok is not None else "STRING" if m.doc.span[n] == 0 else None
        if kind == "COMMENT":
            severity, message = WARNING, f"{what}: a file cannot hold it as UTF-8 (in a comment, spirv-as skips it)"
        elif kind == "STRING":
            severity, message = (
                ERROR,
                f"{what}: a literal string is UTF-8, which cannot hold it "
                f"(spirv-as would copy its bytes {utf8(ch).hex(' ').upper()} into the module)",
            )
        else:
            severity, message = ERROR, f"{what}: SPIR-V assembly is UTF-8 text, which cannot hold it"
        out.append(Diagnostic(n, col, col + 1, severity, "syntax.encoding", message))
        if len(out) >= 10:
            break
    return out


FAMILY = Family(
    name="syntax",
    prefix="syntax",
    summary="the text does not parse (bad token, unterminated string, invalid id characters, text UTF-8 cannot hold).",
    rules=(
        Rule("syntax.parse", "a line that is not SPIR-V assembly."),
        Rule("syntax.bad-id", "an id with a character spirv-as does not accept."),
        Rule("syntax.encoding", "text that UTF-8 cannot hold, or bytes that are not UTF-8."),
    ),
    check=check,
    linewise=True,
)
