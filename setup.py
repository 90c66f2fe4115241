"""The optional compiled build, beside pyproject.toml (which holds everything else):
`SPVLS_COMPILE=1 pip install .` compiles the modules tools/compiled.py lists with mypyc; without it
spvls installs as pure Python. `spvls --version` says which was installed."""

import os
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def ext_modules() -> list:
    if os.environ.get("SPVLS_COMPILE", "") in ("", "0"):
        return []
    from mypyc.build import mypycify  # build-system requires mypy when SPVLS_COMPILE is set

    sys.path.insert(0, str(ROOT))
    from tools.compiled import files

    print(f"spvls: compiling {len(files())} modules with mypyc", file=sys.stderr)
    return mypycify(files(), opt_level="3")


setup(ext_modules=ext_modules())
