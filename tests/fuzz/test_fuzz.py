"""A short fuzzing run, seeded by the run's seed (tests/conftest.py: 0 under CI, fresh locally,
printed in the header); the long one: `python -m tests.fuzz --minutes N`."""
import os

from tests.fuzz.__main__ import run


def test_fuzz_run_finds_nothing():
    stats = run(seed=int(os.environ.get("SPVLS_SEED") or 0), inputs=150, session_every=15, edits_per_session=10)
    assert stats.inputs == 150 and stats.sessions == 10
    assert stats.binaries == stats.graphs == stats.source_names == 150
    assert not stats.findings, "\n\n".join(f"{f}\ninput: {t[:2000]!r}" for f, t in stats.findings.values())
