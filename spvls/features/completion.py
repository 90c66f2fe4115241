"""Completion driven by what the grammar expects at the cursor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ..binding import spirv_tools
from ..model.enablement import lacks
from ..model.facts import module_fact
from ..model.module import Inst, Module
from ..model.typeinfo import describe
from ..spec import execution_models, extension_docs
from ..spec.grammar import Enumerant, Grammar, GrammarOperand, Instruction
from .context import Cursor, cursor
from .docs import enumerant_md, extension_md, instruction_md


@dataclass(slots=True)  # not frozen: a frozen __init__ is slower, and an opcode list is long
class Item:
    label: str
    kind: str  # keyword, enum, type, function, label, value, text
    detail: str
    # What completionItem/resolve needs, with the label, to document the item ({"kind": ...}; "name"
    # where the label is not the name, as OpSpecConstantOp's "IAdd"); the list itself
    # carries no documentation (all the capabilities with theirs would be a large answer each time).
    data: dict
    insert_text: str | None = None
    snippet: bool = False
    sort_text: str | None = None
    replace_start: int | None = None  # column where the replaced word starts
    replace_end: int | None = None  # column where it ends (None: the cursor)


def _rank(name: str, allowed: bool = True) -> str:
    """What the module's capabilities and version enable first; then the four extensions' symbols
    first among equals."""
    return ("0" if allowed else "1") + ("0" if extension_docs.extension_of(name) else "1") + name


def _needs(m: Module, item: Instruction | Enumerant) -> str:
    """Why the module does not enable an instruction or enumerant yet: the detail a user reads."""
    need = lacks(m, item)
    return "" if need is None else f" — {need.text()}"


def _ext_note(item: Instruction | Enumerant) -> str:
    """The extension an item comes from: one of the four's, else the first the grammar lists."""
    ext = extension_docs.extension_of(item.name) or (item.extensions[0] if item.extensions else None)
    return f" ({ext})" if ext else ""


def _snippet(inst: Instruction, with_result: bool) -> str:
    parts, n = [], 1
    for o in inst.operands:
        if o.kind == "IdResult" or o.quantifier:
            continue
        label = (o.name or o.kind).replace("}", "").replace("$", "")
        parts.append(f"${{{n}:{label}}}")
        n += 1
    body = " ".join([inst.name, *parts])
    return f"%${{{n}:result}} = {body}" if with_result else body


# What an id operand names, by its name in the grammar (the JSON says only "IdRef").
_LABELS = ("Merge Block", "Continue Target", "Default")  # and every "... Label"
_TYPE_OPERANDS = (
    "Type",
    "Component Type",
    "Element Type",
    "Pointer Type",
    "Return Type",
    "Sampled Type",
    "Image Type",
    "Column Type",
    "Base Type",
    "Data Type",
    "Function Type",
    "Structure Type",
    "Struct Type",
)
# Operands that take one kind of type only.
_TYPE_OF = {"Function Type": "OpTypeFunction", "Structure Type": "OpTypeStruct", "Struct Type": "OpTypeStruct"}
# Values of these types are listed first where an operand so named is typed.
_POINTERS = ("OpTypePointer", "OpTypeUntypedPointerKHR")
_PREFER = {"Predicate": ("OpTypeBool",), "Condition": ("OpTypeBool",), "Pointer": _POINTERS, "Base": _POINTERS}
# Value operands whose type the spec makes the instruction's Result Type: arithmetic and bitwise
# operands ("The types of Operand 1 and Operand 2 both must be the same as Result Type"; "Base must
# have the same type as Result Type"), OpLogical*'s operands, OpSelect's objects and OpCopyObject's
# operand. tests/unit/test_completion_tables.py keeps the names the grammar's.
_AS_RESULT_CLASSES = ("Arithmetic", "Bit")
_AS_RESULT_NAMES = ("Operand", "Operand 1", "Operand 2", "Operand 3", "Base", "Insert")
_AS_RESULT_OPS = {
    "OpSelect": ("Object 1", "Object 2"),
    "OpCopyObject": ("Operand",),
    "OpLogicalEqual": ("Operand 1", "Operand 2"),
    "OpLogicalNotEqual": ("Operand 1", "Operand 2"),
    "OpLogicalOr": ("Operand 1", "Operand 2"),
    "OpLogicalAnd": ("Operand 1", "Operand 2"),
    "OpLogicalNot": ("Operand",),
}
# A second operand of these names has the first one's type (comparisons: "They must have the same type").
_PAIRED = {"Operand 2": "Operand 1", "Object 2": "Object 1", "Vector 2": "Vector 1"}


