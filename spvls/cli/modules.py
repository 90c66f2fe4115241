"""Modules given on the command line as text or binary, any mix, read as words, as a numbered
model (the raw-id disassembly: ids named by the numbers a binary gives them) or as friendly text."""

from __future__ import annotations

from array import array

from ..binary import convert, files, words
from ..binding import spirv_tools
from ..checks.diagnostic import ERROR
from ..model.module import Module, build
from ..spec.grammar import load
from ..syntax.document import Document
from .inputs import decode_source


class InputError(ValueError):
    """The file is not a module these commands can read; the message says why, with its place."""


def read_words(name: str, env: str | None = None) -> array:
    """A file's module as words: a binary as it is, a text assembled (its numeric ids kept).
    Raises OSError, spirv_tools.Unavailable, words.BinaryError or InputError."""
    data = files.read_bytes(name)
    if words.is_binary(data):
        return array("I", words.read(data).words)
    text, problems = decode_source(data)
    if problems and problems[0].severity == ERROR:
        raise InputError(f"{name}:{problems[0].line + 1}: {problems[0].message}")
    try:
        return convert.assemble(text, env)
    except convert.AssembleError as e:
        raise InputError(f"{name}:{e}") from None


def disassemble(module_words: array, raw_ids: bool) -> str:
    text = spirv_tools.disassemble(module_words, convert.DIS_ENV, raw_ids=raw_ids, header=True, indent=True)
    if isinstance(text, spirv_tools.Failure):
        raise InputError(f"the disassembler refuses it: {text.message}")
    return text


def numbered_module(module_words: array) -> Module:
    """The model of a module whose ids are the binary's numbers (`%5`)."""
    doc = Document(disassemble(module_words, raw_ids=True))
    return build(doc, load(), doc.header_version() or (1, 6))
