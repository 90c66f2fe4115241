"""Facts about a module that survive the edits it takes in place.

The incremental contract, stated once: `Module.update` takes an edit in place only when every
edited line lies inside one function's body and declares nothing (no type, constant, annotation,
label, branch, merge, function boundary; see `Module.update`). Anything else builds a new Module.
So a fact computed only from what lies outside function bodies — module-level instructions, types,
decorations, capabilities, labels, the shape of functions and their control flow — stays true for
the Module's whole life, and is computed once per Module with `module_fact`.

A fact that reads an instruction inside a function body must not be a module fact: it would go
stale after an in-place edit. Checks re-run over the edited function instead (see `checks.family.Family`).

A background request reads its snapshot's Module in a worker thread while the event loop may update
that Module in place; what it computes then is dropped (the request answers ContentModified), but a
fact cached meanwhile would outlive it. So a value is cached only when the Module was steady from
start to end of its computation (`keeps`): a fact is always computed from one consistent model.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

if TYPE_CHECKING:
    from .module import Module

P = ParamSpec("P")
T = TypeVar("T")


def module_fact(compute: Callable[Concatenate[Module, P], T]) -> Callable[Concatenate[Module, P], T]:
    """Compute `compute(module, *key)` once per Module and key (keys must be hashable: pass a
    function's line, not the Function).

    `compute` may read only lines outside function bodies (see this module's docstring)."""

    @wraps(compute)
    def get(m: Module, *key: P.args, **kw: P.kwargs) -> T:
        slot = (compute, *key)
        facts = m.facts
        if slot in facts:
            return facts[slot]  # type: ignore[return-value]
        rewrites = m.rewrites
        value = compute(m, *key, **kw)
        if keeps(m, rewrites):
            facts[slot] = value
        return value

    return get


def keeps(m: Module, rewrites: int) -> bool:
    """Whether a value computed from `m`, begun when `m.rewrites` was `rewrites`, may be cached on it:
    no in-place update was under way when it began, nor began or ended since."""
    return not rewrites & 1 and m.rewrites == rewrites