def complete(m: Module, line: int, col: int) -> list[Item]:
    c = cursor(m, line, col)
    if c is None:
        return []
    found = _complete(m, c)
    for it in found:  # an item replaces the whole word under the cursor, not only what is before it
        if it.replace_start == c.start:
            it.replace_end = c.end
    return found


def _complete(m: Module, c: Cursor) -> list[Item]:
    if c.opcode_slot:
        return _opcodes(m, c)
    expected = c.expected
    if expected is None:
        return []
    kind = m.grammar.kinds.get(expected.kind)
    if kind and kind.category in ("ValueEnum", "BitEnum"):
        # OpCapability's operand is what declares a capability: nothing to rank it by.
        declaring = c.inst is not None and c.inst.name == "OpCapability"
        place = _entry_place(m, c, kind.kind)
        out = []
        for e in kind.canonical():
            allowed = declaring or m.allows(e)
            detail = f"{kind.kind}{_ext_note(e)}{'' if allowed else _needs(m, e)}"
            group = ""
            if place:
                group, note = place(e.name)
                detail += note
            out.append(
                Item(
                    e.name,
                    "enum",
                    detail,
                    {"kind": kind.kind},
                    sort_text=group + _rank(e.name, allowed),
                    replace_start=c.start,
                )
            )
        return out
    if c.inst and c.inst.name == "OpExtension" and expected.kind == "LiteralString":
        return [
            Item(
                f'"{x}"',
                "text",
                "extension" + (" (documented here)" if x in extension_docs.EXTENSIONS else ""),
                {"kind": "extension"},
                sort_text=("0" if x in extension_docs.EXTENSIONS else "1") + x,
                replace_start=c.start,
            )
            for x in m.grammar.extensions
        ]
    if expected.kind == "LiteralExtInstInteger" and c.ext_set:
        from ..spec.grammar import ext_set

        s = ext_set(m.grammar, c.ext_set)
        return [
            Item(i.name, "function", c.ext_set, {"kind": "extinst", "set": c.ext_set}, replace_start=c.start)
            for i in (s.by_name.values() if s else [])
        ]
    if expected.kind == "LiteralSpecConstantOpInteger":
        return [
            Item(name, "keyword", "opcode", {"name": "Op" + name, "kind": "instruction"}, replace_start=c.start)
            for name in _spec_constant_ops(m.grammar)
        ]
    if expected.kind.startswith("Id") or expected.kind.startswith("Pair"):
        return _ids(m, c, expected)
    return []


def _entry_place(m: Module, c: Cursor, kind: str) -> Callable[[str], tuple[str, str]] | None:
    """For an execution mode or builtin: a function giving each name its group (modes and builtins
    for the entry point's execution model first, modes already declared on it last) and a note."""
    if not c.before or c.inst is None:
        return None
    target = c.before[0].text
    if kind == "ExecutionMode" and c.inst.name in ("OpExecutionMode", "OpExecutionModeId"):
        ep = m.entry_points.get(target)
        if ep is None:
            return None
        declared = {i.src.operands[1].text for i in ep.modes if len(i.src.operands) > 1}

        def mode(name: str) -> tuple[str, str]:
            if name in declared:
                return "2", f" — already declared on {ep.id}"
            if execution_models.fits(m.grammar, kind, name, ep.model):
                return "0", ""
            return "1", f" — not for {ep.model}"

        return mode
    if kind == "BuiltIn" and c.inst.name in ("OpDecorate", "OpMemberDecorate"):
        # The models of the entry points whose interface lists the variable; else every entry point's.
        eps = [ep for ep in m.entry_points.values() if any(o.text == target for o in ep.inst.src.operands[3:])]
        wanted = sorted({ep.model for ep in eps or m.entry_points.values()})
        if not wanted:
            return None

        def builtin(name: str) -> tuple[str, str]:
            if any(execution_models.fits(m.grammar, kind, name, model) for model in wanted):
                return "0", ""
            return "1", f" — not for {'/'.join(wanted)}"

        return builtin
    return None


