"""Reading the files the CLI is given: what a directory stands for, and text that never raises."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from .. import fileio
from ..binary import files, words
from ..binding.spirv_tools import Unavailable
from ..checks.diagnostic import ERROR, WARNING, Diagnostic
from ..spec import filetypes


def raw_text(path: Path) -> str:
    """The file's text for rewriting it: bytes that are not UTF-8 (reported by read_source) come
    back unchanged when written with errors="surrogateescape"."""
    return files.read_bytes(str(path)).decode("utf-8", errors="surrogateescape")


def read_source(path: Path) -> tuple[str, list[Diagnostic]]:
    """The file's text (`-`: standard input), with diagnostics for what made it hard to read. Never raises."""
    try:
        data = files.read_bytes(str(path))
    except OSError as e:
        return "", [unreadable(path, e)]
    return decode_source(data)


def unreadable(path: str | os.PathLike[str], e: OSError) -> Diagnostic:
    return Diagnostic(0, 0, 0, ERROR, "io.unreadable", f"cannot read {path}: {e.strerror or e}")


FAILURES = (OSError, Unavailable, words.BinaryError)


def report_failure(e: Exception, source: str, binary: str) -> int:
    """Print one of FAILURES as `path: error: …` (`binary` names the file a BinaryError is about);
    the exit status, 1."""
    if isinstance(e, OSError):
        print(f"{e.filename or source}: error: {e.strerror or e}", file=sys.stderr)
    elif isinstance(e, Unavailable):
        print(f"spvls: error: {e}", file=sys.stderr)
    else:
        print(f"{binary}: error: {e}", file=sys.stderr)
    return 1


def decode_source(data: bytes) -> tuple[str, list[Diagnostic]]:
    if words.is_binary(data):
        return "", [
            Diagnostic(
                0,
                0,
                0,
                ERROR,
                "syntax.binary",
                "this is a SPIR-V binary module, not assembly text: `spvls dis` shows it as text",
            )
        ]
    if not data.strip():
        return "", [Diagnostic(0, 0, 0, WARNING, "syntax.empty", "the file is empty: no SPIR-V module here")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), _encoding_problems(data)


def _encoding_problems(data: bytes) -> list[Diagnostic]:
    """One diagnostic per line holding bytes that are not UTF-8, at the first of them. In a comment
    it is a warning (spirv-as never reads comments; a Latin-1 'é' there is common); anywhere else
    an error: the spec's literal strings are UTF-8, and a name or number cannot hold it."""
    out = []
    for n, raw in enumerate(re.split(rb"\r\n|\r|\n", data)):
        try:
            raw.decode("utf-8")
            continue
        except UnicodeDecodeError as e:
            before = raw[: e.start].decode("utf-8", errors="replace")
            byte = raw[e.start]
        col = len(before)
        if _in_comment(before):
            out.append(
                Diagnostic(
                    n,
                    col,
                    col + 1,
                    WARNING,
                    "syntax.encoding",
                    f"byte 0x{byte:02x} in a comment is not UTF-8 (Latin-1?): spirv-as skips "
                    "comments, but editors and other tools read the file as UTF-8 "
                    "(shown here as U+FFFD)",
                )
            )
        else:
            out.append(
                Diagnostic(
                    n,
                    col,
                    col + 1,
                    ERROR,
                    "syntax.encoding",
                    f"byte 0x{byte:02x} is not UTF-8: SPIR-V assembly is UTF-8 text (shown here as U+FFFD)",
                )
            )
        if len(out) >= 100:
            break
    return out


def _in_comment(before: str) -> bool:
    """Whether a `;` outside a string starts a comment before the end of `before`."""
    quoted = escaped = False
    for ch in before:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            return True
    return False


def expand(names: list[str], binaries: bool = False) -> list[str]:
    """Files as given; a directory stands for the SPIR-V assembly under it (see collect)."""
    return collect(names, binaries)[0]


def collect(names: list[str], binaries: bool = False) -> tuple[list[str], list[tuple[str, str]]]:
    """The files to read, and the (path, reason) of each one a directory held that was passed over.
    A file named on the command line is always read; in a directory, a file is read when its name
    (spec/filetypes) or its first line (`; SPIR-V`, as spirv-dis writes) says SPIR-V assembly.
    With `binaries`, so is a file that starts with SPIR-V's magic number.
    Hidden directories (.git, …) are not searched."""
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            files.append(name)
            continue
        for f in sorted(path.rglob("*")):
            rel = f.relative_to(path).parts
            if any(part.startswith(".") for part in rel[:-1]):
                continue  # inside a hidden directory: said once, below
            if f.is_dir():
                if f.name.startswith("."):
                    skipped.append((str(f), "hidden directory, not searched"))
                continue
            why = _why_not(f, binaries)
            if why:
                skipped.append((str(f), why))
            else:
                files.append(str(f))
    return files, skipped


def _why_not(path: Path, binaries: bool) -> str | None:
    """None when the file is SPIR-V assembly by its name or first line, else why it is not read."""
    try:
        fd = fileio.open_regular(path, files.MAX_BYTES)  # never a FIFO or device: it could block or never end
    except fileio.ReadRefused as e:
        return str(e.strerror)
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    try:
        if filetypes.by_name(path.name):
            return None
        head = os.read(fd, 8)
    except OSError as e:
        return f"cannot read it: {e.strerror or e}"
    finally:
        os.close(fd)
    if filetypes.by_first_line(head):
        return None
    if words.is_binary(head):
        return None if binaries else "a SPIR-V binary module, not assembly"
    return "not SPIR-V assembly: neither its name nor a '; SPIR-V' first line says so"


def terminated_lines(text: str) -> list[str]:
    """The text's lines with their own terminators (\n, \r\n or \r), numbered as Document numbers them."""
    parts = re.split(r"(\r\n|\r|\n)", text)
    return [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)]
