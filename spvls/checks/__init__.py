"""Every rule family, run over one module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..model.module import Function, Module, build
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
    operands,
    reconvergence,
    rotate,
    structure,
    syntax,
    types,
)
from .diagnostic import Diagnostic
from .origin import attach_sources


class Check(Protocol):
    """A rule family: a module of this package with a `check` function."""

    __name__: str

    def check(self, m: Module, scope: Function | None = None) -> list[Diagnostic]:
        """The family's diagnostics. `scope` None: the whole module. `scope` a function: only the
        diagnostics whose line lies inside that function (its OpFunction to its OpFunctionEnd) —
        the module was just updated in place there (see model.facts), and the diagnostics this
        family gave elsewhere are kept as they were. A rule about lines inside the function may
        read anything outside it; a rule whose diagnostic lies outside functions runs only
        whole, since an in-place edit cannot change what it reads."""
        ...


FAMILIES: tuple[Check, ...] = (
    syntax,
    operands,
    ids,
    capabilities,
    types,
    structure,
    arith,
    memory,
    entry,
    layout,
    reconvergence,
    coopmat,
    rotate,
    ballot,
)
# The extension each extension's family checks: its codes' prefix -> the name its module gives.
EXTENSION_OF_FAMILY = {f.__name__.rsplit(".", 1)[1]: f.EXTENSION for f in FAMILIES if hasattr(f, "EXTENSION")}


@dataclass(slots=True)
class Analysis:
    module: Module
    diagnostics: list[Diagnostic]
    rechecked: Function | None = None  # the function re-checked in place; None: checked whole


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


def _points_into(diags: list[Diagnostic], fn: Function | None, touched: set[int]) -> bool:
    """Whether a diagnostic outside the edited function (kept as it is by an in-place re-check)
    relates an edited line: its columns may have moved (entry.interface names a variable's first
    use in each function)."""
    if fn is None:
        return False
    return any(
        r.line in touched for d in diags if d.related and not fn.line <= d.line <= fn.end_line for r in d.related
    )


def analyze(doc: Document, target_env: str | None = None, previous: Analysis | None = None) -> Analysis:
    """Check a document, which is only read. With the previous analysis of the same document, edits
    since then inside one function's body update its module in place and re-check only that
    function; anything else is checked whole with a new module."""
    version, env = target(doc, target_env)
    if (
        previous is not None
        and previous.module.doc is doc
        and (previous.module.version, previous.module.env) == (version, env)
    ):
        m = previous.module
        touched = doc.touched_since(m.generation)
        if touched and not _points_into(previous.diagnostics, m.function_at(min(touched)), touched):
            m.generation = None  # until this update is checked: after a failure the next one starts afresh
            fn = m.update(touched)
            if fn is not None:
                kept = [d for d in previous.diagnostics if not fn.line <= d.line <= fn.end_line]
                fresh = _run(m, fn)
                m.generation = doc.generation
                return Analysis(m, sorted(kept + fresh, key=lambda d: (d.line, d.start, d.code)), fn)
    generation = doc.generation
    m = build(doc, load(), version)
    m.env = env
    a = Analysis(m, _run(m))
    m.generation = generation
    return a
