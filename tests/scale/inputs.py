"""Inputs whose size is one number n, one per growth problem of issue 14 (points 11-15).

Each is a module spirv-as + spirv-val handle in milliseconds; spvls must handle them in time and
memory that grow at most n*log n.
"""
from __future__ import annotations

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def literals(n: int) -> str:
    """One line with n integer literals (point 11): operands where ids belong."""
    return HEAD + "%s = OpTypeStruct" + " 1" * n + "\n"


def _word(i: int) -> str:
    s = ""
    i += 26 * 26
    while i:
        i, r = divmod(i, 26)
        s += chr(97 + r)
    return s


def unknown_opcodes(n: int) -> str:
    """n distinct unknown opcodes (point 12), each a did-you-mean candidate."""
    return HEAD + "".join(f"OpFrob{_word(i)}\n" for i in range(n))


def call_chain(n: int) -> str:
    """An n-deep OpFunctionCall chain under MaximallyReconvergesKHR (point 13), each function with a
    block of two predecessors, so each reports a diagnostic with its call path."""
    out = ["OpCapability Shader\nOpExtension \"SPV_KHR_maximal_reconvergence\"\n"
           "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %f0 \"main\"\n"
           "OpExecutionMode %f0 LocalSize 1 1 1\nOpExecutionMode %f0 MaximallyReconvergesKHR\n"
           "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%t = OpConstantTrue %bool\n"]
    for i in range(n):
        call = f"%c{i} = OpFunctionCall %void %f{i + 1}\n" if i + 1 < n else ""
        out.append(f"%f{i} = OpFunction %void None %fn\n%e{i} = OpLabel\n{call}"
                   f"OpBranchConditional %t %a{i} %b{i}\n%a{i} = OpLabel\nOpBranch %j{i}\n"
                   f"%b{i} = OpLabel\nOpBranch %j{i}\n%j{i} = OpLabel\nOpReturn\nOpFunctionEnd\n")
    return "".join(out)


