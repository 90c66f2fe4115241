"""Markdown for opcodes, enumerants and extensions: grammar facts plus the extension's own words."""
from __future__ import annotations

from ..spec import docs
from ..spec.grammar import Enumerant, Instruction, format_version


def _quote(name: str) -> str:
    entry = docs.index().get(name)
    if entry is None:
        return ""
    body = "\n".join(f"> {ln}" if ln else ">" for ln in entry.text.split("\n"))
    return f"\n\n**{entry.extension}**:\n\n{body}"


def _requirements(caps, exts, version, last=None) -> list[str]:
    out = []
    if caps:
        out.append(f"Capabilities: {', '.join(f'`{c}`' for c in caps)}")
    if exts:
        out.append(f"Extensions: {', '.join(f'`{e}`' for e in exts)}")
    out.append(f"SPIR-V version: {format_version(version)}" + (f" to {format_version(last)}" if last else ""))
    return out


def instruction_md(inst: Instruction, set_name: str | None = None) -> str:
    head = f"```spvasm\n{inst.signature()}\n```"
    if set_name:
        return f"{head}\n\nExtended instruction {inst.opcode} of `{set_name}`"
    lines = [f"Opcode {inst.opcode}" + (f" · {inst.cls}" if inst.cls else ""),
             *_requirements(inst.capabilities, inst.extensions, inst.version, inst.last_version)]
    if inst.aliases:
        lines.append(f"Also spelt: {', '.join(inst.aliases)}")
    return head + "\n\n" + "  \n".join(lines) + _quote(inst.name)


def enumerant_md(e: Enumerant, kind_category: str = "ValueEnum") -> str:
    value = hex(e.value) if kind_category == "BitEnum" else str(e.value)
    params = " ".join(f"<{p.name or p.kind}>" for p in e.parameters)
    head = f"```spvasm\n{e.name}{' ' + params if params else ''}\n```"
    lines = [f"{e.kind} {value}", *_requirements(e.capabilities, e.extensions, e.version, e.last_version)]
    if e.aliases:
        lines.append(f"Also spelt: {', '.join(e.aliases)}")
    return head + "\n\n" + "  \n".join(lines) + _quote(e.name)


def extension_md(ext: str) -> str:
    text = docs.extension_text(ext) if ext in docs.EXTENSIONS else ""
    return f"**{ext}**" + (f"\n\n> {text}" if text else "")


def term_md(name: str) -> str | None:
    entry = docs.index().get(name)
    if entry is None or entry.kind != "term":
        return None
    return f"**{name}** ({entry.extension})\n\n> {entry.text}"
