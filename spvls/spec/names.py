"""Did-you-mean for misspelt opcode, enumerant and extension names."""
from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Closest names first; a case-only difference always wins."""
    pool = list(candidates)
    lower = {c.lower(): c for c in pool}
    if word.lower() in lower:
        return [lower[word.lower()]]
    return difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
