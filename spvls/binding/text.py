"""Text as the bytes the SPIR-V tools (and files) hold.

A str can hold lone surrogates that UTF-8 cannot encode: `\\udc80`-`\\udcff` from a file decoded
with errors="surrogateescape" (each stands for one byte that was not UTF-8), and any other from an
LSP client, whose JSON may carry `"\\ud800"`. Encoding with the codec's default raised
UnicodeEncodeError in the middle of a request; `utf8` never does.
"""

from __future__ import annotations

import codecs
import re


def _lone_surrogates(e: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(e, UnicodeEncodeError):
        raise e
    out = bytearray()
    for ch in e.object[e.start : e.end]:
        c = ord(ch)
        # surrogateescape's byte back, else the surrogate's 3-byte form (what spirv-as reads as
        # an unknown character: "Invalid Opcode name 'OpNop\xed\xa0\x80'")
        out += bytes([c - 0xDC00]) if 0xDC80 <= c <= 0xDCFF else ch.encode("utf-8", "surrogatepass")
    return bytes(out), e.end


codecs.register_error("spvls.surrogates", _lone_surrogates)


def utf8(text: str) -> bytes:
    """The text's UTF-8 bytes; a lone surrogate as described above, never an error."""
    return text.encode("utf-8", "spvls.surrogates")


def code_points(text: str, nbytes: int) -> int:
    """How many of the text's code points its first nbytes UTF-8 bytes hold (a tool's byte column
    as a column in code points)."""
    if text.isascii():
        return min(max(nbytes, 0), len(text))
    total = 0
    for i, ch in enumerate(text):
        total += len(utf8(ch))
        if total > nbytes:
            return i
    return len(text)


# Half of a UTF-16 pair without its other half.
LONE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the text's first lone surrogate, or None."""
    hit = LONE.search(text)
    if hit is None:
        return None
    lines = re.split(r"\r\n|\r|\n", text[: hit.start()])
    what = f"U+{ord(hit.group()):04X} is half of a UTF-16 surrogate pair, not a character"
    return len(lines) - 1, len(lines[-1]), f"{what}: SPIR-V assembly is UTF-8 text, which cannot hold it"
