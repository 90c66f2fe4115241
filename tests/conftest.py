import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples every run, so a red build is a regression, not a lucky draw;
# local runs draw new examples each time to keep hunting.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The diagnostics cache on disk (spvls/session/cache.py) stays out of every test but its own, which
# clears this: a server the tests start would otherwise fill the user's cache and answer from it.
os.environ["SPVLS_NO_CACHE"] = "1"

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI needs the shared data at {SHARED}")
        pytest.skip(f"no shared data at {SHARED}")
    return SHARED