# Per grammar: what each opcode's item says whatever the module (detail, snippet with and without
# '%result =', rank after the enablement digit). Built once: made on every request, the snippets
# would be most of an opcode completion's time.
_OPCODE_STEMS: dict[int, tuple[object, list[tuple[Instruction, str, str, str, str]]]] = {}


def _opcode_stems(g: Grammar) -> list[tuple[Instruction, str, str, str, str]]:
    hit = _OPCODE_STEMS.get(id(g))
    if hit is None or hit[0] is not g:
        stems = [
            (
                inst,
                f"{inst.cls or 'instruction'}{_ext_note(inst)}",
                _snippet(inst, inst.has_result),
                _snippet(inst, False),
                _rank(inst.name)[1:],
            )
            for inst in g.by_opcode.values()
        ]
        hit = _OPCODE_STEMS[id(g)] = (g, stems)
    return hit[1]


_SPEC_CONSTANT_OPS: dict[int, tuple[object, list[str]]] = {}


def _spec_constant_ops(g: Grammar) -> list[str]:
    """The opcodes OpSpecConstantOp takes, as spirv-as takes them (asked of SPIRV-Tools' library
    once); without the library, every opcode with a result and its type."""
    hit = _SPEC_CONSTANT_OPS.get(id(g))
    if hit is None or hit[0] is not g:
        names = [i.name[2:] for i in g.by_opcode.values() if i.has_result and i.has_result_type]
        if spirv_tools.available():
            names = spirv_tools.spec_constant_ops(names)
        hit = _SPEC_CONSTANT_OPS[id(g)] = (g, names)
    return hit[1]


class _Enabled(NamedTuple):
    declared_caps: frozenset[str]
    extensions: frozenset[str]
    version: tuple[int, int]


# Per grammar and enablement (_Enabled): each opcode's row. A module built again after a line is
# added or removed mostly declares what the one before did, and finds its rows here.
_OPCODE_ROWS: dict[tuple[int, _Enabled], tuple[object, list[tuple[Instruction, str, str, str, str]]]] = {}


@module_fact
def _opcode_rows(m: Module) -> list[tuple[Instruction, str, str, str, str]]:
    """Each opcode's detail and rank for this module: what an opcode lacks depends only on the
    module's capabilities, extensions and version, so it is judged once, not on every request."""
    enabled = _Enabled(frozenset(m.declared_caps), frozenset(m.extensions), m.version)
    hit = _OPCODE_ROWS.get((id(m.grammar), enabled))
    if hit is not None and hit[0] is m.grammar:
        return hit[1]
    out = []
    for inst, detail, with_result, bare, rank in _opcode_stems(m.grammar):
        need = lacks(enabled, inst)
        if need is not None:
            detail = f"{detail} — {need.text()}"
        out.append((inst, detail, with_result, bare, ("0" if need is None else "1") + rank))
    if len(_OPCODE_ROWS) >= 16:
        _OPCODE_ROWS.clear()
    _OPCODE_ROWS[id(m.grammar), enabled] = (m.grammar, out)
    return out


def _opcodes(m: Module, c: Cursor) -> list[Item]:
    # Operands already written after the word: the name alone replaces it (a snippet's placeholders
    # would be inserted before them).
    return [
        Item(
            inst.name,
            "keyword",
            detail,
            {"kind": "instruction"},
            insert_text=inst.name if c.more else bare if c.has_result else with_result,
            snippet=not c.more,
            sort_text=sort,
            replace_start=c.start,
        )
        for inst, detail, with_result, bare, sort in _opcode_rows(m)
        if inst.has_result or not c.has_result
    ]


