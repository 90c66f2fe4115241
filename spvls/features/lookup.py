"""Look a name up: an opcode, an enumerant, an extension, an extended instruction (or its set), or a
diagnostic code. What `spvls doc NAME` prints, and the same text hover shows."""

from __future__ import annotations

import re

from ..spec import extension_docs, registry
from ..spec.did_you_mean import suggest
from ..spec.grammar import ext_set, load
from .docs import (
    Doc,
    about,
    code_doc,
    codes,
    enumerant_doc,
    ext_set_doc,
    extension_doc,
    instruction_doc,
    term_md,
)


def find(name: str) -> list[Doc]:
    """Every thing the name names (an enumerant name may be in several operand kinds)."""
    g = load()
    out: list[Doc] = []
    inst = g.instruction(name)
    if inst is not None:
        out.append(instruction_doc(inst, g=g))
    for kind in g.kinds.values():
        e = kind.enumerants.get(name)
        if e is not None:
            out.append(enumerant_doc(e, kind.category, g=g))
    if name in g.extensions or (name.startswith("SPV_") and name in registry.documents()):
        d = extension_doc(name)
        if d:
            out.append(d)
    elif ext_set(g, name) is not None or registry.document_for_set(name) is not None:
        d = ext_set_doc(name)
        if d:
            out.append(d)
    set_name, _, inst_name = name.rpartition(":")  # GLSL.std.450:Sin picks one set
    for s in g.ext_sets.values():
        if set_name and s.name != set_name:
            continue
        i = s.by_name.get(inst_name)
        if i is not None:
            out.append(instruction_doc(i, s.name, g=g))
    code = code_doc(name)
    if code is not None:
        out.append(code)
    term = term_md(name)
    if term:  # a term the four extension texts define ("Tangle")
        entry = extension_docs.index()[name]
        page = registry.documents().get(entry.extension)
        out.append(Doc(name, "term", term, entry.extension, page.url if page else ""))
    if not out:
        out.extend(_registry_only(name))
    return out


def _registry_only(name: str) -> list[Doc]:
    """A name the registry defines that the installed grammar does not know (yet)."""
    out = []
    for doc_name in registry.defined_in(name):
        found = registry.prose((name,), only=(doc_name,))
        if found is None:
            continue
        doc = found.document
        md = (
            f"**{name}** — not in the installed SPIR-V grammar; **{doc.name}** defines it:\n\n"
            + "\n".join(f"> {ln}" if ln else ">" for ln in found.text.split("\n"))
            + f"\n\n{about(doc)}"
        )
        out.append(Doc(name, "registry name", md, doc.name, doc.url))
    return out


def all_names() -> list[str]:
    g = load()
    names = set(g.instructions) | set(g.extensions) | set(codes()) | set(g.ext_sets) | set(registry.documents())
    names.update(n for n, e in extension_docs.index().items() if e.kind == "term")
    for kind in g.kinds.values():
        names.update(kind.enumerants)
    for s in g.ext_sets.values():
        names.update(s.by_name)
    return sorted(names)


def did_you_mean(name: str) -> list[str]:
    return suggest(name, all_names())


def plain(md: str) -> str:
    """Markdown as terminal text: no fences, emphasis or link syntax; quotes indented."""
    out = []
    for line in md.split("\n"):
        if line.startswith("```"):
            continue
        if line.startswith(">"):
            line = "    " + line[1:].lstrip()
        line = re.sub(
            r"\[([^\]]+)\]\(([^)]+)\)",
            lambda m: m.group(1) if m.group(1) == m.group(2) else f"{m.group(1)} <{m.group(2)}>",
            line,
        )
        line = re.sub(r"\*\*(.+?)\*\*", r"\1", line)
        line = re.sub(r"(?<![\w*])\*([^\s*](?:[^*]*?[^\s*])?)\*(?![\w*])", r"\1", line)
        line = re.sub(r"`([^`]+)`", r"\1", line)
        out.append(line.rstrip())
    return "\n".join(out).strip() + "\n"


def as_json(d: Doc) -> dict:
    return {"name": d.name, "kind": d.kind, "text": plain(d.markdown), "source": d.source, "url": d.url}
