"""The operand family: operands the grammar JSON rejects (the model's operand matcher finds most; see
model/operands.py)."""

from __future__ import annotations

from typing import Final

from ...model.module import Inst, Module
from ...model.operands import Problem, name_suggestions, opcode_suggestions
from ...syntax.parser import LineFields, int_value
from .. import fixes
from ..diagnostic import ERROR, Diagnostic, at
from ..family import Family, Rule
from ..scope import Scope, insts


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    suggesting, naming = m.suggests_opcodes(), m.suggests_names()
    for inst in insts(m, scope):
        if inst.inst is None:  # (Inst.grammar_inst, without the property) its one problem: the opcode is unknown
            out.append(_unknown_opcode(m, inst, suggesting))
        words = None  # the line's name operands by column, looked up once per line, not per problem
        # (a list either way, never (): the compiled build walks a list without an iterator, where a
        # value that may be a list or a tuple is walked generically)
        for p in inst.problems if inst.inst is not None else _NO_PROBLEMS:
            if words is None:
                words = {o.token.start: o for o in inst.operands if o.token.kind == "WORD"}
            if p.pool:
                out.append(_unknown_name(m, inst, p, naming))
                continue
            found = fixes.change_to(inst.line, p.start, p.end, p.suggestions, quoted=True) or fixes.constant_for(
                m, inst, words.get(p.start)
            )
            out.append(at(inst.line, p, ERROR, p.code, p.message, fixes=found))
        if inst.opname == "OpExtInst":
            out.extend(_ext_set(m, inst))
        if inst.opname in _CONTEXT_DEPENDENT:
            out.extend(_literal_values(m, inst))
        fields: LineFields = inst.src  # (the compiled build reads a tuple item, not a Line's field by name)
        if len(fields.text) > 2 * MAX_WORDS:  # every word takes at least two characters of text
            out.extend(_word_count(inst))
    return out


_NO_PROBLEMS: Final[list[Problem]] = []  # (read only)


def _ext_set(m: Module, inst: Inst) -> list[Diagnostic]:
    """An OpExtInst naming its instruction by name whose Set is defined but is no OpExtInstImport
    above it (spirv-as reads the name in the set it imported)."""
    op, name = inst.operand("Set"), inst.operand("Instruction")
    if op is None or name is None or op.token.kind != "ID" or name.token.kind != "WORD":
        return []
    d = m.definition(op.token.text)
    if d is None or d.opname == "OpExtInstImport":
        return []  # undefined (id.undefined), or an import below (id.forward-reference)
    lead = f"{op.token.text} is the result of {d.opname}, not of an OpExtInstImport"
    return [FAMILY.cite(inst.line, op.token, "operand.extinst-set", lead)]


def _unknown_opcode(m: Module, inst: Inst, suggesting: bool) -> Diagnostic:
    """With the closest opcodes while the module has few unknown ones (Module.suggests_opcodes);
    past that, fixes.offered finds them when a quick fix is asked for."""
    tok = inst.opcode
    sugg = opcode_suggestions(m.grammar, tok.text) if suggesting else []
    hint = f"; did you mean {sugg[0]!r}?" if sugg else ""
    found = fixes.change_to(inst.line, tok.start, tok.end, sugg, quoted=True)
    return at(inst.line, tok, ERROR, "operand.unknown-opcode", f"unknown instruction {tok.text!r}{hint}", fixes=found)


def _unknown_name(m: Module, inst: Inst, p: Problem, naming: bool) -> Diagnostic:
    """An unknown enumerant, extended instruction or OpSpecConstantOp opcode: with the closest
    names while the module has few (Module.suggests_names); past that, fixes.offered finds them."""
    sugg = name_suggestions(m.grammar, p.pool, inst.src.text[p.start : p.end]) if naming else []
    hint = f"; did you mean {sugg[0]!r}?" if sugg else ""
    found = fixes.change_to(inst.line, p.start, p.end, sugg, quoted=True)
    return at(inst.line, p, ERROR, p.code, p.message + hint, fixes=found)


MAX_WORDS: Final = 0xFFFF  # "The 16 high-order bits are the WordCount of the instruction" (SPIR-V 2.3)


def _word_count(inst: Inst) -> list[Diagnostic]:
    """An instruction too long for its 16-bit word count (spirv-as rejects it). Counted from below:
    one word per token, a string's bytes and its NUL in words of four."""
    words = 1 + (inst.src.result is not None)
    for tok in inst.src.operands:
        if tok.kind == "STRING":  # the bytes between the quotes, each escape one byte, then a NUL
            body = tok.text[1:-1]
            words += (len(body.encode("utf-8", "replace")) - body.count("\\")) // 4 + 1
        else:
            words += 1
    if words <= MAX_WORDS:
        return []
    return [
        at(
            inst.line,
            inst.opcode,
            ERROR,
            "operand.too-long",
            f"{inst.opname} takes at least {words:,} words, but an instruction holds at most "
            f"{MAX_WORDS:,}: its word count is 16 bits (SPIR-V 2.3 Physical Layout)",
        )
    ]


