"""Generate a valid SPIR-V module of about N lines: many functions with loops and selections,
a MaximallyReconvergesKHR entry point, and cooperative-matrix code."""
from __future__ import annotations

import sys

HEADER = """; SPIR-V
; Version: 1.6
               OpCapability Shader
               OpCapability Float16
               OpCapability VulkanMemoryModel
               OpCapability CooperativeMatrixKHR
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_KHR_maximal_reconvergence"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %tile
               OpExecutionMode %main LocalSize 32 1 1
               OpExecutionMode %main MaximallyReconvergesKHR
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
        %f16 = OpTypeFloat 16
        %f32 = OpTypeFloat 32
        %u32 = OpTypeInt 32 0
        %i32 = OpTypeInt 32 1
   %p_fn_i32 = OpTypePointer Function %i32
   %subgroup = OpConstant %u32 3
      %u32_0 = OpConstant %u32 0
      %u32_1 = OpConstant %u32 1
      %u32_2 = OpConstant %u32 2
      %u32_8 = OpConstant %u32 8
     %u32_16 = OpConstant %u32 16
    %u32_256 = OpConstant %u32 256
      %i32_0 = OpConstant %i32 0
      %i32_1 = OpConstant %i32 1
     %i32_10 = OpConstant %i32 10
       %matA = OpTypeCooperativeMatrixKHR %f16 %subgroup %u32_16 %u32_8 %u32_0
       %matB = OpTypeCooperativeMatrixKHR %f16 %subgroup %u32_8 %u32_16 %u32_1
        %acc = OpTypeCooperativeMatrixKHR %f32 %subgroup %u32_16 %u32_16 %u32_2
     %f32arr = OpTypeArray %f32 %u32_256
   %p_wg_arr = OpTypePointer Workgroup %f32arr
   %p_wg_f32 = OpTypePointer Workgroup %f32
       %tile = OpVariable %p_wg_arr Workgroup
"""

FUNCTION = """     %fun{n} = OpFunction %void None %fn
    %fun{n}_e = OpLabel
    %fun{n}_v = OpVariable %p_fn_i32 Function
               OpStore %fun{n}_v %i32_0
               OpBranch %fun{n}_h
    %fun{n}_h = OpLabel
               OpLoopMerge %fun{n}_m %fun{n}_c None
               OpBranch %fun{n}_b
    %fun{n}_b = OpLabel
    %fun{n}_i = OpLoad %i32 %fun{n}_v
    %fun{n}_t = OpSLessThan %bool %fun{n}_i %i32_10
               OpBranchConditional %fun{n}_t %fun{n}_s %fun{n}_m
    %fun{n}_s = OpLabel
    %fun{n}_p = OpAccessChain %p_wg_f32 %tile %u32_0
    %fun{n}_a = OpCooperativeMatrixLoadKHR %matA %fun{n}_p %u32_0 %u32_16
    %fun{n}_x = OpCooperativeMatrixLoadKHR %matB %fun{n}_p %u32_0 %u32_16
    %fun{n}_y = OpCooperativeMatrixLoadKHR %acc %fun{n}_p %u32_0 %u32_16
    %fun{n}_z = OpCooperativeMatrixMulAddKHR %acc %fun{n}_a %fun{n}_x %fun{n}_y
               OpCooperativeMatrixStoreKHR %fun{n}_p %fun{n}_z %u32_0 %u32_16
    %fun{n}_k = OpIEqual %bool %fun{n}_i %i32_1
               OpSelectionMerge %fun{n}_j None
               OpBranchConditional %fun{n}_k %fun{n}_q %fun{n}_j
    %fun{n}_q = OpLabel
    %fun{n}_w = OpIAdd %i32 %fun{n}_i %i32_1
               OpBranch %fun{n}_j
    %fun{n}_j = OpLabel
               OpBranch %fun{n}_c
    %fun{n}_c = OpLabel
    %fun{n}_n = OpIAdd %i32 %fun{n}_i %i32_1
               OpStore %fun{n}_v %fun{n}_n
               OpBranch %fun{n}_h
    %fun{n}_m = OpLabel
               OpReturn
               OpFunctionEnd
"""
FUNCTION_LINES = FUNCTION.count("\n")


def module(lines: int) -> str:
    count = max(1, (lines - HEADER.count("\n") - 8) // FUNCTION_LINES)
    parts = [HEADER]
    parts += [FUNCTION.format(n=n) for n in range(count)]
    calls = "".join(f"          %call{n} = OpFunctionCall %void %fun{n}\n" for n in range(0, count, max(1, count // 4)))
    parts.append("       %main = OpFunction %void None %fn\n      %entry = OpLabel\n" + calls +
                 "               OpReturn\n               OpFunctionEnd\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(module(int(sys.argv[1]) if len(sys.argv) > 1 else 10000))
