"""What an instruction or enumerant needs that a module lacks: the one enablement rule, used by
the capability checks, completion, hover and the quick fixes.

From the grammar JSON's requirements, in the order a user meets them (SPIR-V 2.16.1, and the
"Enabling Capabilities"/"Extensions"/"Version" columns of each table):
1. `capabilities`: one of them must be declared (implicitly declared ones count).
2. `lastVersion`: the module's version must not be newer.
3. `version`/`extensions`: the version must be reached, or one of the extensions declared. An instruction whose capability is declared needs no more (declaring the
   capability is what needs the extension), except OpTerminateInvocation, whose Shader capability
   every shader declares.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from ..spec.grammar import Enumerant, Instruction, format_version


class Enables(Protocol):
    """What `lacks` reads of a module (a `Module` is one): so a table judged for one module's
    capabilities, extensions and version can be kept for another with the same three."""

    @property
    def declared_caps(self) -> Collection[str]: ...
    @property
    def extensions(self) -> Collection[str]: ...
    @property
    def version(self) -> tuple[int, int]: ...


CAPABILITY, LAST_VERSION, VERSION, EXTENSION, RESERVED = (
    "capability",
    "last-version",
    "version",
    "extension",
    "reserved",
)


@dataclass(frozen=True, slots=True)
class Need:
    """What is missing: `what` one of the five above; `names` the capabilities or extensions (one
    of which would do); `version` the version the item needs (at most, for LAST_VERSION)."""

    what: str
    names: tuple[str, ...] = ()
    version: tuple[int, int] | None = None

    def text(self) -> str:
        """What a user reads, in completion and hover details."""
        if self.what == LAST_VERSION:
            return f"SPIR-V {format_version(self.version)} or earlier"
        if self.what == CAPABILITY:
            return f"needs OpCapability {' or '.join(self.names[:2])}"
        if self.what == EXTENSION:
            return f'needs OpExtension "{self.names[0]}"'
        if self.what == VERSION:
            return f"needs SPIR-V {format_version(self.version)}"
        return "not in this SPIR-V version"


# SPIRV-Tools issue 365: mentioning these builtins in a decoration needs no capability.
_FREE_BUILTINS = {"PointSize", "ClipDistance", "CullDistance"}


def lacks(m: Enables, item: Instruction | Enumerant, declaring: bool = False) -> Need | None:
    """What the module lacks to enable `item`, or None when it is enabled. `declaring`: the item is
    OpCapability's own operand, which needs no capability to be declared."""
    free = declaring or (isinstance(item, Enumerant) and item.kind == "BuiltIn" and item.name in _FREE_BUILTINS)
    if item.capabilities and not free and not any(c in m.declared_caps for c in item.capabilities):
        return Need(CAPABILITY, tuple(item.capabilities))
    if item.last_version is not None and m.version > item.last_version:
        return Need(LAST_VERSION, version=item.last_version)
    if isinstance(item, Instruction) and item.capabilities and item.name != "OpTerminateInvocation":
        return None
    if item.version is not None and m.version >= item.version:
        return None
    if not item.extensions:
        if item.version is not None:
            return Need(VERSION, version=item.version)
        # No capability, extension or version: an instruction is reserved; an enumerant so listed
        # is taken as always there (spirv-val accepts them).
        return Need(RESERVED) if isinstance(item, Instruction) else None
    if any(e in m.extensions for e in item.extensions):
        return None
    return Need(EXTENSION, tuple(item.extensions), item.version)
