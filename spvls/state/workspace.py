"""Open documents and their analyses; no protocol types here."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ..binding.options import DEFAULT_TIMEOUT, SETTINGS
from ..checks import Analysis, analyze, suppress
from ..spec import env as envs
from ..syntax.document import Document

if TYPE_CHECKING:
    from ..binding.spirv_tools import ValidatorOptions

SHOWN = 80  # characters of a rejected value a message quotes: a 100 KB setting is not a 100 KB popup


def shown(value: object) -> str:
    """A value as a message quotes it: its repr, cut to SHOWN characters with the length said."""
    text = repr(value)
    if len(text) <= SHOWN:
        return text
    return f"{text[: SHOWN - 1]}… ({len(text):,} characters)"


def _target_env(value: object) -> str | None:
    if value in (None, "", "auto"):
        return None
    if value in envs.NAMES:
        return value
    raise ValueError(f"unknown target env {shown(value)}; known: auto, {', '.join(envs.NAMES)}")


def _boolean(value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError(f"expected true or false, not {shown(value)}")


def _seconds(value: object) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 1e6:
        return float(value)
    raise ValueError(f"expected a number of seconds (0: no limit), not {shown(value)}")


# When spirv-val runs (the `validate` setting): after typing pauses, on save, never.
ON_TYPE, ON_SAVE, OFF = "onType", "onSave", "off"
MODES = (ON_TYPE, ON_SAVE, OFF)


def _paths(value: object) -> list[Path]:
    if isinstance(value, list) and all(isinstance(v, str) and os.path.isabs(v) for v in value):
        return [Path(v) for v in value]
    raise ValueError("expected a list of absolute directory paths")


def _validate_mode(value: object) -> str:
    if isinstance(value, str) and value in MODES:
        return value
    raise ValueError(f"expected {', '.join(MODES[:-1])} or {MODES[-1]}, not {shown(value)}")


@dataclass
class Settings:
    target_env: str | None = None
    inlay_hints: bool = True
    source_hints: bool = False  # `a.comp:7` where each run of instructions from one source line starts
    validate: str = ON_TYPE  # MODES
    validator_timeout: float = DEFAULT_TIMEOUT  # CPU seconds before spirv-val's process is stopped
    source_roots: list[Path] = field(default_factory=list)  # where else a module's source files may be read
    refuse_invalid_save: bool = False  # spvls.assemble: refuse a module spirv-val rejects (else write it, warn)

    # Each setting's key, the attribute it sets, and a reader that returns the value or raises
    # ValueError with what is wrong. A new setting is one more line here.
    KEYS: ClassVar[dict[str, tuple[str, Callable[[object], object]]]] = {
        "targetEnv": ("target_env", _target_env),
        "inlayHints": ("inlay_hints", _boolean),
        "sourceHints": ("source_hints", _boolean),
        "validate": ("validate", _validate_mode),
        "validatorTimeout": ("validator_timeout", _seconds),
        "sourceRoots": ("source_roots", _paths),
        "refuseInvalidSave": ("refuse_invalid_save", _boolean),
    }
    # spirv-val's options (relaxBlockLayout, scalarBlockLayout, ...), each a boolean.
    KEYS.update({key: (name, _boolean) for key, name in SETTINGS.items()})

    def update(self, raw: object) -> list[str]:
        """Take every valid setting in `raw` (the client's object, or {"spvls": {...}}); the others
        keep their values. Returns what was wrong, one message per problem, for the user."""
        if raw is None:
            return []
        if isinstance(raw, dict) and "spvls" in raw:
            raw = raw["spvls"]
        if isinstance(raw, list) and not raw:
            return []  # an empty Lua table ({}) arrives as []: no settings
        if not isinstance(raw, dict):
            return [f"spvls settings: expected an object of settings, not {shown(raw)}; using the defaults"]
        problems = []
        for key, value in raw.items():
            if key not in self.KEYS:
                continue  # the client's own settings (serverPath, trace...) share the section
            attr, read = self.KEYS[key]
            try:
                setattr(self, attr, read(value))
            except ValueError as e:
                problems.append(f"spvls settings: {key}: {e}; kept {shown(getattr(self, attr))}")
        return problems

    def validator_flags(self) -> dict[str, bool]:
        """spirv-val's boolean options as set: with validator_timeout, all validator_options reads
        (a key for the cache without loading the binding)."""
        return {name: getattr(self, name) for name in SETTINGS.values()}

    def validator_options(self) -> ValidatorOptions:
        from ..checks import validator  # the binding and its workers: not needed before the first validation

        return validator.options(self.validator_flags(), timeout=self.validator_timeout)


for _name in SETTINGS.values():
    setattr(Settings, _name, False)  # spirv-val's default for each of its options


@dataclass
class Workspace:
    settings: Settings = field(default_factory=Settings)
    docs: dict[str, Document] = field(default_factory=dict)
    # uri -> (generation, env, the analysis, the analysis with the file's suppressions applied)
    _analyses: dict[str, tuple[int, str | None, Analysis, Analysis]] = field(default_factory=dict)
    # uri -> (the document, its generation, whether it then had `; spvls: ignore…` comments)
    _marked: dict[str, tuple[Document, int, bool]] = field(default_factory=dict)
    # The workspace folders (from `initialize`) and the roots given on the command line
    # (--source-root): with the sourceRoots setting, see `folders`.
    workspace_folders: list[Path] = field(default_factory=list)
    given_roots: list[Path] = field(default_factory=list)

    @property
    def folders(self) -> list[Path]:
        """Where a module's source files may be read besides the document's own directory (the
        features that read them take these as a parameter): the workspace folders, then the roots
        the user lists (--source-root, the sourceRoots setting). A module cannot add to them."""
        return [*self.workspace_folders, *self.given_roots, *self.settings.source_roots]

    @folders.setter
    def folders(self, value: list[Path]) -> None:
        self.workspace_folders = list(value)

    def open(self, uri: str, text: str, version: int) -> Document:
        doc = Document(text, uri, version)
        self.docs[uri] = doc
        self._analyses.pop(uri, None)  # a document opened again is checked afresh
        self._marked[uri] = (doc, doc.generation, suppress.may_hold(text))  # one search, not one per line
        return doc

    def adopt(self, uri: str, doc: Document, a: Analysis | None, env: str | None, marked: bool) -> None:
        """A document opened with its analysis built elsewhere (off the event loop); without one,
        it is analysed when asked. `marked`: suppress.may_hold of the text it was built from."""
        self.docs[uri] = doc
        self._analyses.pop(uri, None)
        self._marked[uri] = (doc, doc.generation, marked)
        if a is not None:
            self._analyses[uri] = (doc.generation, env, a, self._suppressed(uri, doc, None, a))

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self._analyses.pop(uri, None)
        self._marked.pop(uri, None)

    def analysed(self, uri: str) -> bool:
        """Whether the document's analysis as it is now is at hand (asking for it costs nothing)."""
        doc, cached = self.docs.get(uri), self._analyses.get(uri)
        return doc is not None and cached is not None and cached[:2] == (doc.generation, self.settings.target_env)

    def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document as it is now, its `; spvls: ignore[…]` comments applied;
        recomputed only after an edit."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        cached = self._analyses.get(uri)
        env = self.settings.target_env
        if cached and cached[0] == doc.generation and cached[1] == env:
            return cached[3]
        touched = doc.touched_since(cached[0]) if cached else None
        a = analyze(doc, env, previous=cached[2] if cached else None)
        visible = self._suppressed(uri, doc, touched, a)
        self._analyses[uri] = (doc.generation, env, a, visible)
        return visible

    def checks_whole(self, uri: str) -> bool:
        """Whether the next analysis checks the document whole (never analysed, or lines moved since)."""
        doc, cached = self.docs.get(uri), self._analyses.get(uri)
        return doc is None or cached is None or doc.touched_since(cached[0]) is None

    def _suppressed(self, uri: str, doc: Document, touched: set[int] | None, a: Analysis) -> Analysis:
        """The analysis without what suppression comments silence. A document is searched for them
        whole only when its lines moved, it had some, or an edited line has one: a keystroke in a
        large file without any costs nothing (a whole search of it is not free). `open` searched
        the text it was given: its first analysis does not search the lines again."""
        seen = self._marked.get(uri)
        if seen is not None and seen[0] is doc and seen[1] == doc.generation:
            marked = seen[2]
        else:
            was = seen[2] if seen is not None and seen[0] is doc else None
            marked = (
                touched is None
                or was is None
                or was
                or any(suppress.may_hold(doc.texts[i]) for i in touched if 0 <= i < len(doc.texts))
            ) and suppress.may_hold("\n".join(doc.texts))  # one search, not one per line
            self._marked[uri] = (doc, doc.generation, marked)
        if not marked:
            return a
        return replace(a, diagnostics=suppress.apply(doc.texts, a.diagnostics))

    def invalidate(self) -> None:
        self._analyses.clear()