@module_fact
def _pools(m: Module) -> dict[str, list[str]]:
    """Ids of the global section by what they are."""
    pools: dict[str, list[str]] = {"type": [], "constant": [], "function": [], "global": []}
    for id_, d in m.defs.items():
        op = d.opname
        if d.is_type:
            pools["type"].append(id_)
        elif op == "OpFunction":
            pools["function"].append(id_)
        elif m.function_at(d.line) is None and op not in ("OpExtInstImport", "OpString", "OpLabel"):
            pools["constant" if m.is_constant(id_) else "global"].append(id_)
    return pools


def _candidates(m: Module, c: Cursor, want: str) -> list[str]:
    pools = _pools(m)
    fn = m.function_at(c.line)
    if want in ("type", "function", "constant"):
        return pools[want]
    if want == "label":
        return [b.label for b in fn.blocks] if fn else []
    if want == "any":  # a name or decoration's target: whatever the module defines
        return [k for k, d in m.defs.items() if d.opname not in ("OpExtInstImport", "OpString")]
    local = []
    if fn is not None:
        phi = c.inst is not None and c.inst.name == "OpPhi"  # a loop's phi takes values defined below it
        local = [
            i.result
            for i in m.insts_in(fn)
            if i.result and i.opname not in ("OpLabel", "OpFunction") and (phi or i.line < c.line)
        ]
    return pools["constant"] + pools["global"] + local


MAX_IDS = 500


def capped(items: list[Item]) -> bool:
    """Whether the list is ids cut at MAX_IDS, so the client must ask again as the user types more
    of the name. Opcode and enumerant lists are always whole, however long: the client filters them."""
    return len(items) >= MAX_IDS and items[-1].data.get("kind") == "id"


def _want(m: Module, c: Cursor, expected: GrammarOperand) -> tuple[str, str | None]:
    """What an id operand takes: type, label, function, constant, any or value; and for a type,
    the one type opcode it must be (None: any type)."""
    name, kind, inst = expected.name or "", expected.kind, c.inst
    pair = m.grammar.kinds.get(kind)
    if pair is not None and len(pair.bases) == 2:  # OpSwitch's (literal, label), OpPhi's (value, parent), ...
        fixed = sum(1 for o in inst.operands if o.kind != "IdResult" and not o.quantifier) if inst else 0
        second = (len(c.before) - fixed) % 2 == 1
        if pair.bases[second] != "IdRef":
            return "none", None
        if inst and inst.name in ("OpSwitch", "OpPhi") and (second or inst.name == "OpSwitch"):
            return "label", None
        if inst and inst.name == "OpGroupMemberDecorate":
            return "type", "OpTypeStruct"
        return "value", None
    if inst and inst.name == "OpMemberName" and name == "Type":
        return "type", "OpTypeStruct"
    if (
        kind == "IdResultType"
        or name in _TYPE_OPERANDS
        or (inst and inst.is_type and name not in ("Rows", "Columns", "Length"))
    ):
        return "type", _TYPE_OF.get(name)
    if kind == "IdRef" and (name.endswith("Label") or name in _LABELS):
        return "label", None
    if name == "Entry Point" or (inst and inst.name == "OpFunctionCall" and name == "Function"):
        return "function", None
    if name in ("Target", "Targets") and inst and inst.cls in ("Debug", "Annotation"):
        return "any", None
    if kind in ("IdScope", "IdMemorySemantics") or name in ("Rows", "Columns", "Use", "MemoryLayout"):
        return "constant", None
    return "value", None


