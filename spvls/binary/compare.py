"""Two modules compared by structure: SPIRV-Tools' spirv-diff matches the ids of one module to the
other's (by names, decorations, types and the code's shape, not by their numbers), so the
difference shows what changed, not every renumbered id. Its listing is in the first module's
ids; here they read as spirv-dis's friendly names, and the listing becomes a unified diff."""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import tempfile
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from ..binding import spirv_tools, tools
from . import convert, names, words

CONTEXT = 3  # lines of context around each change, as diff -u
_RESULT = re.compile(r"(%\S+) = (.*)")


class CompareError(ValueError):
    """spirv-diff could not compare the two modules; the message says why."""


@dataclass
class Comparison:
    left: str  # the first module, friendly text
    right: str  # the second, in the first's ids and names: only real changes differ
    diff: str  # a unified diff of the two ('' when they are the same)
    changed: int  # lines removed plus lines added


def _friendly_names(module_words: array) -> dict[int, str]:
    """id number -> spirv-dis's friendly name, for a module."""
    try:
        pairs = names.pair(convert.listing(module_words), convert.listing(module_words, raw_id=True))
    except (words.BinaryError, names.Ambiguous):
        return {}
    return {n: name for name, n in pairs.items() if name != str(n)}


def _listing(a: array, b: array, time_limit: float) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory(prefix="spvls-diff-") as tmp:
        paths = []
        for name, module_words in (("a.spv", a), ("b.spv", b)):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(words.to_bytes(module_words, False))
            paths.append(path)
        run = tools.run("spirv-diff", ["--no-color", *paths], time_limit=time_limit)
    if run.returncode != 0:
        raise CompareError(f"spirv-diff cannot compare them: {run.stderr.strip() or f'exit {run.returncode}'}")
    out = []
    for line in run.stdout.decode("utf-8", "replace").splitlines():
        tag, body = (line[:1], line[1:]) if line[:1] in ("-", "+", " ") else (" ", line)
        out.append((tag, body))
    return out


def _renamer(left: dict[int, str], right: dict[int, str]) -> Callable[[str], str]:
    """Each number as the first module's name, else (an id only the second has) the second's,
    made unique."""
    taken = set(left.values())
    extra: dict[int, str] = {}
    for n, name in sorted(right.items()):
        if n in left:
            continue
        candidate, k = name, 0
        while candidate in taken:
            candidate, k = f"{name}_{k}", k + 1
        taken.add(candidate)
        extra[n] = candidate

    def one(mt: re.Match) -> str:
        token = mt.group()
        if token[0] != "%" or not (token[1:].isascii() and token[1:].isdigit()):
            return token  # a string or a comment
        n = int(token[1:])
        return "%" + (left.get(n) or extra.get(n) or token[1:])

    def rename(line: str) -> str:
        renamed = names.TOKEN.sub(one, line)
        if renamed == line or not line.startswith(" "):
            return line
        # Realigned as spirv-dis aligns: results right-aligned to column 12, opcodes at 15.
        body = renamed.strip()
        result = _RESULT.match(body)
        return f"{result.group(1):>12} = {result.group(2)}" if result else " " * 15 + body

    return rename


def _right_words(listing: list[tuple[str, str]]) -> array | None:
    """The second module in the first's ids, assembled (for the names of the ids it adds)."""
    text = "\n".join(body for tag, body in listing if tag != "-")
    words_ = spirv_tools.assemble(text, convert.env_for(text, None), preserve_numeric_ids=True)
    return None if isinstance(words_, spirv_tools.Failure) else words_


def _same_lines_kept(listing: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """spirv-diff lists some instructions it does not match (OpDecorateString, for one) as removed
    and added although they read the same: within each run of changes, lines that read the same on
    both sides become context, in order."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(listing):
        if listing[i][0] == " ":
            out.append(listing[i])
            i += 1
            continue
        j = i
        while j < len(listing) and listing[j][0] != " ":
            j += 1
        minus = [body for tag, body in listing[i:j] if tag == "-"]
        plus = [body for tag, body in listing[i:j] if tag == "+"]
        for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, minus, plus, autojunk=False).get_opcodes():
            if op == "equal":
                out += [(" ", body) for body in minus[a0:a1]]
            else:
                out += [("-", body) for body in minus[a0:a1]] + [("+", body) for body in plus[b0:b1]]
        i = j
    return out


def unified(listing: list[tuple[str, str]], name_a: str, name_b: str, context: int = CONTEXT) -> str:
    """A unified diff (`--- a`, `+++ b`, `@@` hunks) of a listing of tagged lines."""
    changes = [i for i, (tag, _) in enumerate(listing) if tag != " "]
    if not changes:
        return ""
    out = [f"--- {name_a}", f"+++ {name_b}"]
    # Line numbers of each listing entry on each side (1-based, of the line or of the one before).
    left_no, right_no, a, b = [], [], 0, 0
    for tag, _ in listing:
        a += tag != "+"
        b += tag != "-"
        left_no.append(a)
        right_no.append(b)
    groups: list[list[int]] = []
    for i in changes:
        if groups and i - groups[-1][-1] <= 2 * context + 1:
            groups[-1].append(i)
        else:
            groups.append([i])
    for g in groups:
        lo, hi = max(0, g[0] - context), min(len(listing), g[-1] + context + 1)
        part = listing[lo:hi]
        a_len = sum(1 for tag, _ in part if tag != "+")
        b_len = sum(1 for tag, _ in part if tag != "-")
        a_start = left_no[lo] - (listing[lo][0] != "+") + (1 if a_len else 0)
        b_start = right_no[lo] - (listing[lo][0] != "-") + (1 if b_len else 0)
        out.append(f"@@ -{a_start},{a_len} +{b_start},{b_len} @@")
        out += [tag + body for tag, body in part]
    return "\n".join(out) + "\n"


def compare(
    a: array, b: array, name_a: str = "a", name_b: str = "b", time_limit: float = tools.TIME_LIMIT
) -> Comparison:
    """Raises CompareError, tools.Missing, TimeoutError, spirv_tools.Unavailable."""
    if a == b:  # spirv-diff leaves some ids of a module unmatched even against itself
        with contextlib.suppress(words.BinaryError):
            text = convert.listing(a)
            return Comparison(text, text, "", 0)
    listing = _listing(a, b, time_limit)
    right = _right_words(listing)
    rename = _renamer(_friendly_names(a), _friendly_names(right) if right is not None else {})
    listing = _same_lines_kept([(tag, rename(body)) for tag, body in listing])
    return Comparison(
        "\n".join(body for tag, body in listing if tag != "+") + "\n",
        "\n".join(body for tag, body in listing if tag != "-") + "\n",
        unified(listing, name_a, name_b),
        sum(1 for tag, _ in listing if tag != " "),
    )
