"""completion.py's hand-typed tables of value operands that take a known type name only what Khronos'
grammar JSON has: each operand name is one some instruction of those classes or opcodes really has."""
from spvls.features import completion
from spvls.spec.grammar import load


def _names(inst) -> set[str]:
    return {o.name for o in inst.operands if o.name}


def test_the_result_typed_operands_are_the_grammars():
    g = load()
    in_classes = set().union(*(_names(i) for i in g.by_opcode.values() if i.cls in completion._AS_RESULT_CLASSES))
    assert set(completion._AS_RESULT_NAMES) <= in_classes
    for op, names in completion._AS_RESULT_OPS.items():
        inst = g.instruction(op)
        assert inst is not None and inst.has_result_type and set(names) <= _names(inst), op
    every = set().union(*(_names(i) for i in g.by_opcode.values()))
    assert set(completion._PAIRED) | set(completion._PAIRED.values()) <= every
