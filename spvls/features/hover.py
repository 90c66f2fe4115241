"""Hover: grammar facts and the extension's own text for names; definition and type for ids."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..model import uniformity as uni
from ..model.enablement import lacks
from ..model.module import Inst, Module
from ..model.shapes import member_names
from ..model.sourcemap import in_effect, inlining, location_of, scope_function_name
from ..model.typeinfo import type_text
from ..spec.grammar import Enumerant, Instruction, ext_set
from ..syntax.parser import Token, int_value
from .docs import code, enumerant_md, ext_set_doc, extension_md, fenced, instruction_md, term_md
from .interface import hover_md
from .sourcefiles import source_line

# Markdown and the (start, end) columns it describes, or None
Hover = tuple[str, tuple[int, int]] | None


def hover(m: Module, line: int, col: int, folders: Sequence[Path] = ()) -> Hover:
    """Markdown and the (start, end) columns it describes, or None. `folders`: the workspace
    folders, where a relative source file name is looked for."""
    src = m.doc.line(line)
    if src is None:
        return None
    tok = src.token_at(col)
    if tok is None:
        return None
    inst = m.inst_at.get(line)
    span = (tok.start, tok.end)
    if tok.kind == "OPNAME":
        grammar_inst = m.grammar.instruction(tok.text)
        note = hover_note(m, line, folders) if inst is not None else ""
        branch = _branch(m, line) if inst is not None and inst.opname in _BRANCHES else ""
        md = "\n\n---\n\n".join(
            x
            for x in (note, branch, instruction_md(grammar_inst) if grammar_inst else "", _enabled(m, grammar_inst))
            if x
        )
        return (md, span) if md else None
    if tok.kind == "ID":
        return _id(m, tok.text) + _as_operand(m, inst, tok), span
    if tok.kind == "WORD" and inst is not None:
        return _word(m, inst, tok, col)
    if tok.kind == "STRING" and inst is not None and inst.opname == "OpExtension":
        return extension_md(tok.text.strip('"')), span
    if tok.kind == "STRING" and inst is not None and inst.opname == "OpExtInstImport":
        d = ext_set_doc(tok.text.strip('"'))
        return (d.markdown, span) if d else None
    if tok.kind == "COMMENT":
        return _term(tok.text, col - tok.start, tok.start)
    if tok.kind in ("INT", "FLOAT", "STRING") and inst is not None:
        return _literal(m, inst, tok, line, folders)
    return None


def _literal(m: Module, inst: Inst, tok: Token, line: int, folders: Sequence[Path]) -> Hover:
    """A literal operand: its name and kind in the grammar; on OpLine, the source line it names."""
    op = next((o for o in inst.match.operands if o.token.start == tok.start), None)
    if op is None or op.grammar_operand is None:
        return None
    g = op.grammar_operand
    md = f"**{g.name or g.kind}**: {g.kind} operand of `{inst.opname}`"
    note = hover_note(m, line, folders) if inst.opname == "OpLine" else ""
    return "\n\n".join(x for x in (md, note) if x), (tok.start, tok.end)


def _enabled(m: Module, item: Instruction | Enumerant | None) -> str:
    """Why the module does not enable the instruction or enumerant yet, as the checker says."""
    need = lacks(m, item) if item is not None else None
    return f"**Not enabled in this module**: {need.text()}" if need else ""


def _id(m: Module, id_: str) -> str:
    d = m.definition(id_)
    if d is None:
        return f"{code(id_)} is not defined"
    parts = [f"Defined on line {d.line + 1}"]
    name = m.names.get(id_)
    if name:
        parts.append(f"OpName: {code(name)}")
    t = type_text(m, id_)
    if t:
        parts.append(f"Type: {code(t)}")
    ep = m.entry_points.get(id_)
    if ep is not None:
        modes = ", ".join(_after(mode, 1) for mode in ep.modes)
        parts.append(
            f"Entry point: {ep.model} {code(chr(34) + ep.name + chr(34))}"
            + (f"; modes: {code(modes)}" if modes else "")
        )
    decorations = m.decorations.get(id_, [])
    if decorations:
        members = member_names(m, id_) if any(i.opname in _MEMBER_DECORATIONS for i in decorations[:8]) else {}
        parts.append(
            "Decorations: "
            + ", ".join(_decoration(i, members) for i in decorations[:8])
            + (f" and {len(decorations) - 8} more" if len(decorations) > 8 else "")
        )
    parts.append(f"References: {len(m.uses.get(id_, ()))}")
    uniformity = _uniformity(m, id_, d.line)
    if uniformity:
        parts.append(uniformity)
    resource = hover_md(m, id_) if d.opname == "OpVariable" and m.function_at(d.line) is None else ""
    return fenced(d.src.text.strip(), "spvasm") + "\n\n" + "  \n".join(parts) + (f"\n\n{resource}" if resource else "")


_BRANCHES = ("OpBranchConditional", "OpSwitch")


def _uniformity(m: Module, id_: str, line: int) -> str:
    """A value's uniformity in one line, with the chain of ids back to its source ('' when uniform)."""
    u = uni.at_line(m, line)
    said = uni.describe_value(m, u, id_) if u is not None else None
    if said is None:
        return ""
    text, links = said
    return f"**Uniformity**: {text}" + _chain(m, links)


