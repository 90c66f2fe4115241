"""Modules given on the command line as text or binary, any mix, read as words or as a numbered
model (the raw-id disassembly: ids named by the numbers a binary gives them)."""

from __future__ import annotations

from array import array

from ..binary import convert, files, words
from ..checks.diagnostic import ERROR
from ..model.module import Module, build
from ..spec.grammar import load
from ..syntax.document import Document
from .inputs import decode_source


class InputError(ValueError):
    """The file is not a module these commands can read; the message says why, with its place."""


def read_words(name: str, env: str | None = None) -> array:
    """A file's module as words (convert.module_words), a text's bytes that are not UTF-8 refused
    at their line. Raises OSError, spirv_tools.Unavailable, words.BinaryError or InputError."""
    data = files.read_bytes(name)
    module: bytes | str = data
    if not words.is_binary(data):
        module, problems = decode_source(data)
        if problems and problems[0].severity == ERROR:
            raise InputError(f"{name}:{problems[0].line + 1}: {problems[0].message}")
    try:
        return convert.module_words(module, env)
    except convert.AssembleError as e:
        raise InputError(f"{name}:{e}") from None


def numbered_module(module_words: array) -> Module:
    """The model of a module whose ids are the binary's numbers (`%5`); BinaryError when the
    disassembler refuses it."""
    doc = Document(convert.listing(module_words, raw_id=True))
    return build(doc, load(), doc.header_version() or (1, 6))
