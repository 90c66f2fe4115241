"""Open documents and their analyses; no protocol types here."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..checks import Analysis, analyze
from ..spec import env as envs
from ..syntax.document import Document


@dataclass
class Settings:
    target_env: str | None = None
    inlay_hints: bool = True

    def update(self, raw: dict | None) -> None:
        if not isinstance(raw, dict):
            return
        raw = raw.get("spvls", raw)
        env = raw.get("targetEnv")
        if env in (None, "", "auto"):
            self.target_env = None
        elif env in envs.NAMES:
            self.target_env = env
        if "inlayHints" in raw:
            self.inlay_hints = bool(raw["inlayHints"])


@dataclass
class Workspace:
    settings: Settings = field(default_factory=Settings)
    docs: dict[str, Document] = field(default_factory=dict)
    _analyses: dict[str, tuple[int, str | None, Analysis]] = field(default_factory=dict)

    def open(self, uri: str, text: str, version: int) -> Document:
        doc = Document(text, uri, version)
        self.docs[uri] = doc
        return doc

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self._analyses.pop(uri, None)

    def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document as it is now; recomputed only after an edit."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        cached = self._analyses.get(uri)
        env = self.settings.target_env
        if cached and cached[0] == doc.generation and cached[1] == env:
            return cached[2]
        a = analyze(doc, env, previous=cached[2] if cached else None)
        self._analyses[uri] = (doc.generation, env, a)
        return a

    def invalidate(self) -> None:
        self._analyses.clear()
