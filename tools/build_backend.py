"""setuptools' build backend, asking for mypy (mypyc) only for the compiled build (SPVLS_COMPILE=1):
a pure-Python install needs nothing but setuptools."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - the same hooks, two of them extended below

MYPYC = "mypy==2.4.1"  # the version the compiled build is tested with


def _compiled() -> bool:
    return os.environ.get("SPVLS_COMPILE", "") not in ("", "0")


def _setuptools_requires(
    hook: Callable[[dict[str, Any] | None], list[str]], config: dict[str, Any] | None
) -> list[str]:
    """setuptools' own requirements, asked with the compiled build off: it runs setup.py to find them,
    before mypy is installed."""
    chosen = os.environ.pop("SPVLS_COMPILE", None)
    try:
        return hook(config)
    finally:
        if chosen is not None:
            os.environ["SPVLS_COMPILE"] = chosen


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    own = _setuptools_requires(_setuptools.get_requires_for_build_wheel, config_settings)
    return [*own, MYPYC] if _compiled() else own


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    own = _setuptools_requires(_setuptools.get_requires_for_build_editable, config_settings)
    return [*own, MYPYC] if _compiled() else own
