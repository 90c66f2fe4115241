"""What a Module caches (module facts, integer constants, each function's uniformity) is computed from a
steady model (model/facts.py): a background request reads its snapshot's Module in a worker thread while
the event loop may update that Module in place, and nothing it computes from a half-updated model may be
kept. The interleavings are forced (the reader runs inside the update, or the update inside the reader),
never timed."""

from __future__ import annotations

from collections.abc import Callable

from helpers import SMALL_MODULE

from spvls.model import uniformity as uni
from spvls.model.facts import module_fact
from spvls.model.module import Inst, Module, build
from spvls.spec.grammar import load
from spvls.syntax.document import Document

EDITED = SMALL_MODULE.split("\n").index("          %x = OpIAdd %int %int_1 %int_1")
NEW = "          %x = OpISub %int %int_1 %int_1"


@module_fact
def _body_opnames(m: Module) -> tuple[str, ...]:
    """What a fact reading inside a function body would see (no real fact may: this one shows what a
    half-updated model looks like)."""
    return tuple(i.opname for i in m.insts if i.line >= m.functions[0].line)


def _module() -> Module:
    return build(Document(SMALL_MODULE), load(), (1, 3))


def _edit(m: Module) -> None:
    m.doc.replace((EDITED, 0), (EDITED, len(m.doc.texts[EDITED])), NEW)


def _update_reading(read: Callable[[Module], object]) -> tuple[Module, list[object]]:
    """A module whose %x line is edited and updated in place, and what read(m) returned where the
    update had taken the old instruction out and not yet put the new one in: where a worker thread
    may be scheduled. A subclass, not a patched method: the compiled build's calls see only that."""
    seen: list[object] = []

    class Reading(Module):
        def _unindex(self, inst: Inst) -> None:
            super()._unindex(inst)
            seen.append(read(self))

    m = Reading(Document(SMALL_MODULE), load(), (1, 3))  # as build() makes a Module
    _edit(m)
    assert m.update({EDITED}) is not None
    return m, seen


def test_a_fact_read_while_an_update_runs_is_not_kept():
    m, seen = _update_reading(_body_opnames)
    assert seen == [("OpFunction", "OpLabel", "OpReturn", "OpFunctionEnd")]  # %x's line missing
    assert _body_opnames(m) == ("OpFunction", "OpLabel", "OpISub", "OpReturn", "OpFunctionEnd")


def test_a_fact_whose_computation_spans_an_update_is_not_kept():
    m = _module()

    @module_fact
    def spanning(m: Module) -> tuple[str, ...]:
        before = _body_opnames.__wrapped__(m)
        _edit(m)  # the loop thread takes an edit while the worker is here
        assert m.update({EDITED}) is not None
        return before

    assert "OpIAdd" in spanning(m)
    assert not any(slot[0] is spanning.__wrapped__ for slot in m.facts)


def test_a_fact_computed_on_a_steady_model_is_kept():
    m = _module()
    first = _body_opnames(m)
    assert _body_opnames(m) is first


def test_an_integer_whose_reading_spans_an_update_is_not_kept():
    # The update runs inside the reading, so the cache it clears is empty by then: only `keeps` can
    # stop the value read before it from being stored after it.
    edits = [EDITED]  # the first reading only

    class Spanning(Module):
        def _int_value(self, id_: str | None) -> int | None:
            value = super()._int_value(id_)
            if edits:
                _edit(self)
                assert self.update({edits.pop()}) is not None
            return value

    m = Spanning(Document(SMALL_MODULE), load(), (1, 3))
    assert m.int_value("%int_1") == 1
    assert "%int_1" not in m._ints
    assert m.int_value("%int_1") == 1
    assert m._ints["%int_1"] == 1


def test_a_uniformity_analysed_while_an_update_runs_is_not_kept():
    m, seen = _update_reading(lambda m: uni.analyse(m, m.functions[0]))
    assert len(seen) == 1
    assert uni.cached(m, m.functions[0]) is None
    after = uni.analyse(m, m.functions[0])
    assert uni.cached(m, m.functions[0]) is after
