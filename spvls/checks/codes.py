"""Every code spvls emits, with its rule: the families' (checks/families/) and those of the tools
beside them (SPIRV-Tools, suppression comments, reading a file, the server). `spvls doc`, hover,
the links of the server's diagnostics, SARIF's rule metadata and the README's table read it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from .families import FAMILIES
from .family import CORE_SPEC, Family, Rule

TOOLS_HREF = "https://github.com/KhronosGroup/SPIRV-Tools"
VUID_HREF = "https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#{}"
VALIDATOR = "spirv-val"
ASSEMBLER = "spirv-as"
_VUID = VALIDATOR + ".VUID-"


@dataclass(frozen=True, slots=True)
class Group:
    """Codes spvls reports that no rule family checks."""

    prefix: str
    summary: str
    rules: tuple[Rule, ...]


TOOLS: tuple[Group, ...] = (
    Group(
        VALIDATOR,
        "SPIRV-Tools' validator, run in a worker process: its first error and those keep-going validation "
        "finds after it, each on the instruction and the operand it names.",
        (
            Rule(VALIDATOR, "spirv-val rejects the module.", link=TOOLS_HREF),
            Rule(_VUID + "*", "spirv-val rejects the module under a Vulkan valid-usage rule (VUID).", link=TOOLS_HREF),
            Rule(
                VALIDATOR + ".unavailable", "spirv-val is not installed: only spvls' own checks ran.", link=TOOLS_HREF
            ),
            Rule(VALIDATOR + ".timeout", "spirv-val was stopped at its CPU-time limit.", link=TOOLS_HREF),
            Rule(VALIDATOR + ".crashed", "spirv-val's process died on this module.", link=TOOLS_HREF),
            Rule(
                VALIDATOR + ".internal", "spvls failed to run spirv-val (a bug: see the server log).", link=TOOLS_HREF
            ),
        ),
    ),
    Group(
        ASSEMBLER,
        "SPIRV-Tools' assembler: an error spvls' own parser did not flag.",
        (Rule(ASSEMBLER, "spirv-as rejects the text.", link=TOOLS_HREF),),
    ),
    Group(
        "env",
        "the target env spvls checks a module under.",
        (
            Rule(
                "env.stated",
                'the module states its target env (glslang\'s OpModuleProcessed "target-env …" or "client '
                'vulkan…"), and no env was given: it is checked under that env.',
            ),
        ),
    ),
    Group(
        "suppression",
        "`; spvls: ignore[…]` comments.",
        (Rule("suppression.unused", "a suppression comment that silences nothing."),),
    ),
    Group(
        "file",
        "a file that holds no module to check.",
        (
            Rule("io.unreadable", "the file cannot be read (or the binary cannot be disassembled)."),
            Rule("syntax.empty", "the file is empty."),
            Rule("syntax.binary", "a SPIR-V binary given where assembly text was expected."),
            Rule(
                "binary.malformed",
                "a binary module that cannot be read: truncated, a bad word count, an <id> "
                "not below the header's bound.",
            ),
        ),
    ),
    Group(
        "spvls",
        "the server's own notes.",
        (
            Rule("spvls.internal", "spvls failed to analyse the document (a bug: see the server log)."),
            Rule("spvls.truncated", "more diagnostics than the server publishes: `spvls check` lists them all."),
        ),
    ),
)


@cache
def rules() -> dict[str, Rule]:
    """Every code, the families' first, with its rule (links and summaries filled in)."""
    out: dict[str, Rule] = {}
    for family in FAMILIES:
        for r in family.rules:
            out.setdefault(r.code, r)
    for group in TOOLS:
        for r in group.rules:
            out.setdefault(r.code, replace(r, summary=r.summary or group.summary))
    return out


def rule(code: str) -> Rule | None:
    """The rule of a code spvls emits (a VUID spirv-val cites: its own, linking to the Vulkan spec)."""
    if code.startswith(_VUID):
        return replace(rules()[_VUID + "*"], code=code, link=VUID_HREF.format(code[len(VALIDATOR) + 1 :]))
    return rules().get(code)


def link(code: str) -> str:
    """The page a diagnostic's code links to (spvls's own codes: the unified specification)."""
    found = rule(code)
    return found.link if found is not None and found.link else CORE_SPEC


def page(code: str) -> str:
    """The name of the page a code's rule links to ("": spvls's own code, which links to none)."""
    found = rule(code)
    if found is None or not found.link:
        return ""
    if found.link.startswith(VUID_HREF.split("#")[0]):
        return "Vulkan specification"
    if found.link == TOOLS_HREF:
        return "SPIRV-Tools"
    family = family_of(code)
    return family.extension if family is not None and family.extension else "SPIR-V specification"


@cache
def _families() -> dict[str, Family]:
    return {r.code: f for f in FAMILIES for r in f.rules}


def family_of(code: str) -> Family | None:
    """The family that emits a code (None: a tool's)."""
    return _families().get(code)
