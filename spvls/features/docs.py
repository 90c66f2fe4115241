"""Documentation of a name (an instruction, an enumerant, an extension, a diagnostic code): grammar
facts plus the words of the document that defines it.

The four extensions spvls checks in depth are quoted from their full texts (spec/texts); every
other extension, and the non-semantic instruction sets, from the SPIR-V Registry's sources
(spec/registry). Core names link to their place in the unified specification.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..checks import codes as code_registry
from ..checks.family import Rule
from ..spec import extension_docs, registry
from ..spec.grammar import Enumerant, Grammar, Instruction, format_version, load


def code(text: str) -> str:
    """A Markdown code span showing `text` as it is: a module's names, strings and file names are
    data, so no backtick, link, image or HTML in them may become Markdown (one line: breaks become
    spaces)."""
    text = re.sub(r"[\r\n]+", " ", text)
    if not text.strip():
        return f"`{text}`" if text else "``"
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " ") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, lang: str) -> str:
    """A Markdown code block of `text`, its fence longer than any run of backticks inside it."""
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


@dataclass(frozen=True, slots=True)
class Doc:
    name: str
    kind: str  # "instruction", "extended instruction", an operand kind ("Capability", ...), "extension", ...
    markdown: str
    source: str  # the document quoted ("SPV_KHR_quad_control"), or "SPIR-V grammar"
    url: str


GRAMMAR = "SPIR-V grammar"

# A hover's answer: markdown and the (start, end) columns it describes, or None.
Found = tuple[str, tuple[int, int]] | None


def _blockquote(text: str) -> str:
    return "\n".join(f"> {ln}" if ln else ">" for ln in text.split("\n"))


def requirements_line(dependencies: str) -> str:
    """What a document says it requires ("requires SPIR-V 1.3", "requires SPV_KHR_...")."""
    sentences = re.split(r"(?<=\.)\s+", dependencies.replace("\n", " "))
    return " ".join(s for s in sentences if "requir" in s.lower())


def about(doc: registry.Document) -> str:
    """The extension's name, status and dependencies, linked to its registry page."""
    parts = [f"[{doc.name}]({doc.url})"]
    if doc.status:
        parts.append(doc.status)
    needs = requirements_line(doc.dependencies)
    if needs:
        parts.append(needs)
    return " · ".join(parts)


def _quote(g: Grammar, item: Instruction | Enumerant) -> tuple[str, str, str]:
    """(markdown, source, url) of the extension text that defines a grammar item, or empty."""
    kind = getattr(item, "kind", "instruction")  # the four texts' entries carry their operand kind
    entry = next(
        (
            extension_docs.index()[n]
            for n in (item.name, *item.aliases)
            if n in extension_docs.index() and extension_docs.index()[n].kind == kind
        ),
        None,
    )
    if entry is not None:
        doc = registry.documents().get(entry.extension)
        url = doc.url if doc else ""
        page = about(doc) if doc else f"**{entry.extension}**"
        return f"\n\n**{entry.extension}**:\n\n{_blockquote(entry.text)}\n\n{page}", entry.extension, url
    found = registry.symbol_prose(g, item)
    if found is None:
        # No paragraph defines it: still say which registry document adds it, with its status.
        if item.version is not None:
            return "", "", ""
        pages = [d for d in (registry.documents().get(e) for e in registry.extensions_of(g, item)) if d]
        return ("".join(f"\n\n{about(d)}" for d in pages[:2]), pages[0].name, pages[0].url) if pages else ("", "", "")
    doc = found.document
    spelt = f" (as `{found.name}`)" if found.name != item.name else ""
    return (f"\n\n**{doc.name}**{spelt}:\n\n{_blockquote(found.text)}\n\n{about(doc)}", doc.name, doc.url)


def _requirements(
    caps: Sequence[str],
    exts: Sequence[str],
    version: tuple[int, int] | None,
    last: tuple[int, int] | None = None,
    implicit: bool = False,
) -> list[str]:
    out = []
    if caps:
        label = "Implicitly declares" if implicit else "Capabilities"
        out.append(f"{label}: {', '.join(f'`{c}`' for c in caps)}")
    if exts:
        out.append(f"Extensions: {', '.join(f'`{e}`' for e in exts)}")
    out.append(f"SPIR-V version: {format_version(version)}" + (f" to {format_version(last)}" if last else ""))
    return out


def _core_link(item: Instruction | Enumerant, kind: str) -> tuple[str, str]:
    if item.version is None:
        return "", ""
    url = registry.core_url(kind, item.name)
    label = item.name if kind == "instruction" else f"{kind} ({item.name})"
    return f"\n\n[SPIR-V specification: {label}]({url})", url


def instruction_doc(inst: Instruction, set_name: str | None = None, g: Grammar | None = None) -> Doc:
    g = g or load()
    head = f"```spvasm\n{inst.signature()}\n```"
    if set_name:
        return _ext_inst_doc(inst, set_name, head)
    lines = [
        f"Opcode {inst.opcode}" + (f" · {inst.cls}" if inst.cls else ""),
        *_requirements(inst.capabilities, inst.extensions, inst.version, inst.last_version),
    ]
    if inst.aliases:
        lines.append(f"Also spelt: {', '.join(inst.aliases)}")
    quote, source, url = _quote(g, inst)
    link, core = _core_link(inst, "instruction")
    md = head + "\n\n" + "  \n".join(lines) + quote + link
    return Doc(inst.name, "instruction", md, source or GRAMMAR, url or core)


