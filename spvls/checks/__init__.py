"""Every rule family, run over one module."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..compiled import let_others_run
from ..model.module import Function, Module, build
from ..model.target import Stated, stated
from ..spec import env as envs
from ..spec.grammar import load
from ..syntax.document import Document
from ..syntax.heap import building
from . import parallel
from .diagnostic import INFO, Diagnostic
from .families import FAMILIES
from .family import Family
from .origin import attach_sources
from .scope import Lines, Scope, holds, plan


@dataclass(slots=True)
class Analysis:
    module: Module
    diagnostics: list[Diagnostic]
    rechecked: Function | None = None  # the function re-checked in place; None: checked whole
    # Each family's diagnostics (by the family's name), in the order of `diagnostics`.
    by_family: dict[str, list[Diagnostic]] = field(default_factory=dict)
    # What each family re-checked in place (a function or some of its lines); empty: checked whole.
    scopes: dict[str, Scope] = field(default_factory=dict)


def _key(d: Diagnostic) -> tuple[int, int, str]:
    return (d.line, d.start, d.code)


def _families() -> dict[str, Family]:
    """The families by name (read at each analysis: tests add one)."""
    return {f.name: f for f in FAMILIES}


def target(
    doc: Document, target_env: str | None, previous: Module | None = None
) -> tuple[tuple[int, int], str | None, Stated | None]:
    """The SPIR-V version and env to check against: the explicit env; else the header's version (or
    1.6) and the env the module states, if it states one (model/target.py). previous: the last module
    of this document, whose statement stands when no edit since reached the lines it was read from."""
    if target_env:
        return envs.version_of(target_env), target_env, None
    header = doc.header_version()
    # A version no env names (`; Version: 1.7`, 2.0): checked as the newest there is.
    version = header if header in envs.VERSIONS else (1, 6)
    if previous is not None and previous.doc is doc and previous.version == version:
        touched = doc.touched_since(previous.generation)
        if touched is not None and previous.stated is not None and all(n >= previous.stated.end for n in touched):
            return version, previous.env, previous.stated
    said = stated(doc, version)
    return version, said.env, said


def env_note(m: Module) -> list[Diagnostic]:
    """The information line saying which env a module is checked under, when the module chose it."""
    said = m.stated
    if said is None or said.env is None:
        return []
    text = m.doc.lines[said.line].text
    return [
        Diagnostic(
            said.line,
            0,
            len(text.split("\n", 1)[0]),
            INFO,
            "env.stated",
            f"checked under the {said.env} target env, because the module says {said.why} "
            "(choose another with --target-env or the targetEnv setting)",
        )
    ]


def _run(m: Module, scopes: dict[str, Scope] | None = None) -> dict[str, list[Diagnostic]]:
    """Each family's diagnostics (in its scope; all: the whole module), sorted, with their sources."""
    if scopes is None and parallel.wanted(m):
        return parallel.run_split(m, list(_families()), _run_whole, _prime)
    if scopes is None:
        return _run_whole(m, list(_families()))
    return {
        name: attach_sources(m, sorted(family.check(m, scopes[name]), key=_key)) for name, family in _families().items()
    }


def _run_whole(m: Module, names: list[str]) -> dict[str, list[Diagnostic]]:
    families, out = _families(), {}
    for name in names:
        let_others_run()  # a whole module's families (a large open's in a worker thread)
        out[name] = attach_sources(m, sorted(families[name].check(m, None), key=_key))
    return out


def _prime(m: Module, names: list[str]) -> None:
    """The module facts these families read before their first line, computed by checks whose
    diagnostics are dropped: of no line for a line-wise family, of the smallest function for another
    (which re-checks a whole function after an edit)."""
    if m.functions:
        families = _families()
        smallest = min(m.functions, key=lambda fn: fn.end_line - fn.line)
        for name in names:
            family = families[name]
            family.check(m, Lines(m.functions[0], ()) if family.is_linewise(m) else smallest)


def _merge(by_family: dict[str, list[Diagnostic]]) -> list[Diagnostic]:
    return sorted((d for diags in by_family.values() for d in diags), key=_key)


def _points_into(diags: list[Diagnostic], fn: Function | None, touched: set[int]) -> bool:
    """Whether a diagnostic outside the edited function (kept as it is by an in-place re-check)
    relates an edited line: its columns may have moved (entry.interface names a variable's first
    use in each function)."""
    if fn is None:
        return False
    return any(
        r.line in touched for d in diags if d.related and not fn.line <= d.line <= fn.end_line for r in d.related
    )


def analyze(
    doc: Document,
    target_env: str | None = None,
    previous: Analysis | None = None,
) -> Analysis:
    """Check a document, which is only read. With the previous analysis of the same document, edits
    since then inside one function's body update its module in place and re-check only that
    function; anything else is checked whole with a new module."""
    version, env, said = target(doc, target_env, previous.module if previous is not None else None)
    if (
        previous is not None
        and previous.module.doc is doc
        and (previous.module.version, previous.module.env) == (version, env)
    ):
        m = previous.module
        touched = doc.touched_since(m.generation)
        if touched and not _points_into(previous.diagnostics, m.function_at(min(touched)), touched):
            m.generation = None  # until this update is checked: after a failure the next one starts afresh
            before = {n: i for n in touched if (i := m.inst_at.get(n)) is not None}
            fn = m.update(touched)
            if fn is not None:
                names = _families()
                scopes = plan(m, fn, touched, before, previous.by_family, names)
                fresh = _run(m, scopes)
                by_family = {
                    name: sorted(
                        [d for d in previous.by_family.get(name, ()) if not holds(scopes[name], d.line)] + fresh[name],
                        key=_key,
                    )
                    for name in names
                }
                m.generation = doc.generation
                return Analysis(m, sorted(_merge(by_family) + env_note(m), key=_key), fn, by_family, scopes)
    generation = doc.generation
    with building(len(doc.lines)):  # one build: the model, and the facts its families build (see heap)
        m = build(doc, load(), version)
        m.env, m.stated = env, said
        by_family = _run(m)
    a = Analysis(m, sorted(_merge(by_family) + env_note(m), key=_key), None, by_family)
    m.generation = generation
    return a
