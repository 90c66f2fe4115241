"""Quick fixes: every edit a diagnostic offers is built here, whichever family reports it."""

from __future__ import annotations

from collections.abc import Sequence

from ..model.module import Inst, Module
from ..model.operands import Operand, name_suggestions, named_value, opcode_suggestions
from ..model.typeinfo import int_info
from ..spec.execution_models import capability_fits
from .diagnostic import Diagnostic, Edit, Fix


def change_to(line: int, start: int, end: int, choices: Sequence[str], quoted: bool = False) -> tuple[Fix, ...]:
    """Replace [start, end) of the line by one of (at most) the first three choices."""
    return tuple(
        Fix(f"Change to '{s}'" if quoted else f"Change to {s}", (Edit(line, start, end, s),)) for s in choices[:3]
    )


def offered(m: Module, d: Diagnostic) -> tuple[Fix, ...]:
    """A diagnostic's fixes; for an unknown name whose check named none (past
    Module.suggests_opcodes or suggests_names), the closest names, found now."""
    inst = m.inst_at.get(d.line)
    if d.fixes or inst is None:
        return d.fixes
    if inst.grammar_inst is None:
        if d.code != "operand.unknown-opcode" or (d.start, d.end) != (inst.opcode.start, inst.opcode.end):
            return d.fixes
        return change_to(d.line, d.start, d.end, opcode_suggestions(m.grammar, inst.opcode.text), quoted=True)
    p = next((p for p in inst.problems if p.pool and (p.code, p.start, p.end) == (d.code, d.start, d.end)), None)
    if p is None:
        return d.fixes
    return change_to(
        d.line, d.start, d.end, name_suggestions(m.grammar, p.pool, inst.src.text[p.start : p.end]), quoted=True
    )


def grouped(m: Module, diags: Sequence[Diagnostic]) -> list[tuple[Fix, list[Diagnostic], bool]]:
    """The diagnostics' fixes, each offered once with every diagnostic it fixes (two rules on one
    line wanting one OpCapability make one action), and whether it is its first diagnostic's first."""
    out: dict[tuple, tuple[Fix, list[Diagnostic], bool]] = {}
    for d in diags:
        found = offered(m, d)
        for fix in found:
            key = (fix.title, fix.edits)
            if key in out:
                out[key][1].append(d)
            else:
                out[key] = (fix, [d], fix is found[0])
    return list(out.values())


def _indent(inst: Inst) -> str:
    return inst.src.text[: len(inst.src.text) - len(inst.src.text.lstrip())]


def _insert_after(m: Module, opnames: tuple[str, ...]) -> tuple[int, str]:
    """Line to insert a new header instruction at, and the indentation to use."""
    best, indent = None, ""
    for inst in m.insts:
        if inst.opname in opnames:
            best = inst.line
            indent = _indent(inst)
    if best is not None:
        return best + 1, indent
    first = m.insts[0] if m.insts else None
    if first is not None:
        return first.line, _indent(first)
    return 0, ""


def add_capability(m: Module, cap: str, safe: bool = False) -> Fix:
    line, indent = _insert_after(m, ("OpCapability",))
    return Fix(f"Add 'OpCapability {cap}'", (Edit(line, 0, 0, f"{indent}OpCapability {cap}\n"),), safe)


def add_extension(m: Module, ext: str, safe: bool = False) -> Fix:
    line, indent = _insert_after(m, ("OpCapability", "OpExtension"))
    return Fix(f"Add 'OpExtension \"{ext}\"'", (Edit(line, 0, 0, f'{indent}OpExtension "{ext}"\n'),), safe)


def add_capabilities(m: Module, caps: Sequence[str]) -> tuple[Fix, ...]:
    """One fix per capability that would do and that the module's execution models and target env
    allow (the first three, each once); safe when there is only one."""
    models = [ep.model for ep in m.entry_points.values()]
    fit = [c for c in dict.fromkeys(caps) if capability_fits(m.grammar, c, models, m.env)]
    return tuple(add_capability(m, c, safe=len(fit) == 1) for c in fit[:3])


def add_extensions(m: Module, exts: Sequence[str], safe: bool = True) -> tuple[Fix, ...]:
    return tuple(add_extension(m, e, safe=safe and len(exts) == 1) for e in exts[:3])


def header_version(line: int, start: int, end: int, new: str) -> Fix:
    """Rewrite the version in a `; Version: 1.3` header comment."""
    return Fix(f"Update the header to '; Version: {new}'", (Edit(line, start, end, new),))


def made_safe(found: tuple[Fix, ...]) -> tuple[Fix, ...]:
    """The same fixes, marked as the only way to meet the rule."""
    return tuple(Fix(f.title, f.edits, True) for f in found)


def constant_for(m: Module, inst: Inst, op: Operand | None) -> tuple[Fix, ...]:
    """A Scope or Memory Semantics written by name where its <id> belongs: use a constant that holds
    the value, or define one after the 32-bit unsigned integer type."""
    value = named_value(m.grammar, op.grammar_operand.kind, op.token.text) if op else None
    if op is None or value is None:
        return ()
    tok = op.token
    same = [
        i
        for i, d in m.defs.items()
        if d.opname == "OpConstant"
        and m.int_value(i) == value
        and (int_info(m.definition(d.result_type)) or (0,))[0] == 32
    ]
    if same:
        return change_to(inst.line, tok.start, tok.end, same)
    u32 = next((d for d in m.defs.values() if int_info(d) == (32, False)), None)
    if u32 is None:
        return ()
    new = f"%{tok.text.split('|')[0].lower()}_{value}"
    if new in m.defs:
        return ()
    indent = u32.src.text[: len(u32.src.text) - len(u32.src.text.lstrip())]
    return (
        Fix(
            f"Define {new} = OpConstant {u32.result} {value} and use it",
            (
                Edit(u32.line + 1, 0, 0, f"{indent}{new} = OpConstant {u32.result} {value}\n"),
                Edit(inst.line, tok.start, tok.end, new),
            ),
        ),
    )
