"""The rule families, one module each (each ends with its `FAMILY`), in the order they run."""

from __future__ import annotations

from ..family import Family
from . import (
    arith,
    ballot,
    block_layout,
    capabilities,
    composite,
    coopmat,
    decorations,
    entry,
    glsl,
    ids,
    layout,
    memory,
    operands,
    reconvergence,
    rotate,
    structure,
    syntax,
    types,
    uniformity,
    vulkan,
)

FAMILIES: tuple[Family, ...] = (
    syntax.FAMILY,
    operands.FAMILY,
    ids.FAMILY,
    capabilities.FAMILY,
    types.FAMILY,
    structure.FAMILY,
    arith.FAMILY,
    glsl.FAMILY,
    memory.FAMILY,
    composite.FAMILY,
    decorations.FAMILY,
    block_layout.FAMILY,
    entry.FAMILY,
    layout.FAMILY,
    reconvergence.FAMILY,
    coopmat.FAMILY,
    rotate.FAMILY,
    ballot.FAMILY,
    uniformity.FAMILY,
    vulkan.FAMILY,
)
