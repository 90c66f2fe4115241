"""Did-you-mean for misspelt or half-typed opcode, enumerant, extension and id names."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import ClassVar

_VENDOR = re.compile(r"[A-Z]{2,}$")


def _ratified_first(name: str) -> int:
    """Core and KHR names before EXT, EXT before a vendor's (NV, AMD, INTEL, ...)."""
    m = _VENDOR.search(name)
    suffix = m.group() if m else ""
    return 0 if suffix in ("", "KHR") else 1 if suffix == "EXT" else 2


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Closest names first; a case-only difference always wins. A word being typed is the start of
    the names it may become: those come first, ratified before vendor ones, shorter first."""
    pool = tuple(candidates)
    if len(pool) > _MANY:
        return _Index.of(pool).suggest(word, n)
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower:
        return [lower[word.lower()]]
    import difflib  # here: a clean module's check never suggests

    close = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if len(word) < 3:
        return close
    w = word.lower()
    starts = sorted((c for c in pool if c.lower().startswith(w)), key=lambda c: (_ratified_first(c), len(c), c))
    return (starts[:n] + [c for c in close if c not in starts[:n]])[:n]


# difflib scores a word against every candidate in Python (slow against the grammar's opcodes): past
# this many candidates, an index finds the same answers from a shortlist of those that share the
# most letter pairs with the word.
_MANY, _SHORTLIST = 60, 40


class _Index:
    """A large pool of names, prepared once for many suggestions."""

    _cache: ClassVar[dict[tuple[str, ...], _Index]] = {}

    @classmethod
    def of(cls, pool: tuple[str, ...]) -> _Index:
        found = cls._cache.get(pool)
        if found is None:
            if len(cls._cache) >= 32:
                cls._cache.clear()
            found = cls._cache[pool] = cls(pool)
        return found

    def __init__(self, pool: tuple[str, ...]):
        self.pool = pool
        self.lower = {c.lower(): c for c in pool}
        self.sorted = sorted(self.lower)  # lowercase, for prefix search
        self.pairs: dict[str, list[int]] = {}
        for i, c in enumerate(pool):
            for p in {c[k : k + 2] for k in range(len(c) - 1)}:
                self.pairs.setdefault(p, []).append(i)

    def suggest(self, word: str, n: int) -> list[str]:
        w = word.lower()
        if w in self.lower:
            return [self.lower[w]]
        counts = Counter(chain.from_iterable(self.pairs.get(word[k : k + 2], ()) for k in range(len(word) - 1)))
        short = [self.pool[i] for i, _ in counts.most_common(_SHORTLIST)]
        import difflib

        close = difflib.get_close_matches(word, short, n=n, cutoff=0.6)
        if len(word) < 3:
            return close
        lo = bisect_left(self.sorted, w)
        hi = bisect_left(self.sorted, w + "\U0010ffff")
        starts = sorted((self.lower[c] for c in self.sorted[lo:hi]), key=lambda c: (_ratified_first(c), len(c), c))
        return (starts[:n] + [c for c in close if c not in starts[:n]])[:n]
