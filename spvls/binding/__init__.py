"""Bindings to external SPIR-V tools (SPIRV-Tools' C library). Uses no other spvls layer."""
