"""The SPIR-V Registry's prose (registry.json.gz, built by tools/registry_gen.py) looked up by grammar name.

The grammar decides what a name is: an opcode or enumerant is found under its canonical name or
any alias the grammar gives it (a text written before a rename or promotion uses the old one),
and its text is taken from a document of an extension that the grammar ties it to.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .grammar import Enumerant, Grammar, Instruction

CORE_SPEC = "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html"
# Where the unified specification has no section of the kind's own name.
_KIND_ANCHOR = {"BuiltIn": "_builtin", "Scope": "_scope_id", "MemorySemantics": "_memory_semantics_id"}


@dataclass(frozen=True, slots=True)
class Document:
    name: str  # SPV_KHR_quad_control, NonSemantic.Shader.DebugInfo, ...
    title: str
    path: str  # inside the registry
    url: str
    status: str
    dependencies: str
    overview: str

    @property
    def vendor(self) -> str:
        parts = self.path.split("/")
        return parts[1] if parts[0] == "extensions" else parts[0]


@dataclass(frozen=True, slots=True)
class Prose:
    name: str  # as the document spells it (may be a grammar alias)
    text: str  # Markdown
    document: Document


@lru_cache(maxsize=1)
def _raw() -> dict:
    data = resources.files("spvls.spec").joinpath("registry.json.gz").read_bytes()
    return json.loads(gzip.decompress(data))["documents"]


@lru_cache(maxsize=1)
def documents() -> dict[str, Document]:
    return {
        k: Document(k, v["title"], v["path"], v["url"], v["status"], v["dependencies"], v["overview"])
        for k, v in _raw().items()
    }


@lru_cache(maxsize=1)
def _by_name() -> dict[str, list[str]]:
    """Name -> documents that define it, in registry order."""
    out: dict[str, list[str]] = {}
    for doc, v in _raw().items():
        for name in v["names"]:
            out.setdefault(name, []).append(doc)
    return out


def defined_in(name: str) -> list[str]:
    return _by_name().get(name, [])


def prose(names: Sequence[str], prefer: Iterable[str] = (), only: Iterable[str] | None = None) -> Prose | None:
    """The text that defines the first of `names` (canonical first, then aliases): from the first
    document in `prefer` that defines it, else from any (or only from `only`, in its order)."""
    for pool in (tuple(prefer), None):
        for name in names:
            where = defined_in(name)
            within = pool or only
            for doc in [d for d in within if d in where] if within else where:
                if only is None or doc in only:
                    return Prose(name, _raw()[doc]["names"][name], documents()[doc])
    return None


def document_for_set(set_name: str) -> Document | None:
    """The document of an extended instruction set import string (NonSemantic.Shader.DebugInfo.100)."""
    docs = documents()
    if set_name in docs:
        return docs[set_name]
    base = re.sub(r"\.\d+$", "", set_name)
    return docs.get(base)


# Extended instruction sets with a specification of their own beside the core one.
_SET_SPECS = {
    "GLSL.std.450": "GLSL.std.450.html",
    "OpenCL.std": "OpenCL.ExtendedInstructionSet.100.html",
    "OpenCL.DebugInfo.100": "OpenCL.DebugInfo.100.html",
    "DebugInfo": "DebugInfo.html",
}


def set_spec_url(set_name: str) -> str | None:
    page = _SET_SPECS.get(set_name)
    return CORE_SPEC.rsplit("/", 1)[0] + "/" + page if page else None


def extensions_of(g: Grammar, item: Instruction | Enumerant) -> tuple[str, ...]:
    """The extensions that add an opcode or enumerant: its own, else those of the capabilities it needs."""
    if item.extensions:
        return tuple(item.extensions)
    out: list[str] = []
    for c in item.capabilities:
        cap = g.capability(c)
        if cap is not None:
            out.extend(e for e in cap.extensions if e not in out)
    return tuple(out)


def _sibling_documents(g: Grammar, item: Instruction | Enumerant) -> tuple[str, ...]:
    """The documents that define most of an enumerant's siblings (other values of its kind): where
    a generic name (NoneKHR, Row) of that kind is defined."""
    kind = g.kinds.get(getattr(item, "kind", ""))
    if kind is None:
        return ()
    counts: dict[str, int] = {}
    for e in kind.canonical():
        if e is not item:
            for doc in {d for n in (e.name, *e.aliases) for d in defined_in(n)}:
                counts[doc] = counts.get(doc, 0) + 1
    top = max(counts.values(), default=0)
    return tuple(d for d, c in counts.items() if c == top)


# Vendor suffixes, and the one vendor rename the registry made after this grammar: Intel's FPGA
# extensions became Altera's (SPV_INTEL_arbitrary_precision_floating_point -> SPV_ALTERA_...).
_SUFFIX = re.compile(r"(INTEL|ALTERA|KHR|EXT|NV|AMD|ARM|QCOM)$")
_RENAMED = {"INTEL": "ALTERA"}


def _renamed(names: Sequence[str]) -> tuple[str, ...]:
    """A name as a later text may spell it: with the renamed vendor's suffix, or without one (the
    text of SPV_INTEL_shader_integer_functions2 says OpUCountLeadingZeros). Only looked up in the
    item's own extensions' documents."""
    out: list[str] = []
    for n in names:
        m = _SUFFIX.search(n)
        if m:
            if m.group(1) in _RENAMED:
                out.append(n[: m.start()] + _RENAMED[m.group(1)])
            out.append(n[: m.start()])
        if n.startswith("SPV_INTEL_"):
            out.append("SPV_ALTERA_" + n.removeprefix("SPV_INTEL_"))
    return tuple(x for x in out if x and x not in names)


def symbol_prose(g: Grammar, item: Instruction | Enumerant) -> Prose | None:
    """Registry text for a grammar opcode or enumerant. A core name (one with a SPIR-V version)
    takes text only from the extensions the grammar lists on it (it was promoted from them): other
    documents that name it only amend its core definition. Otherwise the text comes from the
    extensions that add it, else from the documents that define its siblings, else (a kind no
    document defines) from the one document that defines the name. Last, the extensions' own
    documents are searched for the name as a later text spells it (see _renamed)."""
    names = (item.name, *item.aliases)
    if item.version is not None:
        return prose(names, only=item.extensions) if item.extensions else None
    exts = extensions_of(g, item)
    siblings = _sibling_documents(g, item)
    for pool in (exts, siblings):
        found = prose(names, only=pool) if pool else None
        if found:
            return found
    own = exts + _renamed(exts)
    later = prose(_renamed(names), only=own) if own else None
    if later or siblings:  # its kind is documented elsewhere: a same-named value there is another thing
        return later
    docs = {d for n in names for d in defined_in(n)}
    return prose(names) if len(docs) == 1 else None


def core_url(kind: str, name: str | None = None) -> str:
    """The unified specification's anchor: an instruction's own (#OpLoopMerge), else its kind's section."""
    if kind == "instruction":
        return f"{CORE_SPEC}#{name}"
    if kind in _KIND_ANCHOR:
        return f"{CORE_SPEC}#{_KIND_ANCHOR[kind]}"
    words = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", kind)
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", words)
    return f"{CORE_SPEC}#_{words.lower()}"