def _ids(m: Module, c: Cursor, expected: GrammarOperand) -> list[Item]:
    inst = c.inst
    want, only = _want(m, c, expected)
    if want == "none":
        return []
    coopmat_type = (
        inst is not None
        and want == "type"
        and (
            inst.name in ("OpCooperativeMatrixLoadKHR", "OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixLengthKHR")
        )
    )
    scalar_int = expected.kind in ("IdScope", "IdMemorySemantics")  # a Scope or Semantics is an integer
    prefer = _PREFER.get(expected.name or "", ()) if want == "value" else ()
    typed = _value_type(m, c, expected) if want == "value" else None
    if typed is not None:
        prefer = ()  # the exact type says more than a kind of type
    own = m.inst_at.get(c.line)
    prefix = c.prefix.lower()
    out = []
    for id_ in _candidates(m, c, want):
        if prefix and prefix not in id_.lower():
            continue
        d = m.defs.get(id_)
        if d is None or (only is not None and d.opname != only):
            continue
        if own is not None and d is own and not (inst is not None and inst.name == "OpPhi"):
            continue  # the line's own result
        if scalar_int and _type_op(m, d) != "OpTypeInt":
            continue
        is_type = d.is_type
        t = describe(m, d) if is_type else describe(m, m.definition(d.result_type))
        top = (
            (coopmat_type and d.opname == "OpTypeCooperativeMatrixKHR")
            or (bool(prefer) and _type_op(m, d) in prefer)
            or (typed is not None and d.result_type == typed)
        )
        out.append(
            Item(
                id_,
                {"type": "type", "label": "label", "function": "function"}.get(want, "value"),
                "label" if d.opname == "OpLabel" else t,
                {"kind": "id"},
                sort_text=("0" if top else "1") + id_,
                replace_start=c.start,
            )
        )
        if len(out) >= MAX_IDS:
            break
    return out


def _written(m: Module, c: Cursor) -> dict[str, str]:
    """The ids written before the cursor by the grammar's operand names ("" for the Result Type)."""
    if c.inst is None:
        return {}
    names = [o.name or "" for o in c.inst.operands if o.kind != "IdResult" and not o.quantifier]
    return {n: t.text for n, t in zip(names, c.before, strict=False) if t.kind == "ID"}


def _value_type(m: Module, c: Cursor, expected: GrammarOperand) -> str | None:
    """The type id a value operand must have, where the instruction fixes it: the Result Type for
    arithmetic, bitwise and logical operands, the first operand's type for the second of a
    comparison, the pointee for OpStore's Object, the function's return type for OpReturnValue."""
    inst, name = c.inst, expected.name or ""
    if inst is None:
        return None
    written = _written(m, c)
    if name in _PAIRED and _PAIRED[name] in written:
        first = m.definition(written[_PAIRED[name]])
        if first is not None and first.result_type is not None:
            return first.result_type
    if (inst.cls in _AS_RESULT_CLASSES and name in _AS_RESULT_NAMES) or name in _AS_RESULT_OPS.get(inst.name, ()):
        return written.get("")
    if inst.name == "OpStore" and name == "Object" and "Pointer" in written:
        pointer = m.type_of(written["Pointer"])
        pointee = pointer.operand("Type") if pointer is not None and pointer.opname == "OpTypePointer" else None
        return pointee.token.text if pointee is not None else None
    if inst.name == "OpReturnValue":
        fn = m.function_at(c.line)
        return fn.inst.result_type if fn is not None else None
    return None


def _type_op(m: Module, d: Inst) -> str | None:
    t = m.definition(d.result_type)
    return t.opname if t is not None else None


def resolve(label: str, data: dict | None, m: Module | None = None) -> str | None:
    """The Markdown documentation of a completion item, from its label and the data complete() gave
    it (without data, what the label names)."""
    from ..spec.grammar import ext_set, load

    g = m.grammar if m is not None else load()
    data = data if isinstance(data, dict) else {}
    name = data.get("name") or label.strip('"')
    if not isinstance(name, str):
        return None
    kind = data.get("kind")
    if kind == "instruction" or (kind is None and g.instruction(name)):
        inst = g.instruction(name)
        return instruction_md(inst) if inst else None
    if kind == "extension" or (kind is None and name in g.extensions):
        return extension_md(name)
    if kind == "extinst":
        s = ext_set(g, str(data.get("set", "")))
        inst = s.by_name.get(name) if s else None
        return instruction_md(inst, s.name) if s and inst else None
    if kind == "id":
        d = m.definition(name) if m is not None else None
        return f"```spvasm\n{d.src.text.strip()}\n```" if d else None
    kinds = [g.kinds[kind]] if kind in g.kinds else [] if kind else list(g.kinds.values())
    for k in kinds:
        e = k.enumerants.get(name)
        if e is not None:
            return enumerant_md(e, k.category)
    return None
