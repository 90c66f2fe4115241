"""Write the diagnostic codes from spvls's registry (spvls/checks/codes.py): the README's table of
families and docs/codes.md, every code with what it reports and where its rule comes from.

    python tools/codes_table.py

tests/test_codes.py checks both are current.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from spvls.checks import FAMILIES, codes
from spvls.checks.family import Rule
from spvls.fileio import write_atomic

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CODES_MD = ROOT / "docs" / "codes.md"
BEGIN = "<!-- codes: written by tools/codes_table.py from spvls/checks/codes.py -->"
END = "<!-- /codes -->"


def _label(rules: tuple[Rule, ...], prefix: str) -> str:
    """The codes a row stands for: `prefix.*` for those under the prefix, the others by name."""
    own = [r.code for r in rules if r.code.split(".")[0] == prefix]
    names = [f"`{prefix}`" for c in own if c == prefix][:1]
    if any(c != prefix for c in own):
        names.append(f"`{prefix}.*`")
    names += [f"`{r.code}`" for r in rules if r.code.split(".")[0] != prefix]
    return ", ".join(names)


def _rows() -> list[tuple[str, str]]:
    rows = [(_label(f.rules, f.prefix), f.summary) for f in FAMILIES]
    return rows + [(_label(g.rules, g.prefix), g.summary) for g in codes.TOOLS]


def readme_table() -> str:
    lines = ["| codes | what they report |", "| --- | --- |"]
    lines += [f"| {label} | {_cell(summary)} |" for label, summary in _rows()]
    return "\n".join([BEGIN, *lines, END])


def codes_md() -> str:
    out = [
        "# Diagnostic codes",
        "",
        "Every code spvls reports, written by `tools/codes_table.py` from `spvls/checks/codes.py`.",
        "`spvls doc CODE` shows a code's rule with the spec sentence it quotes and a minimal failing",
        "module; `; spvls: ignore[CODE]` silences it on a line (a family's prefix, `rotate`, silences",
        "the family).",
    ]
    sections = [(f.prefix, f.summary, codes.rules(), f.rules) for f in FAMILIES]
    sections += [(g.prefix, g.summary, codes.rules(), g.rules) for g in codes.TOOLS]
    for prefix, summary, registered, rules in sections:
        out += ["", f"## {prefix}", "", _cell(summary)[0].upper() + _cell(summary)[1:], ""]
        out += ["| code | what it reports | rule from |", "| --- | --- | --- |"]
        for r in (registered[r.code] for r in rules):
            out.append(f"| `{r.code}` | {_cell(r.summary)} | {_source(r)} |")
    return "\n".join(out) + "\n"


def _source(r: Rule) -> str:
    """Where a rule comes from: the spec it quotes, the grammar (a family's other rules), SPIRV-Tools,
    or spvls itself."""
    if r.sentence:
        return f"[{r.where}]({r.link})"
    if codes.family_of(r.code) is not None:
        return f"[SPIR-V grammar]({r.link})"
    return f"[{codes.page(r.code)}]({r.link})" if r.link else "spvls"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").rstrip(".")


def with_table(readme: str) -> str:
    """The README with its table of codes replaced."""
    found = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), readme, re.S)
    if found is None:
        raise SystemExit(f"{README}: no {BEGIN} ... {END} section")
    return readme[: found.start()] + readme_table() + readme[found.end() :]


def main() -> int:
    write_atomic(README, with_table(README.read_text(encoding="utf-8")).encode())
    write_atomic(CODES_MD, codes_md().encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