def _branch(m: Module, line: int) -> str:
    u = uni.at_line(m, line)
    fn = u.fn if u is not None else None
    block = next((b for b in fn.blocks if b.terminator is not None and b.terminator.line == line), None) if fn else None
    said = uni.describe_branch(m, u, block.label) if u is not None and block is not None else None
    if said is None:
        return ""
    text, links = said
    return f"**Uniformity**: {text}" + _chain(m, links)


def _chain(m: Module, links: list) -> str:
    """← the ids a divergence came through, each a link to its line, ending with its source."""
    if not links:
        return ""
    steps = [f"[`{id_}`]({_target(m, w.line)})" for id_, w in links]
    return ": " + " ← ".join(steps) + f" ({links[-1][1].text})"


def _target(m: Module, line: int) -> str:
    return f"{m.doc.uri}#L{line + 1}" if m.doc.uri else f"#L{line + 1}"


def _as_operand(m: Module, inst: Inst | None, tok: Token) -> str:
    """What a Scope or Memory Semantics <id> means in the operand under the cursor."""
    op = next((o for o in inst.match.operands if o.token.start == tok.start), None) if inst else None
    spelled = m.spelled(op) if op else None
    if op is None or spelled is None:
        return ""
    kind, value, name = spelled
    return f"  \nAs {op.grammar_operand.name or kind}: `{name}` ({kind} {value:#x})"


_MEMBER_DECORATIONS = ("OpMemberDecorate", "OpMemberDecorateString")


def _decoration(inst: Inst, members: dict[int, str]) -> str:
    """A decoration without its target; a member's with the member's number and OpMemberName."""
    ops = inst.match.operands
    if inst.opname not in _MEMBER_DECORATIONS or len(ops) < 2:
        return code(_after(inst, 1))
    member = ops[1].token.text
    index = int_value(member)
    name = members.get(index) if index is not None else None
    return f"{code(_after(inst, 2))} (member {member}{f' {code(name)}' if name else ''})"


def _after(inst: Inst, skip: int) -> str:
    """An instruction's operands after the first `skip` (e.g. a decoration without its target)."""
    return " ".join(o.token.text for o in inst.match.operands[skip:])


def _word(m: Module, inst: Inst, tok: Token, col: int) -> Hover:
    for op in inst.match.operands:
        if op.token.start != tok.start:
            continue
        if op.grammar_operand.kind == "LiteralExtInstInteger":
            set_name = m.ext_imports.get(inst.ids()[1].token.text) if len(inst.ids()) > 1 else None
            s = ext_set(m.grammar, set_name) if set_name else None
            e = s.by_name.get(tok.text) if s else None
            return (instruction_md(e, set_name), (tok.start, tok.end)) if e else None
        if op.grammar_operand.kind == "LiteralSpecConstantOpInteger":
            grammar_inst = m.grammar.instruction("Op" + tok.text)
            return (instruction_md(grammar_inst), (tok.start, tok.end)) if grammar_inst else None
        kind = m.grammar.kinds.get(op.grammar_operand.kind)
        if kind is None:
            return None
        # A mask: the name under the cursor.
        start = tok.start
        for part in tok.text.split("|"):
            end = start + len(part)
            if start <= col <= end:
                en = kind.enumerants.get(part)
                if en is None:
                    return None
                why = "" if inst.opname == "OpCapability" else _enabled(m, en)
                return "\n\n".join(x for x in (enumerant_md(en, kind.category), why) if x), (start, end)
            start = end + 1
    return None


def _term(comment: str, offset: int, base: int) -> Hover:
    from ..spec.extension_docs import index

    for name, entry in index().items():
        if entry.kind != "term":
            continue
        for mt in re.finditer(rf"\b{re.escape(name)}\b", comment, re.IGNORECASE):
            md = term_md(name) if mt.start() <= offset <= mt.end() else None
            if md:
                return md, (base + mt.start(), base + mt.end())
    return None


_FENCE = {".hlsl": "hlsl", ".slang": "slang", ".cl": "c", ".c": "c", ".cpp": "cpp"}


def hover_note(m: Module, line: int, folders: Sequence[Path] = ()) -> str:
    """Markdown: where the instruction came from, that source line, and its inlining chain; '' when
    it has no location."""
    line_inst, scope = in_effect(m, line)
    loc = location_of(m, line_inst)
    if loc is None:
        return ""
    head = f"Source: {code(str(loc))}"
    fn = scope_function_name(m, scope)
    if fn:
        head += f" in {code(fn)}"
    parts = [head]
    text = source_line(m, loc, folders)
    if text is not None and text.strip():
        lang = _FENCE.get(Path(loc.file).suffix.lower(), "glsl")
        parts.append(fenced(text.rstrip(), lang))
    chain = [
        f"inlined into {code(step.function)}" + (f" at {code(str(step.at))}" if step.at else "")
        for step in inlining(m, scope)
    ]
    if chain:
        parts.append("  \n".join(chain))
    return "\n\n".join(parts)
