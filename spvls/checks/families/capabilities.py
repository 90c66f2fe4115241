"""capability.*: opcodes and enumerants need their enabling capability, extension and version.

All requirements come from spirv.core.grammar.json. The rules follow SPIR-V 2.16.1
("all the capabilities ... must be declared") and the grammar's version/extension fields.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from ...model.enablement import CAPABILITY, LAST_VERSION, RESERVED, VERSION, Need, lacks
from ...model.facts import module_fact
from ...model.module import Inst, Module
from ...model.operands import Operand
from ...spec.grammar import Instruction, format_version
from ...syntax.parser import LineFields
from .. import fixes
from ..diagnostic import ERROR, Diagnostic, Fix, Spanned, at
from ..family import EXTENSION_PAGE, Family, Rule
from ..scope import Scope, insts

# Capabilities an operand's value needs, which the grammar cannot say (OpTypeInt's Width is a literal).
_DECLARES = {
    "Int8": "Int8: Uses OpTypeInt to declare 8-bit integer types.",
    "Int16": "Int16: Uses OpTypeInt to declare 16-bit integer types.",
    "Int64": "Int64: Uses OpTypeInt to declare 64-bit integer types.",
    "Float16": "Float16: Uses OpTypeFloat to declare the 16-bit floating-point type.",
    "Float64": "Float64: Uses OpTypeFloat to declare the 64-bit floating-point type.",
    "Vector16": "Vector16: Uses OpTypeVector to declare 8-component or 16-component vectors.",
}
# Which capabilities let a module declare each width. Besides IntN/FloatN, the 8- and 16-bit storage
# capabilities do (SPIR-V 2.16.1: "An OpTypePointer pointing to a 16-bit scalar ... can be used as the
# result type of OpVariable"), and SPV_AMD_gpu_shader_half_float declares f16, as spirv-val counts them.
_STORAGE8 = (
    "StorageBuffer8BitAccess",
    "UniformAndStorageBuffer8BitAccess",
    "StoragePushConstant8",
    "WorkgroupMemoryExplicitLayout8BitAccessKHR",
)
_STORAGE16 = (
    "StorageBuffer16BitAccess",
    "UniformAndStorageBuffer16BitAccess",
    "StoragePushConstant16",
    "StorageInputOutput16",
    "WorkgroupMemoryExplicitLayout16BitAccessKHR",
)
_WIDTH_CAPS = {
    ("OpTypeInt", 8): ("Int8", *_STORAGE8),
    ("OpTypeInt", 16): ("Int16", *_STORAGE16),
    ("OpTypeInt", 64): ("Int64",),
    ("OpTypeFloat", 16): ("Float16", "Float16Buffer", *_STORAGE16),
    ("OpTypeFloat", 64): ("Float64",),
    ("OpTypeVector", 8): ("Vector16",),
    ("OpTypeVector", 16): ("Vector16",),
}
_WIDTH_EXTS = {("OpTypeFloat", 16): ("SPV_AMD_gpu_shader_half_float", "SPV_AMD_gpu_shader_half_float_fetch")}
_SIZED: Final = {
    "OpTypeInt": "capability.int-type",
    "OpTypeFloat": "capability.float-type",
    "OpTypeVector": "capability.vector16",
}


def _from_header(m: Module, needed: tuple[int, int] | None) -> tuple[str, tuple[Fix, ...]]:
    """When the target version came from the `; Version:` comment and a newer one would do: a note
    saying so (spirv-as ignores that comment) and a fix that updates the comment."""
    found = (m.env is None or m.stated is not None) and needed is not None and m.doc.header_version_line()
    if not found:
        return "", ()
    line, v = found
    text = m.doc.texts[line]
    digits = re.search(r"Version:\s*(\d+\.\d+)", text)
    if digits is None:
        return "", ()
    note = (
        f"; the module targets SPIR-V {format_version(v)} only because its '; Version: {format_version(v)}' "
        "header comment says so (spirv-as ignores that comment): update the comment, or choose the "
        "target with --target-env or the targetEnv setting"
    )
    return note, (fixes.header_version(line, digits.start(1), digits.end(1), format_version(needed)),)


def _has_ext(m: Module, exts: Iterable[str]) -> bool:
    return any(e in m.extensions for e in exts)


_NON_SEMANTIC = "SPV_KHR_non_semantic_info"


def _non_semantic(m: Module, inst: Inst) -> list[Diagnostic]:
    """A NonSemantic.* set before SPIR-V 1.6 (which has them) without the extension that allows them."""
    name = inst.operands[0].token if inst.operands and inst.operands[0].token.kind == "STRING" else None
    if name is None or not name.text.startswith('"NonSemantic.') or m.version >= (1, 6):
        return []
    if _NON_SEMANTIC in m.extensions:
        return []
    return [
        FAMILY.cite(
            inst.line,
            name,
            "capability.non-semantic",
            f"the NonSemantic set {name.text} is imported in a SPIR-V {m.version[0]}.{m.version[1]} module "
            f'without OpExtension "{_NON_SEMANTIC}" (SPIR-V 1.6 has it)',
        )
    ]


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    # Requirements depend only on the instruction or enumerant and the module's header, so each
    # one found satisfied is not asked again (a 100k-line module uses a few dozen of each).
    satisfied: set[int] = set()  # ids of objects the check holds (the module's) for its whole run
    # Instructions found satisfied, by opname (a string's hash is kept, an id() is a new int to hash)
    satisfied_ops: dict[str, Instruction] = {}
    satisfied_shapes: set[str] = set()
    for inst in insts(m, scope):
        grammar_inst = inst.inst  # (Inst.grammar_inst, without the property: this loop sees every line)
        if grammar_inst is None:
            continue
        if inst.opname in _SIZED:
            out.extend(_sized(m, inst))
        elif inst.opname == "OpExtInstImport":
            out.extend(_non_semantic(m, inst))
        if satisfied_ops.get(inst.opname) is not grammar_inst:
            found = _opcode(m, inst, grammar_inst)
            if found:
                out.extend(found)
            else:
                satisfied_ops[inst.opname] = grammar_inst
        # A line shape fixes the operands' enumerants: a shape whose every enumerant was found
        # satisfied is not looked into again (most lines of a large module repeat a few shapes).
        # Not OpExtInst's: its operands follow the set its id imports, which the shape does not say.
        fields: LineFields = inst.src  # (the compiled build reads a tuple item, not a Line's field by name)
        shape = fields.shape if inst.opname != "OpExtInst" else None
        if shape is not None and shape in satisfied_shapes:
            continue
        whole = True
        for op in inst.operands:
            # An operand's enumerants come as one tuple shared by the lines of a shape: a tuple found
            # satisfied is not looked into again.
            es = op.enumerants
            if es and id(es) not in satisfied:
                if all(id(e) in satisfied for e in es):
                    satisfied.add(id(es))
                    continue
                found = _operand(m, inst, op)
                if found:
                    out.extend(found)
                    whole = False
                elif inst.opname != "OpCapability":  # OpCapability's own operand is judged differently
                    satisfied.update(id(e) for e in es)
                    satisfied.add(id(es))
                else:
                    whole = False
        if whole and shape is not None:
            satisfied_shapes.add(shape)
    return out


def _opcode(m: Module, inst: Inst, grammar_inst: Instruction) -> list[Diagnostic]:
    need = lacks(m, grammar_inst)
    return [] if need is None else [_lacking(m, inst.line, inst.opcode, grammar_inst.name, need)]


def _operand(m: Module, inst: Inst, op: Operand) -> list[Diagnostic]:
    out = []
    for e in op.enumerants:
        if e.value == 0 and m.grammar.kinds[e.kind].category == "BitEnum":
            continue
        # OpCapability declares its operand: only version and extension apply to it.
        need = lacks(m, e, declaring=inst.opname == "OpCapability")
        if need is not None:
            out.append(_lacking(m, inst.line, op.token, f"{e.kind} {e.name}", need))
    return out


def _lacking(m: Module, line: int, tok: Spanned, what: str, need: Need) -> Diagnostic:
    """What the module lacks to enable `what` (an opcode, or an operand's enumerant), on `tok`."""
    if need.what == CAPABILITY:
        caps = list(need.names)
        return _error(
            line,
            tok,
            "capability.missing",
            f"{what} requires one of these capabilities: {', '.join(caps)} "
            "(SPIR-V 2.16.1: declare it with OpCapability)",
            fixes.add_capabilities(m, caps),
        )
    if need.what == LAST_VERSION:
        return _error(
            line, tok, "capability.version", f"{what} requires SPIR-V {format_version(need.version)} or earlier"
        )
    if need.what == RESERVED:
        return _error(
            line,
            tok,
            "capability.reserved",
            f"{what} is reserved for future use: no capability, extension or version enables it",
        )
    note, header = _from_header(m, need.version)
    if need.what == VERSION:
        return _error(
            line,
            tok,
            "capability.version",
            f"{what} requires SPIR-V {format_version(need.version)} at minimum "
            f"(the module targets {format_version(m.version)}){note}",
            fixes.made_safe(header),
        )
    exts = list(need.names)
    also = "" if need.version is None else f"SPIR-V {format_version(need.version)} or "
    return _error(
        line,
        tok,
        "capability.extension",
        f"{what} requires {also}OpExtension of one of: {', '.join(exts)}{note}",
        fixes.add_extensions(m, exts, safe=not header) + header,
    )


def _error(line: int, tok: Spanned, code: str, message: str, found: tuple[Fix, ...] = ()) -> Diagnostic:
    return at(line, tok, ERROR, code, message, fixes=found)


@module_fact
def _canonical_caps(m: Module) -> set[str]:
    """Declared capabilities (implicit ones too) by their canonical names, aliases resolved."""
    return {e.name for e in map(m.grammar.capability, m.declared_caps) if e}


def _sized(m: Module, inst: Inst) -> list[Diagnostic]:
    """OpTypeInt/OpTypeFloat widths and OpTypeVector sizes that need a capability."""
    lits = [o for o in inst.operands if not o.is_id and o.token.kind == "INT"]
    if not lits or not lits[0].token.text.isdigit():
        return []
    tok = lits[0].token  # Width, or Component Count
    key = (inst.opname, int(tok.text))
    caps = _WIDTH_CAPS.get(key)
    if caps is None or any(c in _canonical_caps(m) for c in caps) or _has_ext(m, _WIDTH_EXTS.get(key, ())):
        return []
    if inst.opname == "OpTypeFloat" and any(o.enumerants for o in inst.operands):
        return []  # an FP encoding (BFloat16KHR...) brings its own capability, checked with the enumerant
    article = "an" if key[1] == 8 else "a"
    what = {
        "OpTypeInt": f"{article} {key[1]}-bit integer type",
        "OpTypeFloat": f"{article} {key[1]}-bit floating-point type",
        "OpTypeVector": f"a vector of {key[1]} components",
    }[inst.opname]
    code = _SIZED[inst.opname]
    return [
        FAMILY.cite(
            inst.line,
            tok,
            code,
            f"{what} requires the {caps[0]} capability",
            sentence=_DECLARES[caps[0]],
            fixes=fixes.add_capabilities(m, [caps[0]]),
        )
    ]


FAMILY = Family(
    name="capabilities",
    prefix="capability",
    summary="opcodes, enumerants and builtins without their capability, extension or version (implicit capabilities count); types whose width needs one.",
    rules=(
        Rule(
            "capability.int-type",
            "an 8-, 16- or 64-bit integer type without the capability that declares it.",
            sentence=" ".join(_DECLARES[c] for c in ("Int8", "Int16", "Int64")),
        ),
        Rule(
            "capability.float-type",
            "a 16- or 64-bit floating-point type without the capability that declares it.",
            sentence=" ".join(_DECLARES[c] for c in ("Float16", "Float64")),
        ),
        Rule(
            "capability.vector16",
            "an 8- or 16-component vector without the Vector16 capability.",
            sentence=_DECLARES["Vector16"],
        ),
        Rule("capability.missing", "an opcode or enumerant whose capability the module does not declare."),
        Rule("capability.extension", "an opcode or enumerant whose extension the module does not declare."),
        Rule("capability.version", "an opcode or enumerant the module's SPIR-V version does not have."),
        Rule("capability.reserved", "an opcode or enumerant reserved for future use."),
        Rule(
            "capability.non-semantic",
            "a NonSemantic.* extended instruction set before SPIR-V 1.6 without SPV_KHR_non_semantic_info.",
            sentence="There must be an external specification defining the semantics for this extended "
            "instruction set, unless it has a name prefixed with 'NonSemantic.' at the beginning of the name",
            link=EXTENSION_PAGE.format(_NON_SEMANTIC),
            where=_NON_SEMANTIC,
        ),
    ),
    check=check,
    linewise=True,
)
