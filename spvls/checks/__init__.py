"""Every rule family, run over one module."""
from __future__ import annotations

from dataclasses import dataclass

from ..model.module import Module, build
from ..spec import env as envs
from ..spec.grammar import load
from ..syntax.document import Document
from . import (
    arith,
    ballot,
    capabilities,
    coopmat,
    entry,
    ids,
    layout,
    memory,
    reconvergence,
    rotate,
    structure,
    syntax,
    types,
)
from .origin import attach_sources
from .diagnostic import Diagnostic

FAMILIES = (syntax, ids, capabilities, types, structure, arith, memory, entry, layout, reconvergence, coopmat, rotate, ballot)


@dataclass(slots=True)
class Analysis:
    module: Module
    diagnostics: list[Diagnostic]


def target(doc: Document, target_env: str | None) -> tuple[tuple[int, int], str | None]:
    """The SPIR-V version to check against: the explicit env, else the header, else 1.6."""
    if target_env:
        return envs.version_of(target_env), target_env
    return doc.header_version() or (1, 6), None


def _run(m: Module, scope=None) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    for family in FAMILIES:
        diags.extend(family.check(m, scope))
    diags.sort(key=lambda d: (d.line, d.start, d.code))
    return attach_sources(m, diags)


def analyze(doc: Document, target_env: str | None = None, previous: Analysis | None = None) -> Analysis:
    """Check a document. With the previous analysis of the same document, an edit inside one
    function's body re-checks only that function; anything else is checked whole."""
    version, env = target(doc, target_env)
    touched = doc.touched
    doc.touched = None  # until this analysis succeeds: after a failure the next one starts afresh
    a = _analyze(doc, version, env, touched, previous)
    doc.touched = set()
    return a


def _analyze(doc: Document, version, env, touched, previous: Analysis | None) -> Analysis:
    if previous is not None and touched and previous.module.doc is doc and \
            (previous.module.version, previous.module.env) == (version, env):
        m = previous.module
        fn = m.update(touched)
        if fn is not None:
            kept = [d for d in previous.diagnostics if not fn.line <= d.line <= fn.end_line]
            fresh = _run(m, fn)
            return Analysis(m, sorted(kept + fresh, key=lambda d: (d.line, d.start, d.code)))
    m = build(doc, load(), version)
    m.env = env
    return Analysis(m, _run(m))
