"""Formatting in spirv-dis's layout: only whitespace changes, never a token.

spirv-dis starts every opcode at column 15, right-aligning `%result = ` before it (a longer
result pushes the opcode right), and separates operands by one space. A trailing comment keeps
its column when the instruction still ends before it, so hand-aligned comments stay aligned.
Lines that do not parse, comment-only and blank lines, and strings spanning lines are left as
they are, and so is everything after a string left open: spirv-as reads on to its next quote,
wherever that is, so no later blank is known to be outside a string.
"""

from __future__ import annotations

from ..syntax.document import Document
from ..syntax.parser import Line

INDENT = 15  # spirv-dis's kStandardIndent


def formatted(line: Line) -> str | None:
    """The line in spirv-dis's layout, or None to leave it as it is."""
    if line.opcode is None or line.error is not None or "\n" in line.text:
        return None
    body = " ".join(t.text for t in (line.opcode, *line.operands))
    if line.result is not None:
        head = f"{line.result.text} = "
        text = " " * max(0, INDENT - len(head)) + head + body
    else:
        text = " " * INDENT + body
    if line.comment is not None:
        text += " " * max(1, line.comment.start - len(text)) + line.comment.text
    return text


def format_lines(doc: Document, first: int = 0, last: int | None = None) -> list[tuple[int, str, str]]:
    """(line, old text, new text) for each line in [first, last] the layout changes."""
    last = len(doc.lines) - 1 if last is None else min(last, len(doc.lines) - 1)
    out = []
    # A line whose string runs on yet was not joined to later lines: its string is never closed.
    open_at = next((n for n in range(last + 1) if doc.span[n] == 1 and doc.runs_on(n)), last + 1)
    for n in range(max(0, first), min(last, open_at) + 1):
        if doc.span[n] != 1:
            continue
        new = formatted(doc.lines[n])
        old = doc.texts[n]
        if new is not None and new != old:
            out.append((n, old, new))
    return out
