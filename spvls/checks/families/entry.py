"""entry.*: entry points, their execution modes and their interface lists.

Everything here is module-level; the interface rule reads which global variables each function
names, which Module.update keeps in step (an in-place edit never changes it).
"""

from __future__ import annotations

from ...model.module import EntryPoint, Inst, Module
from ...spec.env import is_vulkan
from ..diagnostic import Diagnostic, related_at
from ..family import Family, Rule
from ..scope import Scope

_MODES = ("OpExecutionMode", "OpExecutionModeId")


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    if scope is not None:
        return []  # nothing an in-place edit inside a function changes (see the module docstring)
    out: list[Diagnostic] = []
    workgroup_size = any(_is_builtin(i, "WorkgroupSize") for ids in m.decorations.values() for i in ids)
    local_size_id = False
    for inst in m.outside_functions():
        if inst.opname in _MODES:
            out.extend(_mode(m, inst, workgroup_size))
            local_size_id |= _mode_name(inst) == "LocalSizeId"
    for ep in m.entry_points.values():
        out.extend(_required_modes(m, ep, workgroup_size, local_size_id))
        out.extend(_interface_list(m, ep))
    out.extend(_interfaces(m))
    return out


def _mode_name(inst: Inst) -> str | None:
    for o in inst.operands:
        if o.enumerants:
            return o.enumerants[0].name
    return None


def _is_builtin(inst: Inst, name: str) -> bool:
    names = [e.name for o in inst.operands for e in o.enumerants]
    return names[:2] == ["BuiltIn", name]


def _mode(m: Module, inst: Inst, workgroup_size: bool) -> list[Diagnostic]:
    ops = inst.operands
    if not ops or not ops[0].is_id:
        return []
    target = ops[0].token
    d = m.definition(target.text)
    if d is not None and target.text not in m.entry_points:
        return [
            FAMILY.cite(
                inst.line,
                target,
                "entry.mode-target",
                f"{target.text} is not the Entry Point of any OpEntryPoint (it is an {d.opname})",
            )
        ]
    mode = _mode_name(inst)
    if mode not in ("LocalSize", "LocalSizeId") or workgroup_size:
        return []  # a WorkgroupSize builtin overrides the mode's values
    sizes = [o for o in ops if o.enumerants == () and o is not ops[0]]
    values = []
    for o in sizes:
        if mode == "LocalSize":
            values.append(int(o.token.text) if o.token.kind == "INT" and o.token.text.isdigit() else None)
        else:
            values.append(m.int_value(o.token.text) if o.is_id else None)
    if len(values) == 3 and None not in values and 0 in values:
        zero = sizes[values.index(0)]
        return [
            FAMILY.cite(
                inst.line,
                zero.token,
                "entry.local-size-zero",
                f"{mode} {' '.join(str(v) for v in values)} has a product of zero",
            )
        ]
    return []


def _required_modes(m: Module, ep: EntryPoint, workgroup_size: bool, local_size_id: bool) -> list[Diagnostic]:
    modes = {_mode_name(i) for i in ep.modes}
    model = ep.inst.operands[0].token if ep.inst.operands else ep.inst.src.opcode
    if ep.model == "Fragment" and "Shader" in m.declared_caps and not modes & {"OriginUpperLeft", "OriginLowerLeft"}:
        return [
            FAMILY.cite(
                ep.inst.line,
                model,
                "entry.origin",
                f"Fragment entry point {ep.name!r} has neither OriginUpperLeft nor OriginLowerLeft",
            )
        ]
    if (
        ep.model == "GLCompute"
        and is_vulkan(m.env)
        and "LocalSize" not in modes
        and not workgroup_size
        and not local_size_id
        and "TileShadingQCOM" not in m.declared_caps
    ):
        return [
            FAMILY.cite(
                ep.inst.line,
                model,
                "entry.local-size",
                f"under {m.env}, GLCompute entry point {ep.name!r} needs a LocalSize or LocalSizeId execution "
                "mode, or a variable decorated BuiltIn WorkgroupSize",
            )
        ]
    return []


def _storage(inst: Inst | None) -> str | None:
    if inst is None or inst.opname != "OpVariable":
        return None
    for o in inst.operands:
        if o.enumerants:
            return o.enumerants[0].name
    return None


def _interface_list(m: Module, ep: EntryPoint) -> list[Diagnostic]:
    out = []
    fn = next((o for o in ep.inst.operands if o.is_id), None)
    d = m.definition(fn.token.text) if fn is not None else None
    if fn is not None and d is not None and d.opname != "OpFunction":
        lead = f"the Entry Point {fn.token.text} is an {d.opname}, not a function"
        out.append(FAMILY.cite(ep.inst.line, fn.token, "entry.function", lead))
    seen: set[str] = set()
    for o in [o for o in ep.inst.operands if o.is_id][1:]:
        name = o.token.text
        var = m.definition(name)
        if name in seen and m.version >= (1, 4) and var is not None and var.src.result is not None:
            # On the variable, as spirv-val reports it; the second listing is related.
            out.append(
                FAMILY.cite(
                    var.line,
                    var.src.result,
                    "entry.interface-duplicate",
                    f"{name} is listed twice in the interface of entry point {ep.name!r}",
                    related=[related_at(ep.inst.line, o.token, "listed again here")],
                )
            )
        seen.add(name)
        if var is not None and var.opname not in ("OpVariable", "OpUntypedVariableKHR"):
            lead = f"{name} is listed in the interface of entry point {ep.name!r}, but it is an {var.opname}"
            out.append(FAMILY.cite(ep.inst.line, o.token, "entry.interface-variable", lead))
            continue
        sc = _storage(var)
        if (
            sc is not None
            and m.version < (1, 4)
            and sc not in ("Input", "Output")
            and var is not None
            and var.src.result is not None
        ):
            # On the variable, as spirv-val reports it; the listing is related.
            out.append(
                FAMILY.cite(
                    var.line,
                    var.src.result,
                    "entry.interface-storage",
                    f"{name} is a {sc} variable listed in the interface of entry point {ep.name!r}, and the "
                    f"module is SPIR-V {m.version[0]}.{m.version[1]}",
                    related=[related_at(ep.inst.line, o.token, "listed here")],
                )
            )
    return out


