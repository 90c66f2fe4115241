"""Docs index: what each extension text says about its own symbols and terms.

Symbols come from the grammar (instructions and enumerants tied to an extension,
directly or through the capability it adds); their text is quoted from the
extension's specification in texts/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .grammar import Grammar, load

EXTENSIONS = (
    "SPV_KHR_maximal_reconvergence",
    "SPV_KHR_cooperative_matrix",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_shader_ballot",
)
# Lines that end a symbol's description in these texts.
_STOP = re.compile(
    r"^(Capability:|\d+( \+ variable|\+variable)?$|0x[0-9a-fA-F]+$|<id>|Result <id>|Optional|New |"
    r"Issues$|Revision History|Token Number|\d+\.\d+|3\.X |Modify |Add |Changes to |"
    r"Instructions added|Builtin variables)"
)


@dataclass(frozen=True, slots=True)
class DocEntry:
    name: str
    extension: str
    text: str
    kind: str  # "instruction", the operand kind (Capability, BuiltIn, ...), or "term"


def _text(ext: str) -> str:
    return resources.files("spvls.spec").joinpath("texts").joinpath(f"{ext}.txt").read_text(encoding="utf-8")


def _ext_capabilities(g: Grammar, ext: str) -> set[str]:
    return {e.name for e in g.kinds["Capability"].canonical() if ext in e.extensions}


def symbols(g: Grammar, ext: str) -> list[tuple[str, tuple[str, ...], str]]:
    """(canonical name, aliases, kind) of every grammar symbol the extension adds."""
    caps = _ext_capabilities(g, ext)
    lines = {ln.strip() for ln in _text(ext).split("\n")}
    out = []
    for inst in g.by_opcode.values():
        if ext in inst.extensions or (inst.capabilities and set(inst.capabilities) <= caps):
            out.append((inst.name, inst.aliases, "instruction"))
    for kind in g.kinds.values():
        for e in kind.canonical():
            tied = ext in e.extensions or (e.capabilities and set(e.capabilities) & caps and kind.kind != "Capability")
            # Enumerants of operand kinds the extension adds (e.g. CooperativeMatrixUse) carry no
            # capability in the grammar: the text naming them on a line of their own ties them.
            own = (
                kind.category in ("ValueEnum", "BitEnum")
                and e.version is None
                and not e.capabilities
                and not e.extensions
                and e.name in lines
            )
            if tied or own:
                out.append((e.name, e.aliases, kind.kind))
    return out


def _describe(lines: list[str], names: tuple[str, ...]) -> str | None:
    """The paragraph that follows the line naming a symbol (or the line it starts)."""
    for i, line in enumerate(lines):
        s = line.strip()
        for name in names:
            if s == name or (s.startswith(name + "\n")):
                body: list[str] = []
                for nxt in lines[i + 1 :]:
                    t = nxt.strip()
                    if not t:
                        if body:
                            body.append("")
                        continue
                    if _STOP.match(t) or t in _ALL_NAMES or t in _CAPABILITIES:
                        break
                    body.append(t)
                text = "\n".join(body).strip()
                if text:
                    return text
                prev = next((p.strip() for p in reversed(lines[:i]) if p.strip()), "")
                if prev.endswith("."):  # "This extension introduces a new capability."
                    return prev
                table = next(
                    (p.strip() for p in reversed(lines[:i]) if p.strip().endswith(" Enabling Capabilities")), ""
                )
                if table:  # a table row with no description: name its table and value
                    title = table.removesuffix(" Enabling Capabilities")
                    return f"{name}: a value ({prev}) of the {title} table added by this extension."
    for i, line in enumerate(lines):  # fall back to the first sentence that mentions it
        for name in names:
            if re.search(rf"\b{re.escape(name)}\b", line) and len(line.strip()) > len(name) + 10:
                if all(w in _ALL_NAMES for w in line.split()):  # a bare list: quote its heading too
                    prev = next((p.strip() for p in reversed(lines[:i]) if p.strip()), "")
                    return f"{prev}\n{line.strip()}"
                return line.strip()
    return None


_ALL_NAMES: set[str] = set()
_CAPABILITIES: set[str] = set()


def _section(lines: list[str], title: str, limit: int = 14) -> str:
    for i, line in enumerate(lines):
        if line.strip() == title:
            body = [t.strip() for t in lines[i + 1 : i + 1 + limit * 2] if t.strip()]
            return "\n".join(body[:limit])
    return ""


def _rules_naming(lines: list[str], names: tuple[str, ...], already: str) -> str:
    """Requirements elsewhere in the text that name the symbol ("... must ..."), with their bullets."""
    out = []
    for i, line in enumerate(lines):
        t = line.strip()
        if t in already or not any(re.search(rf"\b{re.escape(n)}\b", t) for n in names):
            continue
        if "must" not in t or t.startswith(("Starting with", "Change", "To:")):
            continue
        block = [t]
        for nxt in lines[i + 1 : i + 16]:
            if nxt.startswith("  ") and nxt.strip().startswith("•"):
                block.append(nxt.rstrip())
            elif nxt.strip():
                break
        out.append("\n".join(block))
    return "".join(f"\n\n{b}" for b in out[:2])


def _terms(lines: list[str], ext: str) -> list[DocEntry]:
    out = []
    for i, line in enumerate(lines):
        if "new terms" in line.lower():
            for t in lines[i + 1 : i + 12]:
                m = re.match(r"^([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)*): (.{20,})$", t.strip())
                if m:
                    out.append(DocEntry(m.group(1), ext, t.strip(), "term"))
    return out


@lru_cache(maxsize=1)
def index() -> dict[str, DocEntry]:
    """Every symbol and term of the four extensions, by name and alias."""
    g = load()
    entries: dict[str, DocEntry] = {}
    per_ext = {ext: symbols(g, ext) for ext in EXTENSIONS}
    _CAPABILITIES.update(g.kinds["Capability"].enumerants)
    _ALL_NAMES.update(n for syms in per_ext.values() for name, aliases, _ in syms for n in (name, *aliases))
    for ext, syms in per_ext.items():
        lines = (
            _text(ext).replace(". ", ".\n").split("\n") if ext == "SPV_KHR_shader_ballot" else _text(ext).split("\n")
        )
        if ext == "SPV_KHR_shader_ballot":
            # This text glues each builtin's capability to the end of its description.
            lines = [re.sub(r"(\.)(SubgroupBallotKHR)$", r"\1", ln) for ln in lines]
        for name, aliases, kind in syms:
            text = _describe(lines, (name, *aliases))
            if text is None:
                continue
            text += _rules_naming(lines, (name, *aliases), text)
            m = re.search(r"the rules in ([A-Z][\w ]+?)\.", text)
            if m:
                text += "\n\n" + _section(lines, m.group(1))
            entry = DocEntry(name, ext, text, kind)
            for n in (name, *aliases):
                entries.setdefault(n, entry)
        for term in _terms(lines, ext):
            entries.setdefault(term.name, term)
    return entries


def extension_of(name: str) -> str | None:
    e = index().get(name)
    return e.extension if e else None


def extension_text(ext: str) -> str:
    """The overview paragraph of an extension, for hovering its OpExtension string."""
    lines = _text(ext).split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "Overview":
            body = [t.strip() for t in lines[i + 1 : i + 12] if t.strip()]
            return "\n\n".join(body[:3])
    return ""