_CONTEXT_DEPENDENT: Final = {"OpConstant", "OpSpecConstant", "OpSwitch"}


def _int_range(width: int, signed: bool) -> tuple[int, int]:
    # spirv-as takes any bit pattern of the width for signed types, written as hex or positive.
    return (-(1 << (width - 1)) if signed else 0), (1 << width) - 1


def _literal_values(m: Module, inst: Inst) -> list[Diagnostic]:
    """LiteralContextDependentNumber: the result type (or the selector) decides its form."""
    op = inst.opname
    if op in ("OpConstant", "OpSpecConstant"):
        type_id, lits = (
            inst.result_type,
            [o for o in inst.operands if o.grammar_operand.kind == "LiteralContextDependentNumber"],
        )
    elif op == "OpSwitch":
        sel = inst.ids()
        t = m.type_of(sel[0].token.text) if sel else None
        type_id = t.result if t else None
        lits = [o for o in inst.operands if o.grammar_operand.kind == "LiteralInteger" and o.token.kind != "RAW"]
    else:
        return []
    t = m.definition(type_id)
    if t is None or not lits:
        return []
    if op != "OpSwitch" and t.opname not in ("OpTypeInt", "OpTypeFloat") and t.is_type:
        tok = inst.operands[0].token
        return [
            at(
                inst.line,
                tok,
                ERROR,
                "operand.constant-type",
                f"the type of {op} is {t.opname} {type_id}: spirv-as takes only a scalar integer or "
                "floating-point type here (for other types use OpConstantComposite, OpConstantTrue, "
                "OpConstantNull...)",
            )
        ]
    out = []
    widths = [o.token.text for o in t.operands if not o.is_id]
    for lit in lits:
        tok = lit.token
        width = int_value(widths[0]) if t.opname == "OpTypeInt" and len(widths) >= 2 else None
        if width is not None and 0 < width <= 64:  # a width of 2**40 would make a 2**40-bit bound
            signed = widths[1] == "1"
            if tok.kind != "INT":
                out.append(
                    at(
                        inst.line,
                        tok,
                        ERROR,
                        "operand.literal-type",
                        f"{tok.text!r} is not an integer, but the type {t.result} is an integer type",
                    )
                )
                continue
            lo, hi = _int_range(width, signed)
            value = int_value(tok.text)
            if value is None:
                continue  # not a number at all: the operand matcher reports it
            if not lo <= value <= hi:
                kind = "signed" if signed else "unsigned"
                out.append(
                    at(
                        inst.line,
                        tok,
                        ERROR,
                        "operand.literal-range",
                        f"{tok.text} does not fit a {width}-bit {kind} integer ({t.result})",
                    )
                )
    return out


FAMILY = Family(
    name="operands",
    prefix="operand",
    summary="operands against the grammar JSON: unknown opcodes and enumerants (with did-you-mean), too few or too many operands, an id for a literal, a literal out of range.",
    rules=(
        Rule("operand.unknown-opcode", "an instruction the grammar does not have."),
        Rule("operand.unknown-enumerant", "a name the operand's kind does not have."),
        Rule("operand.unknown-extinst", "an instruction the extended instruction set does not have."),
        Rule(
            "operand.extinst-set",
            "an OpExtInst whose Set is not an imported extended instruction set.",
            sentence="OpExtInst: Set is the result of an OpExtInstImport instruction.",
        ),
        Rule("operand.missing", "fewer operands than the instruction takes."),
        Rule("operand.extra", "more operands than the instruction takes."),
        Rule("operand.missing-result", "an instruction that produces a result written without one."),
        Rule("operand.unexpected-result", "a result given to an instruction that produces none."),
        Rule("operand.expected-id", "an operand that must be an <id>."),
        Rule("operand.expected-literal", "an operand that must be a literal."),
        Rule("operand.expected-enumerant", "an operand that must be an enumerant name (one, unless a mask)."),
        Rule("operand.expected-string", "an operand that must be a quoted string."),
        Rule("operand.expected-integer", "an operand that must be an integer."),
        Rule("operand.expected-number", "an operand that must be a number."),
        Rule("operand.negative-literal", "a negative literal where the grammar takes an unsigned one."),
        Rule("operand.constant-type", "OpConstant or OpSpecConstant of a type that is not a scalar number."),
        Rule("operand.literal-type", "a literal whose form does not suit its type."),
        Rule("operand.literal-range", "a literal that does not fit its type's width."),
        Rule("operand.too-long", "an instruction longer than its 16-bit word count can say."),
    ),
    check=check,
    linewise=True,
)
