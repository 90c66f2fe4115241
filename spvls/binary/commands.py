"""What the LSP commands `spvls.disassemble`, `spvls.assemble`, `spvls.optimize` and `spvls.diff` do, for a file: URI."""

from __future__ import annotations

from array import array
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import fileio
from ..binding import tools
from ..binding.spirv_tools import Unavailable
from . import compare, convert, files, optimize, words


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


def assemble(args: tuple, target_env: str | None, refuse_invalid: bool = False) -> dict:
    """[{"uri": U, "text": T}] -> {"words": N, "invalid"?: {"line", "message"}, "message"?}: T
    assembled with the ids of the binary at U and written over U atomically; refused (U untouched)
    when T does not assemble or `disassemble` could not reopen it. A module spirv-val rejects is
    written (users craft invalid modules on purpose) and the answer says so, with its first error;
    with `refuse_invalid` (the refuseInvalidSave setting) it is refused."""
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
    invalid = convert.validation(arg["text"], target_env, original)
    where = f"line {invalid.line + 1}: " if invalid and invalid.line is not None else ""
    if invalid is not None and refuse_invalid:
        raise CommandError(
            f"{path.name}: not saved: spirv-val rejects it: {where}{invalid.message}",
            {"line": invalid.line, "message": invalid.message},
        )
    try:
        fileio.write_atomic(path, words.to_bytes(result, original.big_endian if original else False))
    except OSError as e:
        raise CommandError(f"{path}: not saved: {e.strerror or e}") from None
    if invalid is None:
        return {"words": len(result)}
    return {
        "words": len(result),
        "invalid": {"line": invalid.line, "message": invalid.message},
        "message": f"{path.name}: saved, but spirv-val rejects it: {where}{invalid.message}",
    }


# -- the workbench: spvls.optimize and spvls.diff ---------------------------------------------
def module_words(uri: str, open_text: str | None, target_env: str | None) -> array:
    """The module at U: the text the editor has open (a binary's disassembly too), else the file
    on disk, text or binary."""
    name = path_of(uri).name if open_text is None else uri.rsplit("/", 1)[-1]
    try:
        return convert.module_words(open_text if open_text is not None else _read(uri), target_env)
    except words.BinaryError as e:
        raise CommandError(f"{name}: {e}", {"word": e.word}) from None
    except convert.AssembleError as e:
        where = f"line {e.line + 1}: " if e.line is not None else ""
        raise CommandError(f"{name}: does not assemble: {where}{e.message}", {"line": e.line}) from None
    except Unavailable as e:
        raise CommandError(str(e)) from None


def _read(uri: str) -> bytes:
    path = path_of(uri)
    try:
        return files.read_bytes(str(path), pipe=False)
    except OSError as e:
        raise CommandError(f"{path.name}: cannot read: {e.strerror or e}") from None


def _friendly(module_words: array) -> str:
    try:
        return convert.listing(module_words)
    except words.BinaryError as e:
        raise CommandError(str(e)) from None


def optimize_module(args: tuple, text_of: Callable[[str], str | None], target_env: str | None) -> dict:
    """[{"uri": U, "passes": [FLAG, …] or "FLAGS", "perPass"?: bool}] -> {"source": U as friendly
    text, "text": the optimized module, "before"/"after": instruction counts, "passes": [{"name",
    "before", "after"}] (with perPass; else empty: spirv-opt --print-all is several times slower)}."""
    arg = _argument(args, "uri")
    passes = arg.get("passes", ["-O"])
    flags = passes.split() if isinstance(passes, str) else passes
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise CommandError('"passes": spirv-opt\'s flags, a list of strings or one string')
    source = module_words(arg["uri"], text_of(arg["uri"]), target_env)
    try:
        result = optimize.optimize(source, flags, per_pass=bool(arg.get("perPass")))
    except optimize.OptimizeError as e:
        raise CommandError(e.message, {"pass": e.failed_pass}) from None
    except (tools.Missing, TimeoutError) as e:
        raise CommandError(str(e)) from None
    return {
        "source": _friendly(source),
        "text": result.text,
        "before": result.before,
        "after": result.after,
        "passes": [{"name": p.name, "before": p.before, "after": p.after} for p in result.passes],
    }


def diff_modules(args: tuple, text_of: Callable[[str], str | None], target_env: str | None) -> dict:
    """[{"uri": A, "other": B}] -> {"left": A, "right": B in A's ids, "diff": unified, "changed": N}."""
    arg = _argument(args, "uri", "other")
    a = module_words(arg["uri"], text_of(arg["uri"]), target_env)
    b = module_words(arg["other"], text_of(arg["other"]), target_env)
    try:
        result = compare.compare(a, b, arg["uri"].rsplit("/", 1)[-1], arg["other"].rsplit("/", 1)[-1])
    except (compare.CompareError, tools.Missing, TimeoutError) as e:
        raise CommandError(str(e)) from None
    return {"left": result.left, "right": result.right, "diff": result.diff, "changed": result.changed}