def blocks(n: int) -> str:
    """One function of n blocks (point 14) under MaximallyReconvergesKHR: a chain of diamonds whose
    joins each have two predecessors (so each is reported, and each is looked up by its label)."""
    body = "".join(f"%h{i} = OpLabel\nOpBranchConditional %t %a{i} %b{i}\n%a{i} = OpLabel\nOpBranch %h{i + 1}\n"
                   f"%b{i} = OpLabel\nOpBranch %h{i + 1}\n" for i in range(n // 3))
    return ("OpCapability Shader\nOpExtension \"SPV_KHR_maximal_reconvergence\"\n"
            "OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n"
            "OpExecutionMode %main LocalSize 1 1 1\nOpExecutionMode %main MaximallyReconvergesKHR\n"
            "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%t = OpConstantTrue %bool\n"
            f"%main = OpFunction %void None %fn\n{body}%h{n // 3} = OpLabel\nOpReturn\nOpFunctionEnd\n")


def long_name(n: int) -> str:
    """An OpName whose string is n bytes (point 15); past 262,139 bytes the instruction has more
    than 65,535 words, which spirv-as rejects."""
    return HEAD + "%void = OpTypeVoid\nOpName %void \"" + "a" * n + "\"\n"


def undefined_ids(n: int) -> str:
    """n/2 constants, then n/2 distinct undefined ids (named, never defined), each a did-you-mean
    candidate against every defined one. The constants are all equal, which SPIRV-Tools pays for
    quadratically whenever it reports an error: its report names the module's ids, and each equal
    constant's name (`uint_1`, `uint_1_0`, ...) is found by trying every suffix taken before it."""
    return (HEAD + "%int = OpTypeInt 32 0\n" + "".join(f"%c{i} = OpConstant %int 1\n" for i in range(n // 2))
            + "".join(f'OpName %u{_word(i)} "x"\n' for i in range(n // 2)))


def slow_cfg(depth: int, joins: int = 1) -> str:
    """Selections nested `depth` deep under MaximallyReconvergesKHR, then `joins` blocks each with
    two predecessors (reconvergence.multiple-predecessors, one problem each, which spirv-val does not
    check). Valid for spirv-val, whose structured-CFG checks take ~n³ time here (depth 600: ~4 s of
    CPU, 1,000: 17 s) whatever names the ids have: slow with spvls' own options too, where
    undefined_ids is not (spvls/binding/renaming.py)."""
    out = ["OpCapability Shader", 'OpExtension "SPV_KHR_maximal_reconvergence"', "OpMemoryModel Logical GLSL450",
           'OpEntryPoint GLCompute %main "main"', "OpExecutionMode %main LocalSize 1 1 1",
           "OpExecutionMode %main MaximallyReconvergesKHR", "%void = OpTypeVoid", "%bool = OpTypeBool",
           "%t = OpConstantTrue %bool", "%fn = OpTypeFunction %void", "%main = OpFunction %void None %fn", "%b0 = OpLabel"]
    for i in range(depth):
        out += [f"OpSelectionMerge %m{i} None", f"OpBranchConditional %t %b{i + 1} %m{i}", f"%b{i + 1} = OpLabel"]
    for j in range(joins):
        out += [f"OpSelectionMerge %h{j} None", f"OpBranchConditional %t %x{j} %y{j}", f"%x{j} = OpLabel",
                f"OpBranch %j{j}", f"%y{j} = OpLabel", f"OpBranch %j{j}", f"%j{j} = OpLabel", f"OpBranch %h{j}",
                f"%h{j} = OpLabel"]
    out.append(f"OpBranch %m{depth - 1}")
    for i in reversed(range(depth)):
        out += [f"%m{i} = OpLabel", f"OpBranch %m{i - 1}" if i else "OpReturn"]
    return "\n".join([*out, "OpFunctionEnd", ""])


def unknown_enumerants(n: int) -> str:
    """n distinct unknown enumerants, each a did-you-mean candidate among the kind's names."""
    return HEAD + "".join(f"OpCapability Frob{_word(i)}\n" for i in range(n))


def unknown_spec_ops(n: int) -> str:
    """n distinct unknown OpSpecConstantOp opcode names, each a candidate among every opcode."""
    return (HEAD + "%int = OpTypeInt 32 0\n%c = OpConstant %int 1\n"
            + "".join(f"%s{i} = OpSpecConstantOp %int Frob{_word(i)} %c %c\n" for i in range(n)))


def unknown_ext_insts(n: int) -> str:
    """n distinct unknown GLSL.std.450 instruction names, each a candidate among the set's."""
    return (HEAD + "%glsl = OpExtInstImport \"GLSL.std.450\"\n%f = OpTypeFloat 32\n%c = OpConstant %f 1\n"
            + "".join(f"%x{i} = OpExtInst %f %glsl Frob{_word(i)} %c\n" for i in range(n)))


# name -> (generator, n for the growth test, n for the bench: about 1 MB or the size)
CASES = {
    "literals": (literals, 2_000, 20_000),
    "unknown-opcodes": (unknown_opcodes, 500, 4_000),
    # Past model.module.SUGGEST_OPCODES_UP_TO: 95,000 distinct ones fill 1 MB. n and 4n both past
    # the parser's cache of lines without ids (4,096), which would make n look cheap.
    "many-unknown-opcodes": (unknown_opcodes, 5_000, 95_000),
    "undefined-ids": (undefined_ids, 4_000, 46_000),  # 46,000: 1 MB (50 s of CPU, quadratic, before)
    # Past model.module.SUGGEST_NAMES_UP_TO, each 1 MB (4.1 s, 4.6 s and 1.1 s of analysis before).
    "many-unknown-enumerants": (unknown_enumerants, 5_000, 47_500),
    "many-unknown-spec-ops": (unknown_spec_ops, 5_000, 22_700),
    "many-unknown-ext-insts": (unknown_ext_insts, 5_000, 26_000),
    "call-chain": (call_chain, 1_000, 5_000),
    "blocks": (blocks, 4_000, 20_000),
    "long-name": (long_name, 200_000, 1_000_000),
}
