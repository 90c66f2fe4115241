"""The header comments spirv-dis writes (`; Version`, `; Generator`, `; Bound`, `; Schema`), read
back into the header words so that assembling a disassembly gives the module's own header."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from ..binding import spirv_tools
from ..spec import env as envs
from .words import MAGIC

_FIELD = re.compile(r";\s*(Version|Generator|Bound|Schema):\s*(.*?)\s*$")
_GENERATOR = re.compile(r"(.*?)\s*;\s*(\d+)$")
_VENDOR_ID = re.compile(r"(?:Unknown\((\d+)\)|.*\(vendor (\d+)\))$")
_VERSION = re.compile(r"(\d+)\.(\d+)$")


@lru_cache(maxsize=1)
def vendors() -> dict[int, str]:
    """Generator vendor names as the library prints them (its copy of the registry's spir-v.xml),
    asked by disassembling a header-only module for each vendor number until they run out."""
    names: dict[int, str] = {}
    unknown_run = 0
    for k in range(1 << 16):
        text = spirv_tools.disassemble([MAGIC, 0x10000, k << 16, 1, 0], "spv1.6")
        m = re.search(r"; Generator: (.*); 0", text) if isinstance(text, str) else None
        if m is None or m.group(1).startswith("Unknown("):
            unknown_run += 1
            if unknown_run > 32:
                break
            continue
        unknown_run = 0
        names[k] = m.group(1)
    return names


def generator_line(word: int) -> str:
    """`; Generator: NAME; VERSION` as spirv-dis writes it; a name that more than one vendor
    number carries (ARM is 5 and 47) gets its number after the first, so reading it back is exact."""
    vendor, version = word >> 16, word & 0xFFFF
    table = vendors()
    name = table.get(vendor)
    if name is None:
        return f"; Generator: Unknown({vendor}); {version}"
    if min(k for k, n in table.items() if n == name) != vendor:
        name = f"{name} (vendor {vendor})"
    return f"; Generator: {name}; {version}"


def parse_generator(value: str) -> int | None:
    m = _GENERATOR.match(value)
    if not m:
        return None
    name, version = m.group(1), int(m.group(2))
    v = _VENDOR_ID.match(name)
    vendor: int | None
    if v:
        vendor = int(v.group(1) or v.group(2))
    else:
        vendor = next((k for k, n in sorted(vendors().items()) if n == name), None)
        if vendor is None:
            return None
    return (vendor << 16 | version) & 0xFFFFFFFF


def read_comments(text: str) -> dict[str, int]:
    """Header words named by the leading comment lines: {"version", "generator", "bound", "schema"}."""
    out: dict[str, int] = {}
    for _n, _line, m in _header_fields(text):
        key, value = m.group(1).lower(), m.group(2)
        if key == "version":
            v = _VERSION.match(value)
            if v:
                out[key] = int(v.group(1)) << 16 | int(v.group(2)) << 8
        elif key == "generator":
            g = parse_generator(value)
            if g is not None:
                out[key] = g
        elif value.isascii() and value.isdigit():
            out[key] = int(value)
    return out


def _header_fields(text: str) -> Iterator[tuple[int, str, re.Match[str]]]:
    """(line number, line, match) of each `; Name: value` comment before the first instruction."""
    for n, line in enumerate(text.splitlines()):
        s = line.strip()
        if not s:
            continue
        if not s.startswith(";"):
            return
        m = _FIELD.match(s)
        if m:
            yield n, line, m


def unreadable(text: str) -> tuple[int, int, str] | None:
    """(line, column, why) of the first header comment whose value `spvls dis` could not read back
    from the saved module, or that no header word can hold; None when all can be honoured. A
    generator name this library does not know is left to the binary's own word, as before."""
    for n, line, m in _header_fields(text):
        key, value = m.group(1), m.group(2)
        col = line.find(value, line.find(key) + len(key)) if value else len(line.rstrip())
        if key == "Version":
            v = _VERSION.match(value)
            if v is None or (int(v.group(1)), int(v.group(2))) not in envs.VERSIONS:
                newest = max(envs.VERSIONS)
                return (
                    n,
                    col,
                    (
                        f"'; Version: {value}' is no SPIR-V version spvls can reopen (1.0 to {newest[0]}.{newest[1]}): "
                        "the saved module could not be disassembled"
                    ),
                )
        elif key == "Generator":
            g = _GENERATOR.match(value)
            v = _VENDOR_ID.match(g.group(1)) if g else None
            if g and (int(g.group(2)) > 0xFFFF or (v and int(v.group(1) or v.group(2)) > 0xFFFF)):
                return n, col, f"'; Generator: {value}': the vendor and its version are 16-bit numbers (0 to 65535)"
        elif not (value.isascii() and value.isdigit()) or int(value) > 0xFFFFFFFF:
            return n, col, f"'; {key}: {value}': a header word is a number from 0 to 4294967295"
    return None
