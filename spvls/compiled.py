"""What the optional compiled build (mypyc, see setup.py) must be told about a class; nothing to a
pure-Python install, which needs no mypy_extensions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:

        def mypyc_attr(*_names: str, **_attrs: Any) -> Any:
            return lambda cls: cls


__all__ = ["mypyc_attr"]
