"""Which files are SPIR-V assembly: the names every editor set-up and `spvls check DIR` recognise.

The editor configurations (editors/) spell the same lists; tests/test_filetypes.py holds them to it."""

from __future__ import annotations

import re

LANGUAGE_ID = "spvasm"
SUFFIXES = (".spvasm", ".spv.asm", ".spirv")
# SPIRV-Cross names its assembly tests NAME.asm[.TAGS].STAGE, e.g. foo.asm.vk.nocompat.frag.
STAGES = (
    "comp",
    "frag",
    "vert",
    "geom",
    "tesc",
    "tese",
    "rgen",
    "rchit",
    "rmiss",
    "rahit",
    "rint",
    "rcall",
    "mesh",
    "task",
)
# A name ending that says SPIR-V assembly, as a regular expression (.pre-commit-hooks.yaml's `files`).
NAME_PATTERN = "(" + "|".join(re.escape(s) for s in SUFFIXES) + r"|\.asm(\.[\w-]+)*\.(" + "|".join(STAGES) + "))$"
_NAME = re.compile(NAME_PATTERN)
FIRST_LINE = "; SPIR-V"


def by_name(name: str) -> bool:
    """True when the file name alone says SPIR-V assembly."""
    return _NAME.search(name) is not None


def by_first_line(line: bytes | str) -> bool:
    """spirv-dis starts its output with `; SPIR-V`."""
    if isinstance(line, bytes):
        return line.startswith(FIRST_LINE.encode())
    return line.startswith(FIRST_LINE)
