"""A short, fixed fuzzing run (the long one: `python -m tests.fuzz --minutes N`)."""
from tests.fuzz.__main__ import run


def test_fixed_fuzz_run_finds_nothing():
    stats = run(seed=14, inputs=150, session_every=15, edits_per_session=10)
    assert stats.inputs == 150 and stats.sessions == 10
    assert not stats.findings, "\n\n".join(f"{f}\ninput: {t[:2000]!r}" for f, t in stats.findings.values())
