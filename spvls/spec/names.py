"""Did-you-mean for misspelt or half-typed opcode, enumerant, extension and id names."""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_VENDOR = re.compile(r"[A-Z]{2,}$")


def _ratified_first(name: str) -> int:
    """Core and KHR names before EXT, EXT before a vendor's (NV, AMD, INTEL, ...)."""
    m = _VENDOR.search(name)
    suffix = m.group() if m else ""
    return 0 if suffix in ("", "KHR") else 1 if suffix == "EXT" else 2


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Closest names first; a case-only difference always wins. A word being typed is the start of
    the names it may become: those come first, ratified before vendor ones, shorter first."""
    pool = list(candidates)
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower:
        return [lower[word.lower()]]
    close = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if len(word) < 3:
        return close
    w = word.lower()
    starts = sorted((c for c in pool if c.lower().startswith(w)), key=lambda c: (_ratified_first(c), len(c), c))
    return (starts[:n] + [c for c in close if c not in starts[:n]])[:n]
