"""Target environments, named as spirv-val names them, and the SPIR-V version each implies."""
from __future__ import annotations

import re

_VULKAN = {"1.0": (1, 0), "1.1": (1, 3), "1.2": (1, 5), "1.3": (1, 6), "1.4": (1, 6)}
NAMES = ([f"spv1.{i}" for i in range(7)] + [f"vulkan{v}" for v in _VULKAN]
         + [f"universal1.{i}" for i in range(7)] + ["vulkan1.1spv1.4"])


def version_of(env: str) -> tuple[int, int]:
    """The SPIR-V version of a target env name; ValueError for an unknown name."""
    if env == "vulkan1.1spv1.4":
        return (1, 4)
    m = re.fullmatch(r"(spv|universal)1\.([0-6])", env)
    if m:
        return (1, int(m.group(2)))
    m = re.fullmatch(r"vulkan(1\.[0-4])", env)
    if m:
        return _VULKAN[m.group(1)]
    raise ValueError(f"unknown target env {env!r}; known: {', '.join(NAMES)}")


def is_vulkan(env: str | None) -> bool:
    return bool(env and env.startswith("vulkan"))
