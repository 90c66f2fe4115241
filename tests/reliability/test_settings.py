"""Issues 14.18 and 15.10/15.13: settings of any shape; the valid ones are taken, the rest reported."""
import pytest

from spvls.state.workspace import Settings


@pytest.mark.parametrize("raw", [{"spvls": []}, {"spvls": 5}, 5, "x", [], {"spvls": None}, None, {}])
def test_any_shape_never_raises(raw):
    s = Settings()
    problems = s.update(raw)
    assert (s.target_env, s.inlay_hints) == (None, True)
    assert isinstance(problems, list)


def test_wrong_shapes_are_reported_and_empty_ones_are_not():
    assert Settings().update({"spvls": []}) == []  # Neovim's empty table
    assert Settings().update(None) == []
    (msg,) = Settings().update({"spvls": 5})
    assert "expected an object of settings" in msg


def test_valid_keys_are_taken_and_invalid_ones_reported():
    s = Settings()
    problems = s.update({"spvls": {"targetEnv": "vulkan9", "inlayHints": False, "serverPath": "/x"}})
    assert s.inlay_hints is False and s.target_env is None
    (msg,) = problems
    assert "targetEnv" in msg and "'vulkan9'" in msg and "vulkan1.3" in msg
    assert s.update({"targetEnv": "vulkan1.3", "inlayHints": "yes"}) and s.target_env == "vulkan1.3"
    assert s.inlay_hints is False  # "yes" is not a boolean: kept
    assert s.update({"targetEnv": "auto"}) == [] and s.target_env is None


def test_a_rejected_value_is_quoted_short_whatever_its_size(rng):
    """A 100 KB setting is not a 100 KB popup: each message quotes at most SHOWN characters of the
    value and says how long it was (generated values of many kinds and sizes)."""
    from spvls.state.workspace import SHOWN

    for _ in range(40):
        n = rng.choice([0, 1, 79, 80, 81, 1000, 100_000, 300_000])
        value = rng.choice([
            "x" * n,
            ["a"] * (n // 4),
            {str(i): i for i in range(n // 8)},
            rng.random() * 10.0 ** rng.randrange(300) if n else -1,
        ])
        for raw in ({"targetEnv": value, "inlayHints": value, "validate": value, "validatorTimeout": value}, value):
            problems = Settings().update(raw)
            for msg in problems:
                assert len(msg) < 1000, msg[:300]  # the value's SHOWN characters, and the known values
                if len(repr(value)) > SHOWN:
                    assert f"({len(repr(value)):,} characters)" in msg
