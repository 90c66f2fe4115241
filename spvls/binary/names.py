"""The names a disassembly shows and the binary's id numbers behind them.

spirv-dis names ids after OpName and after their types and values (`%uint_1`); the editor
shows those. Pairing the friendly disassembly with the raw one (same instructions, same
strings, only the ids spelt differently) gives each shown name its number, so a saved text
can be numbered as the binary was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Strings first (they may hold `;`, `%` and newlines: spirv-dis prints OpSource text as is),
# then comments, then ids as spirv-as reads them.
TOKEN = re.compile(r'"(?:\\[\s\S]|[^"\\])*"|;[^\n]*|%[^\s;="]*')


def ids_in(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of every id token outside strings and comments; name without `%`."""
    for m in TOKEN.finditer(text):
        if m.group()[0] == "%":
            yield m.start(), m.end(), m.group()[1:]


class Ambiguous(ValueError):
    """One shown name stands for two ids (or the reverse): the names cannot be numbered back."""


def pair(friendly: str, raw: str) -> dict[str, int]:
    """Each name of the friendly disassembly -> its id number, from the raw disassembly of the
    same module. Numbers written as themselves (`%12`) map to themselves unless a friendly name
    already means another id."""
    a = [t[1:] for t in TOKEN.findall(friendly) if t[0] == "%"]
    b = [t[1:] for t in TOKEN.findall(raw) if t[0] == "%"]
    if len(a) != len(b):
        raise Ambiguous("the friendly and raw disassemblies differ in their ids")
    pairs = set(zip(a, b, strict=True))
    names = {name: int(num) for name, num in pairs}
    if len(names) != len(pairs) or len(set(names.values())) != len(pairs):
        raise Ambiguous("a friendly name stands for two ids, or an id has two names")
    for n in set(names.values()):
        names.setdefault(str(n), n)
    return names


def renumber(text: str, names: dict[str, int], first_free: int) -> tuple[str, int]:
    """The text with every id written as its number: known names as `names` says, every other
    name a fresh number from `first_free` on (in order of first use). Returns the text and the
    id bound it needs."""
    fresh: dict[str, int] = {}
    out: list[str] = []
    last = 0
    top = max(names.values(), default=0)
    for start, end, name in ids_in(text):
        n = names.get(name)
        if n is None:
            n = fresh.get(name)
            if n is None:
                n = fresh[name] = first_free + len(fresh)
        top = max(top, n)
        out.append(text[last:start])
        out.append(f"%{n}")
        last = end
    out.append(text[last:])
    return "".join(out), top + 1


def instruction_lines(text: str, count: int | None = None) -> list[int]:
    """The 0-based line where each instruction of a disassembly starts: not blank, not a
    comment, and not a line inside a string that runs over several lines. With the number of
    instructions known, a text whose plain lines already match it needs no string scan."""
    if count is not None:
        plain = [n for n, line in enumerate(text.split("\n")) if line.strip() and not line.lstrip().startswith(";")]
        if len(plain) == count:  # a string's extra lines would only add to these
            return plain
    inside = [(m.start(), m.end()) for m in TOKEN.finditer(text) if m.group()[0] == '"' and "\n" in m.group()]
    starts: list[int] = []
    offset = 0
    k = 0
    for n, line in enumerate(text.split("\n")):
        while k < len(inside) and inside[k][1] <= offset:
            k += 1
        in_string = k < len(inside) and inside[k][0] < offset
        body = line.strip()
        if body and not in_string and not body.startswith(";"):
            starts.append(n)
        offset += len(line) + 1
    return starts
