"""Reading the files the CLI is given: what a directory stands for, and text that never raises."""
from __future__ import annotations

import re
from pathlib import Path

from ..checks.diagnostic import ERROR, WARNING, Diagnostic

SPIRV_MAGIC = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")


def read_source(path: Path) -> tuple[str, list[Diagnostic]]:
    """The file's text, with diagnostics for what made it hard to read. Never raises."""
    try:
        data = path.read_bytes()
    except OSError as e:
        return "", [Diagnostic(0, 0, 0, ERROR, "io.unreadable", f"cannot read {path}: {e.strerror or e}")]
    if data[:4] in SPIRV_MAGIC:
        return "", [Diagnostic(0, 0, 0, ERROR, "syntax.binary",
                               "this is a SPIR-V binary module, not assembly text: run spirv-dis on it first")]
    if not data.strip():
        return "", [Diagnostic(0, 0, 0, WARNING, "syntax.empty", "the file is empty: no SPIR-V module here")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", errors="replace")
        line = data[: e.start].count(b"\n")
        col = len(data[: e.start].rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace"))
        return text, [Diagnostic(line, col, col + 1, ERROR, "syntax.encoding",
                                 f"byte 0x{data[e.start]:02x} is not UTF-8: SPIR-V assembly is UTF-8 text "
                                 "(shown here as U+FFFD)")]


def expand(names: list[str]) -> list[str]:
    """Files as given; a directory stands for the SPIR-V assembly under it: *.spvasm, *.spv.asm,
    and any other file whose first line is spirv-dis's `; SPIR-V` header."""
    out = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            out.append(name)
            continue
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            if f.name.endswith((".spvasm", ".spv.asm")) or _has_header(f):
                out.append(str(f))
    return out


def _has_header(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"; SPIR-V"
    except OSError:
        return False


def terminated_lines(text: str) -> list[str]:
    """The text's lines with their own terminators (\n, \r\n or \r), numbered as Document numbers them."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    return [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]
