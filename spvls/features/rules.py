"""Diagnostic codes: the rule, the spec sentence it cites, and a minimal failing module.

Rules and sentences come from each check family's RULES table; the examples from
spvls/checks/examples.json (built from tests/data/rules by spvls.checks.examples_gen).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ..checks import FAMILIES
from ..spec import registry
from .docs import Doc


@lru_cache(maxsize=1)
def examples() -> dict[str, dict]:
    return json.loads(resources.files("spvls.checks").joinpath("examples.json").read_text(encoding="utf-8"))


def _family(code: str):
    prefix = code.split(".")[0]
    for family in FAMILIES:
        if code in getattr(family, "RULES", {}):
            return family
    for family in FAMILIES:  # a family without a RULES table names its prefix in its docstring
        if (family.__doc__ or "").startswith(f"{prefix}.*") or f"; {prefix}.*" in (family.__doc__ or ""):
            return family
    return None


@lru_cache(maxsize=1)
def codes() -> dict[str, object]:
    """Every code a rule table or a rule module names, with its family module."""
    out = {}
    for family in FAMILIES:
        for code in getattr(family, "RULES", {}):
            out[code] = family
    for code in examples():
        out.setdefault(code, _family(code))
    return dict(sorted(out.items()))


def _summary(family, code: str) -> str:
    doc = (family.__doc__ or "").strip() if family else ""
    prefix = code.split(".")[0] + ".*"
    for part in doc.split("\n\n")[0].replace("\n", " ").split("; "):
        if part.startswith(prefix):
            return part.removeprefix(prefix).lstrip(": ").rstrip(".") + "."
    return doc.split("\n")[0]


def code_doc(code: str) -> Doc:
    family = codes().get(code)
    sentence = getattr(family, "RULES", {}).get(code)
    ext = getattr(family, "EXTENSION", None)
    doc = registry.documents().get(ext) if ext else None
    url = doc.url if doc else registry.CORE_SPEC
    parts = [f"**{code}** — {_summary(family, code)}"]
    if sentence:
        parts.append(f"Spec ({ext or 'SPIR-V'}):\n\n> {sentence}")
    ex = examples().get(code)
    if ex:
        parts.append(
            f"Minimal failing module (target env {ex['env']}; reported on line {ex['line']}: "
            f"{ex['message']}):\n\n```spvasm\n{ex['module']}```"
        )
    parts.append(f"[{ext or 'SPIR-V specification'}]({url})")
    return Doc(code, "diagnostic", "\n\n".join(parts), ext or "SPIR-V specification", url)


def rule_md(code: str) -> str | None:
    """Hover's note on a diagnostic: its rule and spec sentence, without the example."""
    if code not in codes():
        return None
    family = codes()[code]
    sentence = getattr(family, "RULES", {}).get(code)
    ext = getattr(family, "EXTENSION", None)
    md = f"**{code}** — {_summary(family, code)}"
    if sentence:
        md += f"\n\n> {sentence}"
    return md + f"\n\nMore: `spvls doc {code}`" + (f" · {ext}" if ext else "")


def diagnostic_notes(diagnostics, line: int, col: int) -> tuple[str, tuple[int, int]] | None:
    """The rules of the diagnostics under the cursor, and the columns the first one covers."""
    here = [d for d in diagnostics if d.line == line and d.start <= col <= max(d.end, d.start + 1)]
    notes = [md for md in dict.fromkeys(rule_md(d.code) for d in here) if md]
    return ("\n\n---\n\n".join(notes), (here[0].start, here[0].end)) if notes else None


def with_rules(found, diagnostics, line: int, col: int):
    """A hover's (markdown, span) with the rules of the diagnostics under the cursor added."""
    notes = diagnostic_notes(diagnostics, line, col)
    if notes is None:
        return found
    if found is None:
        return notes
    return f"{found[0]}\n\n---\n\n{notes[0]}", found[1]
