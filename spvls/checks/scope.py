"""What a keystroke re-checks, family by family (see `analyze`).

After `Module.update` took an edit in place inside one function, a line-wise family (see
`family.Family`) re-checks only:
- the edited lines;
- the lines naming, defining or redefining an id they define or defined (inside the function: an
  edit whose ids are read outside it rebuilds the module);
- when the edit changed which ids the lines define, the lines the family reported on in the
  function (an undefined id's suggestions and fixes read the ids visible there).
Every other family re-checks the function, and so does every family when an edited line is an
OpLine/DebugLine (the source of the lines after it moves) or an id it defines is used as a Result
Type (a rule reading that type would read a line further away).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model.module import Function, Inst, Module
from ..model.sourcemap import debug_op
from .diagnostic import Diagnostic

if TYPE_CHECKING:
    from .family import Family


@dataclass(frozen=True, slots=True)
class Lines:
    """Some instruction lines of one function, in order: the lines a line-wise family re-checks."""

    fn: Function
    lines: tuple[int, ...]


Scope = Function | Lines | None


def holds(scope: Scope, line: int) -> bool:
    """Whether a diagnostic on `line` is the scope's to give (so a re-check replaces it)."""
    if scope is None:
        return True
    if isinstance(scope, Lines):
        k = bisect_left(scope.lines, line)
        return k < len(scope.lines) and scope.lines[k] == line
    return scope.line <= line <= scope.end_line


def insts(m: Module, scope: Scope) -> list[Inst]:
    """The instructions a check looks at: all, one function's, or some lines'."""
    if isinstance(scope, Lines):
        at = m.inst_at
        return [i for n in scope.lines if (i := at.get(n)) is not None]
    return m.scoped(scope)


def with_op(m: Module, opnames: Collection[str], scope: Scope) -> list[Inst]:
    """`Module.with_op` for any scope: the instructions with one of these opnames, in line order."""
    if isinstance(scope, Lines):
        names = set(opnames)
        return [i for i in insts(m, scope) if i.opname in names]
    return m.with_op(opnames, scope)


def line_range(m: Module, scope: Scope) -> Sequence[int]:
    """The line numbers a check of text lines looks at."""
    if isinstance(scope, Lines):
        return scope.lines
    if scope is None:
        return range(len(m.doc.lines))
    return range(scope.line, scope.end_line + 1)


_SOURCE_LINES = {"OpLine", "OpNoLine"}
_DEBUG_SOURCE = {"DebugLine", "DebugNoLine", "DebugScope", "DebugNoScope"}


def _moves_sources(m: Module, inst: Inst | None) -> bool:
    if inst is None:
        return False
    return inst.opname in _SOURCE_LINES or (inst.opname.startswith("OpExtInst") and debug_op(m, inst) in _DEBUG_SOURCE)


def plan(
    m: Module,
    fn: Function,
    touched: set[int],
    before: dict[int, Inst],
    reported: dict[str, list[Diagnostic]],
    families: dict[str, Family],
) -> dict[str, Scope]:
    """The scope each family (by name, in `families`) re-checks after `m.update(touched)` returned
    `fn`. `before`: the instructions the touched lines held before the update; `reported`: each
    family's diagnostics before it."""
    # A family whose diagnostics elsewhere follow what it read of this function (its `widen` says
    # None) re-checks the whole module.
    wide = {name for name, f in families.items() if f.widen is not None and f.widen(m, fn) is None}
    whole: dict[str, Scope] = {name: None if name in wide else fn for name in families}
    after = [m.inst_at.get(n) for n in touched]
    if any(_moves_sources(m, i) for i in (*before.values(), *after)):
        return whole
    old_ids = {i.result for i in before.values() if i.result}
    new_ids = {i.result for i in after if i is not None and i.result}
    base = set(touched)
    lo, hi = fn.line, fn.end_line
    for id_ in old_ids | new_ids:
        uses = m.uses.get(id_, [])
        # Uses are in line order: the function's by bisection (%int_1 may be used 10,000 times).
        part = uses[bisect_left(uses, lo, key=_use_line) : bisect_right(uses, hi, key=_use_line)]
        for user, op in m.references(id_, part):
            if op.grammar_operand.kind == "IdResultType":
                return whole
            base.add(user.line)
        d = m.defs.get(id_)
        if d is not None and lo <= d.line <= hi:
            base.add(d.line)
    base.update(d.line for d in m.duplicates if d.result in old_ids | new_ids and lo <= d.line <= hi)
    renamed = old_ids != new_ids
    out: dict[str, Scope] = {}
    for name, family in families.items():
        if name in wide:
            out[name] = None
            continue
        if not family.is_linewise(m):
            out[name] = fn
            continue
        lines = base
        if renamed:
            lines = base | {d.line for d in reported.get(name, ()) if lo <= d.line <= hi}
        out[name] = Lines(fn, tuple(sorted(lines)))
    return out


def _use_line(use: Inst) -> int:
    return use.line
