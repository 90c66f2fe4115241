"""A document as a list of parsed lines; an edit re-parses only the lines it touches."""

from __future__ import annotations

import re
from array import array

from ..compiled import let_others_run
from .heap import building
from .parser import Line, Stats, forget_ids, parse_line, parse_lines, version_from_comment

# spirv-as lets a string run over several lines, in any instruction (in practice it is embedded
# source text). A string token: up to the closing quote, a backslash escaping any character
# (a newline too); possessive, so a 1 MB string needs no regex frame per character.
_MAX_JOIN = 20000
_UNPARSED = Line("", None, None, (), None, None)  # a slot _regroup has yet to fill
_STRING_OR_COMMENT = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+("?)|;')
_STRING_REST = re.compile(r'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+("?)')


def _ends_inside(text: str, inside: bool = False) -> bool:
    """Whether a line ends inside a string, given whether it starts inside one."""
    pos = 0
    if inside:
        m = _STRING_REST.match(text)
        assert m is not None  # every part of the pattern may match empty
        if not m.group(1):
            return True
        pos = m.end()
    for m in _STRING_OR_COMMENT.finditer(text, pos):
        if m.group() == ";":
            return False
        if not m.group(1):
            return True
    return False


def _blank(text: str) -> Line:
    """A physical line that belongs to the string started on an earlier line."""
    return Line(text, None, None, (), None, None)


_BREAK = re.compile(r"(\r\n|\r|\n)")


# A high surrogate then a low one: the two halves of one character beyond U+FFFF.
_PAIR = re.compile(
    f"[{chr(0xD800)}-{chr(0xDBFF)}][{chr(0xDC00)}-{chr(0xDFFF)}]"
)  # chr: a compiled build cannot hold lone surrogates in a literal


def paired(text: str) -> str:
    """The text with each surrogate pair made the one character it stands for. A client whose text
    is UTF-16 (VS Code) holds a pair typed half by half, or an edit that ends between two halves,
    as that character, and JSON decodes "\\ud83d\\ude00" as one: so must we, or every column
    after it differs from a fresh open's (fuzzer: pull diagnostics differed in utf-8)."""
    if text.isascii() or _PAIR.search(text) is None:
        return text
    return _PAIR.sub(lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)


def _split(text: str) -> tuple[list[str], list[str] | None]:
    """Lines split on \\n, \\r\\n and lone \\r, as LSP splits them, and the terminator after each
    ('' after the last), None when each is '\\n' but the last."""
    if "\r" not in text:  # the common case: str.split, far faster than the regex on an open
        return text.split("\n"), None
    parts = _BREAK.split(text)
    return parts[0::2], parts[1::2] + [""]


def _lf(n: int) -> list[str]:
    """The terminators of n lines that each end in '\\n' but the last."""
    return ["\n"] * (n - 1) + [""]


def _ones(n: int) -> array:
    return array("H", _ONE) * n


_ONE = (1,)
_CHUNK = 1024  # lines parsed between points where another thread may run (see let_others_run)
_LOG_MAX = 4096  # edits remembered between analyses; past it, the next analysis is whole


class Document:
    def __init__(self, text: str = "", uri: str = "", version: int = 0):
        self.uri = uri
        self.version = version
        self.texts: list[str] = []
        self.lines: list[Line] = []
        # span[i]: physical lines in the instruction that starts at i; 0 on a continuation. 16-bit
        # (a string joins at most _MAX_JOIN lines): a quarter of a list's size.
        self.span = _ones(0)
        # Each line's terminator (see `breaks`); None while each is "\n" but the last (most texts).
        self._breaks: list[str] | None = None
        self.generation = 0  # bumped on every edit; later layers key caches on it
        # (generation, first line, lines it replaced, lines it holds now) per edit, the newest last:
        # what changed since a generation, so a feature can redo only those lines.
        self.edits: list[tuple[int, int, int, int]] = []
        # The lines each edit since `_since` touched in place (same line count, same grouping), by
        # the generation it made; any other edit restarts it. Readers ask `touched_since`.
        self._since = 0
        self._in_place: list[tuple[int, range]] = []
        self.set_text(text)

    @property
    def text(self) -> str:
        if self._breaks is None:
            return "\n".join(self.texts)
        return "".join(t + b for t, b in zip(self.texts, self._breaks, strict=False))

    @property
    def breaks(self) -> list[str]:
        """Each line's terminator ('' after the last): a lone CR typed before an LF makes one CRLF
        break with it."""
        return _lf(len(self.texts)) if self._breaks is None else self._breaks

    def lf_only(self) -> bool:
        """Whether every line but the last ends in "\\n" (and the last in nothing)."""
        b = self._breaks
        return b is None or (b[-1] == "" and b.count("\n") == len(b) - 1)

    def _break(self, n: int) -> str:
        if self._breaks is None:
            return "\n" if n < len(self.texts) - 1 else ""
        return self._breaks[n]

    def line(self, n: int) -> Line | None:
        return self.lines[n] if 0 <= n < len(self.lines) else None

    def clamp(self, line: int, col: int) -> tuple[int, int]:
        """A position inside the document: out-of-range positions snap to the nearest end."""
        if line < 0:
            return 0, 0
        if line >= len(self.texts):
            return len(self.texts) - 1, len(self.texts[-1])
        return line, max(0, min(col, len(self.texts[line])))

    def replace(self, start: tuple[int, int], end: tuple[int, int], new_text: str) -> range:
        """Replace text between two (line, column) positions (code points).

        Returns the range of line numbers that now hold the edited text.
        """
        (sl, sc), (el, ec) = self.clamp(*start), self.clamp(*end)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        raw = paired(self.texts[sl][:sc] + new_text + self.texts[el][ec:] + self._break(el))
        if sl > 0 and raw.startswith("\n") and self._break(sl - 1) == "\r":
            sl -= 1  # the line before ends in a lone CR: with this LF it is one break
            raw = self.texts[sl] + "\r" + raw
        fresh, split_breaks = _split(raw)
        breaks = _lf(len(fresh)) if split_breaks is None else split_breaks
        if self._break(el):  # raw ends with the last line's own break: nothing after it is ours
            fresh.pop()
            breaks.pop()
        quoted = '"' in new_text or any('"' in t for t in self.texts[sl : el + 1])
        old_span = self.span[sl : el + 1]
        last_line = el == len(self.texts) - 1
        self.texts[sl : el + 1] = fresh
        if self._breaks is not None:
            self._breaks[sl : el + 1] = breaks
        elif any(b != "\n" for b in breaks[:-1]) or breaks[-1] != ("" if last_line else "\n"):
            self._breaks = _lf(len(self.texts) - len(fresh) + el - sl + 1)  # as they were
            self._breaks[sl : el + 1] = breaks
        self.lines[sl : el + 1] = [_UNPARSED] * len(fresh)
        self.span[sl : el + 1] = _ones(len(fresh))
        top = sl
        k = sl - 1
        while k >= 0 and self.span[k] == 0:
            k -= 1
        # Re-read from the previous instruction when the edit may join or split its string.
        if k >= 0 and (k + self.span[k] > sl or any(n == 0 for n in old_span) or _ends_inside(self.texts[k])):
            top = k
        # A quote typed or deleted may close (or reopen) a string left open further up.
        if quoted:
            above = self._unclosed_above(sl)
            if above is not None and above < top:
                top = above
        if top < sl:
            self.span[top:sl] = _ones(sl - top)  # as _regroup expects
        last = self._regroup(top, sl + len(fresh))
        forget_ids()
        self.generation += 1
        stop = max(last, sl + len(fresh))  # lines top..stop were parsed again
        self._log(top, stop - top - len(fresh) + el - sl + 1, stop - top)
        if len(fresh) == el - sl + 1 and top == sl and last == sl + len(fresh) and len(self._in_place) < _LOG_MAX:
            self._in_place.append((self.generation, range(sl, sl + len(fresh))))
        else:
            self._restart_log()
        return range(sl, sl + len(fresh))

    def _restart_log(self) -> None:
        self._since = self.generation
        self._in_place = []

    def touched_since(self, generation: int | None) -> set[int] | None:
        """The lines edited after `generation`, each edit keeping the line count and grouping; None
        when lines moved since then (or it is unknown)."""
        if generation is None or generation < self._since or generation > self.generation:
            return None
        out: set[int] = set()
        for g, lines in reversed(self._in_place):
            if g <= generation:
                break
            out.update(lines)
        return out

    def set_text(self, text: str) -> None:
        removed = len(self.texts)
        # Split first: its strings are no work for the cycle collector, and their count is the size
        # `building` asks for, without another pass over the text.
        texts, breaks = _split(paired(text))
        with building(len(texts)):
            self.texts, self._breaks = texts, breaks
            self.lines = [_UNPARSED] * len(self.texts)
            self.span = _ones(len(self.texts))
            self._regroup(0, len(self.texts), text.isascii())
            forget_ids()
        self.generation += 1
        self._restart_log()
        self._log(0, removed, len(self.texts))

    _MAX_EDITS = 512

    def _log(self, first: int, removed: int, added: int) -> None:
        if len(self.edits) >= self._MAX_EDITS:
            del self.edits[: self._MAX_EDITS // 2]
        self.edits.append((self.generation, first, removed, added))

    def changed_since(self, generation: int) -> tuple[int, int, int] | None:
        """The lines edited since `generation`, as one range: (first line, how many lines it had
        then, how many it has now). None when the log no longer reaches back that far."""
        edits = self.edits
        if generation == self.generation:
            return (0, 0, 0)
        if not edits or edits[0][0] > generation + 1:
            return None
        i = len(edits)
        while i > 0 and edits[i - 1][0] > generation:
            i -= 1
        if i == len(edits):
            return None  # a generation this document never logged (e.g. a later one)
        _, lo, removed, added = edits[i]
        old_end, new_end = lo + removed, lo + added
        for _, f, removed, added in edits[i + 1 :]:
            # The union of what earlier edits made and what this one replaces, before this one...
            a, b = min(lo, f), max(new_end, f + removed)
            old_end += b - new_end  # lines above lo never moved
            lo, new_end = a, b + added - removed  # ...and after it
        return lo, old_end - lo, new_end - lo

    def _regroup(self, lo: int, hi: int, all_ascii: bool = False) -> int:
        """Parse lines from lo on; past hi, stop where the old grouping resumes. Returns where it stopped.
        span[lo:hi] is all ones on entry (so a line of its own needs no store). all_ascii: the whole
        text is (see parse_lines)."""
        i, n = lo, len(self.texts)
        hi = min(hi, n)
        texts, lines, span = self.texts, self.lines, self.span
        while i < n:
            if i < hi:
                stop = min(hi, i + _CHUNK)
                i = parse_lines(texts, lines, i, stop, all_ascii)  # up to a line with a quote: the common case
                if i == stop:
                    let_others_run()  # (a large open's parse runs in a worker thread)
                    continue
            else:
                if span[i] != 0 and lines[i] is not _UNPARSED:
                    break
                span[i] = 1
                if '"' not in texts[i]:
                    lines[i] = parse_line(texts[i])
                    i += 1
                    continue
            last = self._group_end(i)
            if last == i:
                self.lines[i] = parse_line(self.texts[i])
            else:
                self.lines[i] = parse_line("\n".join(self.texts[i : last + 1]))
            self.span[i] = last - i + 1
            for k in range(i + 1, last + 1):
                self.lines[k] = _blank(self.texts[k])
                self.span[k] = 0
            i = last + 1
        Stats.lines += i - lo
        return i

    def runs_on(self, i: int) -> bool:
        """Whether line i starts an instruction whose string may continue on later lines."""
        text = self.texts[i]
        return '"' in text and _ends_inside(text)

    def _unclosed_above(self, line: int) -> int | None:
        """The instruction above `line` whose open string would look for its closing quote at
        `line`: the search runs up over lines a string passes through, and stops at one it would
        close on."""
        found = None
        for k in range(line - 1, max(-1, line - _MAX_JOIN), -1):
            text = self.texts[k]
            if '"' not in text:
                continue  # a string passes through
            if self.span[k] != 0 and self.runs_on(k):
                found = k
            # A line that opens a string may itself be inside one opened further up (left open, its
            # close not found yet): that one is read again too, so the search goes on.
            if not _ends_inside(text, True):
                return found
        return found

    def _group_end(self, i: int) -> int:
        if not self.runs_on(i):
            return i
        for k in range(i + 1, min(len(self.texts), i + _MAX_JOIN)):
            if not _ends_inside(self.texts[k], True):
                return k
        return i

    def position(self, line: int, offset: int) -> tuple[int, int]:
        """(line, column) of an offset into the instruction that starts at `line`."""
        while line < len(self.texts) - 1 and offset > len(self.texts[line]) and (self.span[line + 1] == 0):
            offset -= len(self.texts[line]) + 1
            line += 1
        return line, offset

    def header_version(self) -> tuple[int, int] | None:
        """The `; Version: 1.x` comment of the header, if the file has one."""
        found = self.header_version_line()
        return found[1] if found else None

    def header_version_line(self) -> tuple[int, tuple[int, int]] | None:
        """The line of the header's `; Version: 1.x` comment and the version it gives."""
        for n, line in enumerate(self.lines[:20]):
            if line.opcode:
                break
            if line.comment:
                v = version_from_comment(line.comment.text)
                if v:
                    return n, v
        return None
