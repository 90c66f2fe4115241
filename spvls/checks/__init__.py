"""Every rule family, run over one module."""
from __future__ import annotations

from dataclasses import dataclass

from ..model.module import Module, build
from ..spec import env as envs
from ..spec.grammar import load
from ..syntax.document import Document
from . import ballot, capabilities, coopmat, ids, layout, reconvergence, rotate, syntax
from .diagnostic import Diagnostic

FAMILIES = (syntax, ids, capabilities, layout, reconvergence, coopmat, rotate, ballot)


@dataclass(slots=True)
class Analysis:
    module: Module
    diagnostics: list[Diagnostic]


def target(doc: Document, target_env: str | None) -> tuple[tuple[int, int], str | None]:
    """The SPIR-V version to check against: the explicit env, else the header, else 1.6."""
    if target_env:
        return envs.version_of(target_env), target_env
    return doc.header_version() or (1, 6), None


def analyze(doc: Document, target_env: str | None = None) -> Analysis:
    version, env = target(doc, target_env)
    m = build(doc, load(), version)
    m.env = env
    diags: list[Diagnostic] = []
    for family in FAMILIES:
        diags.extend(family.check(m))
    diags.sort(key=lambda d: (d.line, d.start, d.code))
    return Analysis(m, diags)
