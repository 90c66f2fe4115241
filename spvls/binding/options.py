"""spirv-val's options by name, without loading the library: the settings and the command line
name them before anything is validated (ValidatorOptions and the library's setters are in
spirv_tools, which imports ctypes and the validator's helpers)."""

from __future__ import annotations

# Seconds of CPU time a validation may take (worker.py): far more than a large valid module needs,
# so only a pathological one is stopped.
DEFAULT_TIMEOUT = 5.0

# spirv-val's flag for each boolean option (ValidatorOptions' field name -> flag).
FLAGS = {
    "relax_block_layout": "--relax-block-layout",
    "uniform_buffer_standard_layout": "--uniform-buffer-standard-layout",
    "scalar_block_layout": "--scalar-block-layout",
    "workgroup_scalar_block_layout": "--workgroup-scalar-block-layout",
    "skip_block_layout": "--skip-block-layout",
    "relax_logical_pointer": "--relax-logical-pointer",
    "relax_struct_store": "--relax-struct-store",
    "before_hlsl_legalization": "--before-hlsl-legalization",
    "allow_local_size_id": "--allow-localsizeid",
    "allow_offset_texture_operand": "--allow-offset-texture-operand",
    "allow_vulkan_32_bit_bitwise": "--allow-vulkan-32-bit-bitwise",
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


# Settings (camelCase, as editors send them) -> ValidatorOptions fields; spirv-val's meaning.
SETTINGS = {_camel(name): name for name in FLAGS}