def _ext_inst_doc(inst: Instruction, set_name: str, head: str) -> Doc:
    md = f"{head}\n\nExtended instruction {inst.opcode} of `{set_name}`"
    doc = registry.document_for_set(set_name)
    found = registry.prose((inst.name,), only=(doc.name,)) if doc else None
    if found and doc:
        md += f"\n\n**{doc.name}**:\n\n{_blockquote(found.text)}\n\n{about(doc)}"
    elif doc:
        md += f"\n\n{about(doc)}"
    spec_url = registry.set_spec_url(set_name)
    if spec_url:
        md += f"\n\n[{set_name} specification]({spec_url})"
    return Doc(
        inst.name,
        "extended instruction",
        md,
        doc.name if doc else set_name if spec_url else GRAMMAR,
        doc.url if doc else spec_url or "",
    )


def enumerant_doc(e: Enumerant, kind_category: str = "ValueEnum", g: Grammar | None = None) -> Doc:
    g = g or load()
    value = hex(e.value) if kind_category == "BitEnum" else str(e.value)
    params = " ".join(f"<{p.name or p.kind}>" for p in e.parameters)
    head = f"```spvasm\n{e.name}{' ' + params if params else ''}\n```"
    # A Capability's own "capabilities" are those it implicitly declares, not ones it needs.
    lines = [
        f"{e.kind} {value}",
        *_requirements(e.capabilities, e.extensions, e.version, e.last_version, implicit=e.kind == "Capability"),
    ]
    if e.aliases:
        lines.append(f"Also spelt: {', '.join(e.aliases)}")
    quote, source, url = _quote(g, e)
    link, core = _core_link(e, e.kind)
    md = head + "\n\n" + "  \n".join(lines) + quote + link
    return Doc(e.name, e.kind, md, source or GRAMMAR, url or core)


def extension_doc(ext: str) -> Doc | None:
    doc = registry.documents().get(ext)
    if ext in extension_docs.EXTENSIONS:
        text = extension_docs.extension_text(ext)
    elif doc is not None:
        text = doc.overview
    else:
        return None
    md = f"**{ext}**" + (f"\n\n{_blockquote(text)}" if text else "") + (f"\n\n{about(doc)}" if doc else "")
    return Doc(ext, "extension", md, ext, doc.url if doc else "")


def ext_set_doc(set_name: str) -> Doc | None:
    """An extended instruction set named by OpExtInstImport."""
    doc = registry.document_for_set(set_name)
    g = load()
    from ..spec.grammar import ext_set

    s = ext_set(g, set_name)
    if doc is None and s is None:
        return None
    md = f"**{set_name}**" + (f" — extended instruction set, {len(s.by_name)} instructions" if s else "")
    spec_url = registry.set_spec_url(set_name)
    if doc is not None:
        md += (f"\n\n{_blockquote(doc.overview)}" if doc.overview else "") + f"\n\n{about(doc)}"
    elif spec_url:
        md += f"\n\n[{set_name} specification]({spec_url})"
    return Doc(
        set_name,
        "extended instruction set",
        md,
        doc.name if doc else set_name if spec_url else GRAMMAR,
        doc.url if doc else spec_url or "",
    )


# Diagnostic codes: the rule and the spec sentence it cites (checks.codes), and a minimal failing
# module (spvls/checks/examples.json, built from tests/data/rules by tools/examples_gen.py).
@lru_cache(maxsize=1)
def examples() -> dict[str, dict]:
    return json.loads(resources.files("spvls.checks").joinpath("examples.json").read_text(encoding="utf-8"))


def codes() -> dict[str, Rule]:
    """Every code spvls emits, with its rule."""
    return code_registry.rules()


def code_doc(code: str) -> Doc | None:
    rule = code_registry.rule(code)
    if rule is None:
        return None
    parts = [f"**{code}** — {rule.summary}"]
    if rule.sentence:
        parts.append(f"Spec ({rule.where}):\n\n> {rule.sentence}")
    ex = examples().get(code)
    if ex:
        parts.append(
            f"Minimal failing module (target env {ex['env']}; reported on line {ex['line']}: "
            f"{ex['message']}):\n\n```spvasm\n{ex['module']}```"
        )
    page = code_registry.page(code)
    if page:
        parts.append(f"[{page}]({rule.link})")
    return Doc(code, "diagnostic", "\n\n".join(parts), page or "spvls", rule.link)


# The names other features import: Markdown only.
def instruction_md(inst: Instruction, set_name: str | None = None) -> str:
    return instruction_doc(inst, set_name).markdown


def enumerant_md(e: Enumerant, kind_category: str = "ValueEnum") -> str:
    return enumerant_doc(e, kind_category).markdown


def extension_md(ext: str) -> str:
    d = extension_doc(ext)
    return d.markdown if d else f"**{ext}**"


def term_md(name: str) -> str | None:
    entry = extension_docs.index().get(name)
    if entry is None or entry.kind != "term":
        return None
    return f"**{name}** ({entry.extension})\n\n> {entry.text}"