def _interfaces(m: Module) -> list[Diagnostic]:
    """Global variables used in an entry point's static call tree but missing from its interface list.
    Like spirv-val, on the variable; the first use in each function is related."""
    if not m.entry_points:
        return []
    out = []
    trees = {ep.id: m.call_tree(ep.id) for ep in m.entry_points.values()}
    listed = {ep.id: {o.token.text for o in ep.inst.operands if o.is_id} for ep in m.entry_points.values()}
    first_uses: dict[str, dict[str, Inst]] = {}  # per id: a redefined one shares its uses (was quadratic)
    for inst in m.outside_functions():
        if inst.opname != "OpVariable" or not inst.result:
            continue
        sc = _storage(inst)
        if sc is None or sc == "Function" or (m.version < (1, 4) and sc not in ("Input", "Output")):
            continue
        used = first_uses.get(inst.result)
        if used is None:
            used = first_uses[inst.result] = {}  # function id -> first use there
            for user in m.uses.get(inst.result, ()):
                fn = m.function_at(user.line)
                if fn is not None and fn.id not in used:
                    used[fn.id] = user
        if not used:
            continue
        missing = []
        for ep in m.entry_points.values():
            if inst.result in listed[ep.id]:
                continue
            hit = next((f for f in used if f in trees[ep.id]), None)
            if hit is not None:
                missing.append((ep, used[hit]))
        if missing:
            names = ", ".join(repr(ep.name) for ep, _ in missing)
            rel = [related_at(ep.inst.line, ep.inst.src.opcode, f"entry point {ep.name!r}") for ep, _ in missing]
            rel += [related_at(use.line, use.src.opcode, f"{inst.result} used here") for _, use in missing[:1]]
            out.append(
                FAMILY.cite(
                    inst.line,
                    inst.src.result,
                    "entry.interface",
                    f"{inst.result} ({sc}) is used in the call tree of entry point {names} but is not in its "
                    "interface list",
                    related=rel,
                )
            )
    return out


FAMILY = Family(
    name="entry",
    prefix="entry",
    summary="entry points, their execution modes and their interface lists.",
    rules=(
        Rule(
            "entry.mode-target",
            "an execution mode on something that is not an entry point.",
            sentence="OpExecutionMode: Entry Point must be the Entry Point <id> operand of an OpEntryPoint "
            "instruction.",
        ),
        Rule(
            "entry.origin",
            "a Fragment entry point without OriginUpperLeft or OriginLowerLeft.",
            sentence="Each OpEntryPoint with the Fragment Execution Model must have an OpExecutionMode for either the "
            "OriginLowerLeft or the OriginUpperLeft Execution Mode. (Exactly one of these is required.)",
        ),
        Rule(
            "entry.local-size",
            "a GLCompute entry point under Vulkan without a workgroup size.",
            where="Vulkan VUID-StandaloneSpirv-None-10685",
            link="https://registry.khronos.org/vulkan/specs/latest/html/vkspec.html#VUID-StandaloneSpirv-None-10685",
            sentence="For each compute shader entry point, either a LocalSize or LocalSizeId Execution Mode, or "
            "an object decorated with the WorkgroupSize decoration must be specified.",
        ),
        Rule(
            "entry.local-size-zero",
            "a workgroup size with a zero dimension.",
            sentence="If the workgroup size is statically specified (using the LocalSize, LocalSizeId "
            "execution modes, or the WorkgroupSize BuiltIn), the product of all workgroup size "
            "dimensions must not be zero.",
        ),
        Rule(
            "entry.interface",
            "a global variable the entry point's call tree uses but its interface omits.",
            sentence="The set of Interface <id> must be equal to or a superset of the global OpVariable Result <id> "
            "referenced by the entry point’s static call tree, within the interface’s storage classes. "
            "Before version 1.4, the interface’s storage classes are limited to the Input and Output "
            "storage classes. Starting with version 1.4, the interface’s storage classes are all storage "
            "classes used in declaring all global variables referenced by the entry point’s call tree.",
        ),
        Rule(
            "entry.interface-variable",
            "an OpEntryPoint interface <id> that is not a variable.",
            sentence="OpEntryPoint: Interface is a list of <id> of global OpVariable instructions.",
        ),
        Rule(
            "entry.function",
            "an OpEntryPoint whose Entry Point is not a function.",
            sentence="OpEntryPoint: Entry Point must be the Result <id> of an OpFunction instruction.",
        ),
        Rule(
            "entry.interface-storage",
            "before SPIR-V 1.4, an interface variable neither Input nor Output.",
            sentence="Before version 1.4, the interface’s storage classes are limited to the Input and "
            "Output storage classes.",
        ),
        Rule(
            "entry.interface-duplicate",
            "from SPIR-V 1.4, an interface listing a variable twice.",
            sentence="Interface <id> are forward references. Before version 1.4, duplication of these "
            "<id> is tolerated. Starting with version 1.4, an <id> must not appear more than once.",
        ),
    ),
    check=check,
)
