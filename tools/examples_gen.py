"""Build spvls/checks/examples.json: a minimal failing module for each diagnostic code.

    python tools/examples_gen.py tests/data/rules

Each `*-fail.spvasm` rule module marks lines with `; expect: code`. For each code, its first marked
line is kept and every other line is dropped, one at a time from the bottom, as long as the code
is still reported on the kept line and no code appears that was not there before: what is left
is the smallest module (by this greedy measure) that breaks the rule.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from spvls.checks import analyze
from spvls.syntax.document import Document

OUT = Path(__file__).resolve().parents[1] / "spvls" / "checks" / "examples.json"
_EXPECT = re.compile(r"\s*; expect:.*$")


def _diagnostics(lines: list[str], env: str | None):
    return analyze(Document("\n".join(lines) + "\n"), env).diagnostics


def minimize(lines: list[str], keep: int, code: str, env: str | None) -> tuple[list[str], int]:
    """The module cut down around line `keep`, and where that line is now."""
    lines = [_EXPECT.sub("", ln) for ln in lines]
    before = _diagnostics(lines, env)
    allowed, count = {d.code for d in before}, len(before)
    for _ in range(2):  # a second pass drops what the first freed (a definition used only by a dropped line)
        i = len(lines) - 1
        while i >= 0:
            if i != keep:
                trial = lines[:i] + lines[i + 1 :]
                k = keep - (i < keep)
                got = _diagnostics(trial, env)
                # Still broken the same way, and no new problem (an id left undefined, a new code).
                if (
                    any(d.line == k and d.code == code for d in got)
                    and len(got) <= count
                    and {d.code for d in got} <= allowed
                ):
                    lines, keep = trial, k
                    allowed, count = {d.code for d in got}, len(got)
            i -= 1
    return lines, keep


def build(rules: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in sorted(rules.glob("*-fail.spvasm")):
        text = path.read_text(encoding="utf-8")
        m = re.search(r"; target-env: (\S+)", text)
        env = m.group(1) if m else None
        lines = [ln for ln in text.rstrip("\n").split("\n") if not ln.startswith("; target-env:")]
        for n, line in enumerate(lines):
            if "; expect:" not in line:
                continue
            for code in (c.strip() for c in line.split("; expect:", 1)[1].split(",")):
                if code in out:
                    continue
                small, k = minimize(lines, n, code, env)
                diag = next(d for d in _diagnostics(small, env) if d.code == code and d.line == k)
                out[code] = {
                    "env": env,
                    "module": "\n".join(small) + "\n",
                    "line": diag.line + 1,
                    "message": diag.message,
                    "from": path.name,
                }
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    rules = Path(args[0] if args else "tests/data/rules")
    data = build(rules)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(data)} codes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
