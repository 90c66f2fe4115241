"""Test shaders (tests/data/source) compiled at test time by the real glslangValidator, and
disassembled by spirv-dis: source maps are checked against real compiler output."""
import shutil
import subprocess
from pathlib import Path

from helpers import required_program, tool

SOURCES = Path(__file__).resolve().parent / "data" / "source"

# -g: OpLine and OpSource with the text; -gV: NonSemantic.Shader.DebugInfo.100 (-gVS: with the text
# in DebugSource); "inlined": -gV, then
# spirv-opt inlines the calls (DebugInlinedAt); "raw": -gV disassembled with numeric ids and its
# OpName lines left out (the module as a name-stripping tool leaves it).
FLAGS = {"g": ["-g"], "gV": ["-gV"], "gVS": ["-gVS"], "inlined": ["-gV"], "raw": ["-gV"]}


def build(dest: Path, shader: str, variant: str) -> Path:
    """Copy the sources into `dest`, compile `shader` there (so the module names files relatively) and
    return the disassembly's path, next to them."""
    glslang = required_program("glslangValidator", ".ci/run installs glslang-tools")
    for f in SOURCES.iterdir():
        shutil.copy(f, dest / f.name)
    spv = dest / f"{shader}.{variant}.spv"
    subprocess.run([glslang, "-V", *FLAGS[variant], "-o", spv.name, shader], cwd=dest, check=True,
                   capture_output=True)
    if variant == "inlined":
        subprocess.run([tool("spirv-opt"), "--inline-entry-points-exhaustive", str(spv), "-o", str(spv)],
                       check=True, capture_output=True)
    out = dest / f"{shader}.{variant}.spvasm"
    cmd = [tool("spirv-dis"), str(spv)] + (["--raw-id"] if variant == "raw" else [])
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    if variant == "raw":
        text = "".join(x for x in text.splitlines(True) if "OpName" not in x and "OpMemberName" not in x)
    out.write_text(text)
    return out


def line_of(name: str, needle: str) -> int:
    """The 1-based line of the first line of a test source containing `needle`."""
    for n, text in enumerate((SOURCES / name).read_text().splitlines(), 1):
        if needle in text:
            return n
    raise AssertionError(f"{needle!r} not in {name}")


def source_text(name: str, line: int) -> str:
    return (SOURCES / name).read_text().splitlines()[line - 1]


def mistyped(path: Path) -> tuple[Path, int]:
    """The module with weight's uint -> float conversion (the module's only one) made an OpFConvert,
    which converts floats only: an error only spirv-val finds. Also that instruction's 0-based line."""
    lines = path.read_text().split("\n")
    n = next(i for i, x in enumerate(lines) if "= OpConvertUToF %float " in x)
    lines[n] = lines[n].replace("OpConvertUToF", "OpFConvert")
    out = path.with_name("mistyped-" + path.name)
    out.write_text("\n".join(lines))
    return out, n
