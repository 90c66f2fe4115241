"""Target environments, named as spirv-val names them, and the SPIR-V version each implies
(SPIRV-Tools' spvVersionForTargetEnv; tests/unit/test_env.py compares every name with spirv-as)."""

from __future__ import annotations

# spirv-val --help's --target-env names (SPIRV-Tools 2025.5), with the version of each.
_TOOLS = {
    **{f"vulkan{v}": s for v, s in {"1.0": (1, 0), "1.1": (1, 3), "1.2": (1, 5), "1.3": (1, 6), "1.4": (1, 6)}.items()},
    "vulkan1.1spv1.4": (1, 4),
    **{f"spv1.{i}": (1, i) for i in range(7)},
    **{
        f"opencl{v}{e}": (1, 2) if v == "2.2" else (1, 0)
        for v in ("1.2", "2.0", "2.1", "2.2")
        for e in ("", "embedded")
    },
    **{f"opengl4.{i}": (1, 0) for i in (0, 1, 2, 3, 5)},  # spirv-val has no opengl4.4
}
TOOLS_NAMES = list(_TOOLS)
# Older spvls names, kept so settings that use them still work (SPIRV-Tools does not take them).
_OLDER = {f"universal1.{i}": f"spv1.{i}" for i in range(7)}
NAMES = TOOLS_NAMES + list(_OLDER)
VERSIONS = frozenset(_TOOLS.values())  # the SPIR-V versions some env targets


def tools_name(env: str) -> str:
    """The name SPIRV-Tools takes for a target env (an older spvls name: its spv1.N)."""
    return _OLDER.get(env, env)


def version_of(env: str) -> tuple[int, int]:
    """The SPIR-V version of a target env name; ValueError for an unknown name."""
    try:
        return _TOOLS[tools_name(env)]
    except KeyError:
        raise ValueError(f"unknown target env {env!r}; known: {', '.join(NAMES)}") from None


def is_vulkan(env: str | None) -> bool:
    return bool(env and env.startswith("vulkan"))
