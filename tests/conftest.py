import os
import random
from pathlib import Path

import pytest
from helpers import DATA_ROOT
from hypothesis import settings

# CI replays the same examples every run, so a red build is a regression, not a lucky draw;
# local runs draw new examples each time to keep hunting.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# The diagnostics cache on disk (spvls/state/cache.py) stays out of every test but its own, which
# clears this: a server the tests start would otherwise fill the user's cache and answer from it.
os.environ["SPVLS_NO_CACHE"] = "1"


def pytest_configure(config: pytest.Config) -> None:
    """One seed for every generated input of the run (hypothesis and the seeded tests, which read
    SPVLS_SEED): fixed under CI, fresh on each local run, printed in the header; SPVLS_SEED=N replays
    a run. Set before xdist starts its workers, which inherit it."""
    if not os.environ.get("SPVLS_SEED"):
        os.environ["SPVLS_SEED"] = "0" if os.environ.get("CI") else str(random.randrange(1 << 32))
    if config.getoption("hypothesis_seed", None) is None:
        from hypothesis import core

        core.global_force_seed = int(os.environ["SPVLS_SEED"])


def pytest_report_header(config: pytest.Config) -> str:
    return f"seed: SPVLS_SEED={os.environ['SPVLS_SEED']} (hypothesis and the seeded tests; set it to replay)"


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """The seed again at the end, where a failure is read (-q hides the header)."""
    terminalreporter.write_line(f"seed: SPVLS_SEED={os.environ['SPVLS_SEED']}")


@pytest.fixture(scope="session")
def data_root() -> Path:
    return DATA_ROOT


@pytest.fixture
def rng() -> random.Random:
    """A source of generated inputs seeded by the run's SPVLS_SEED (pytest_configure), printed with
    the test's output so a finding can be replayed."""
    seed = int(os.environ["SPVLS_SEED"])
    print(f"seed {seed} (SPVLS_SEED={seed} replays it)")
    return random.Random(seed)
