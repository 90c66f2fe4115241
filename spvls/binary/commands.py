"""What the LSP commands `spvls.disassemble` and `spvls.assemble` do, for a file: URI."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import fileio
from ..binding.spirv_tools import Unavailable
from . import convert, files, words


class CommandError(ValueError):
    """Refused: `message` for the user, `data` for the client (the assembler's line, …)."""

    def __init__(self, message: str, data: dict | None = None):
        super().__init__(message)
        self.message, self.data = message, data or {}


def path_of(uri: str) -> Path:
    u = urlparse(uri)
    if u.scheme != "file":
        raise CommandError(f"{uri}: only file: URIs name a binary module on disk")
    return Path(unquote(u.path))


def _argument(args: tuple, *keys: str) -> dict:
    if len(args) != 1 or not isinstance(args[0], dict) or any(not isinstance(args[0].get(k), str) for k in keys):
        raise CommandError(f"expected one argument {{{', '.join(repr(k) + ': …' for k in keys)}}}")
    return args[0]


def disassemble(args: tuple) -> dict:
    """[{"uri": U, "rawId"?, "noHeader"?, "comment"?, "nestedIndent"?}] -> {"text": …}."""
    arg = _argument(args, "uri")
    path = path_of(arg["uri"])
    opts = convert.Options(
        raw_id=bool(arg.get("rawId")),
        no_header=bool(arg.get("noHeader")),
        comment=bool(arg.get("comment")),
        nested_indent=bool(arg.get("nestedIndent")),
    )
    try:
        return {"text": convert.disassemble(files.read_bytes(str(path), pipe=False), opts).text}
    except fileio.ReadRefused as e:
        raise CommandError(f"{path}: {e.strerror}") from None
    except OSError as e:
        raise CommandError(f"{path}: cannot read: {e.strerror or e}") from None
    except words.BinaryError as e:
        raise CommandError(f"{path}: {e}", {"word": e.word}) from None
    except Unavailable as e:
        raise CommandError(str(e)) from None


def assemble(args: tuple, target_env: str | None) -> dict:
    """[{"uri": U, "text": T}] -> {"words": N}: T assembled with the ids of the binary at U and
    written over U atomically; refused (U untouched) when T does not assemble."""
    arg = _argument(args, "uri", "text")
    path = path_of(arg["uri"])
    original = None
    try:
        old = files.read_bytes(str(path), pipe=False)
    except FileNotFoundError:
        old = b""  # a new file: the text numbers its own ids
    except fileio.ReadRefused as e:
        raise CommandError(f"{path}: {e.strerror}") from None
    except OSError as e:
        raise CommandError(f"{path}: cannot read: {e.strerror or e}") from None
    if old:
        try:
            original = words.read(old)
        except words.BinaryError:
            original = None  # unreadable: nothing to keep but the user's text
    try:
        result = convert.assemble(arg["text"], target_env, original)
    except Unavailable as e:
        raise CommandError(f"{path.name}: not saved: {e}") from None
    except convert.AssembleError as e:
        where = f"line {e.line + 1}: " if e.line is not None else ""
        raise CommandError(
            f"{path.name}: not saved: {where}{e.message}", {"line": e.line, "column": e.column, "message": e.message}
        ) from None
    try:
        fileio.write_atomic(path, words.to_bytes(result, original.big_endian if original else False))
    except OSError as e:
        raise CommandError(f"{path}: not saved: {e.strerror or e}") from None
    return {"words": len(result)}
