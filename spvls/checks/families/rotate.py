"""rotate.*: SPV_KHR_subgroup_rotate (OpGroupNonUniformRotateKHR)."""

from __future__ import annotations

from ...model.module import Inst, Module
from ...model.typeinfo import describe, int_info, scalar_of
from ...spec.env import is_vulkan
from ..diagnostic import Diagnostic
from ..family import Family, Rule
from ..scope import Scope, with_op

# "Execution is the scope ... It must be either Workgroup or Subgroup" (prose): the names, whose
# values the grammar gives.
_SCOPES = ("Workgroup", "Subgroup")
# The Vulkan specification's VUID-StandaloneSpirv-None-04642, which narrows the extension's scopes.
_VULKAN_SCOPE = "Scope for Non Uniform Group Operations must be limited to Subgroup"


def check(m: Module, scope: Scope = None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for inst in with_op(m, ("OpGroupNonUniformRotateKHR",), scope):
        out.extend(_rotate(m, inst))
    return out


def _rotate(m: Module, inst: Inst) -> list[Diagnostic]:
    out = []
    rt = m.definition(inst.result_type)
    rt_tok = inst.operands[0].token if inst.operands else inst.opcode
    if rt is not None and scalar_of(m, rt) is None:
        out.append(FAMILY.cite(inst.line, rt_tok, "rotate.result-type", f"Result Type is {describe(m, rt)}"))
    value = inst.operand("Value")
    if value and rt is not None:
        vt = m.type_of(value.token.text)
        if vt is not None and vt is not rt:
            out.append(
                FAMILY.cite(
                    inst.line,
                    value.token,
                    "rotate.value-type",
                    f"Value is {describe(m, vt)}, the Result Type is {describe(m, rt)}",
                )
            )
    scope = inst.operand("Execution")
    if scope and scope.is_id and m.definition(scope.token.text):
        v = m.int_value(scope.token.text)
        if not m.is_constant(scope.token.text):
            out.append(FAMILY.cite(inst.line, scope.token, "rotate.scope", "Execution is not a constant"))
        elif v is None:
            pass
        elif (name := m.grammar.kinds["Scope"].by_value.get(v)) is None or name.name not in _SCOPES:
            out.append(FAMILY.cite(inst.line, scope.token, "rotate.scope", f"Execution is {name.name if name else v}"))
        elif name.name == "Workgroup" and is_vulkan(m.env):
            out.append(
                FAMILY.cite(
                    inst.line,
                    scope.token,
                    "rotate.scope",
                    "Execution is Workgroup under a Vulkan target (VUID-StandaloneSpirv-None-04642)",
                    sentence=_VULKAN_SCOPE,
                )
            )
    delta = inst.operand("Delta")
    if delta and m.definition(delta.token.text):
        info = int_info(m.type_of(delta.token.text))
        if info is None or info[1]:
            out.append(
                FAMILY.cite(
                    inst.line, delta.token, "rotate.delta", f"Delta is {describe(m, m.type_of(delta.token.text))}"
                )
            )
    cluster = inst.operand("ClusterSize")
    if cluster and m.definition(cluster.token.text):
        info = int_info(m.type_of(cluster.token.text))
        v = m.int_value(cluster.token.text)
        if info is None or info[1]:
            out.append(
                FAMILY.cite(
                    inst.line,
                    cluster.token,
                    "rotate.cluster-size",
                    f"ClusterSize is {describe(m, m.type_of(cluster.token.text))}",
                )
            )
        elif not m.is_constant(cluster.token.text):
            out.append(
                FAMILY.cite(
                    inst.line, cluster.token, "rotate.cluster-size", "ClusterSize is not a constant instruction"
                )
            )
        elif v is not None and (v < 1 or v & (v - 1)):
            out.append(FAMILY.cite(inst.line, cluster.token, "rotate.cluster-size", f"ClusterSize is {v}"))
    return out


FAMILY = Family(
    name="rotate",
    prefix="rotate",
    summary="SPV_KHR_subgroup_rotate: OpGroupNonUniformRotateKHR's result and value types, scope, delta and cluster size.",
    rules=(
        Rule(
            "rotate.result-type",
            "an OpGroupNonUniformRotateKHR result that is not a scalar or vector of numbers or Booleans.",
            sentence="Result Type must be a scalar or vector of floating-point type, integer type, or Boolean type.",
        ),
        Rule(
            "rotate.value-type",
            "an OpGroupNonUniformRotateKHR Value not of the Result Type.",
            sentence="The type of Value must be the same as Result Type.",
        ),
        Rule(
            "rotate.scope",
            "an Execution scope other than Workgroup or Subgroup (Subgroup only under Vulkan).",
            sentence="Execution is a Scope. It must be either Workgroup or Subgroup.",
        ),
        Rule(
            "rotate.delta",
            "a Delta that is not an unsigned integer scalar.",
            sentence="Delta must be a scalar of integer type, whose Signedness operand is 0.",
        ),
        Rule(
            "rotate.cluster-size",
            "a ClusterSize that is not an unsigned integer constant, a power of 2, at least 1.",
            sentence="ClusterSize must be a scalar of integer type, whose Signedness operand is 0. "
            "ClusterSize must come from a constant instruction. Behavior is undefined unless "
            "ClusterSize is at least 1 and a power of 2.",
        ),
    ),
    check=check,
    extension="SPV_KHR_subgroup_rotate",
    linewise=True,
)
