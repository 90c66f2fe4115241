"""The logical layout of a module (SPIR-V 2.4), as far as it names opcodes: the grammar JSON does
not say which section an instruction belongs in (its classes do not match the sections)."""

from __future__ import annotations

# The sections before the annotations, in order: (what the spec calls them, their opcodes).
SECTIONS = [
    ("capabilities", frozenset({"OpCapability"})),
    ("extensions", frozenset({"OpExtension"})),
    ("extended instruction set imports", frozenset({"OpExtInstImport"})),
    ("the memory model", frozenset({"OpMemoryModel"})),
    ("entry points", frozenset({"OpEntryPoint"})),
    ("execution modes", frozenset({"OpExecutionMode", "OpExecutionModeId"})),
    ("debug source instructions", frozenset({"OpString", "OpSourceExtension", "OpSource", "OpSourceContinued"})),
    ("debug names", frozenset({"OpName", "OpMemberName"})),
    ("OpModuleProcessed", frozenset({"OpModuleProcessed"})),
]


def before(section: str) -> list[str]:
    """The opcodes of the sections before the one titled `section` (e.g. "debug names")."""
    out: list[str] = []
    for title, ops in SECTIONS:
        if title == section:
            return out
        out += sorted(ops)
    raise KeyError(section)
