"""The wheel carries every package under spvls/ and the top-level grammar/ (pyproject.toml lists them by
hand, because grammar/ lies outside spvls/ and setuptools' package finder would not see it)."""
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_and_the_grammar_are_in_the_wheel():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "spvls").rglob("__init__.py")}
    assert set(conf["packages"]) == found | {"spvls.grammar"}
    assert conf["package-dir"] == {"spvls.grammar": "grammar"}
    assert conf["package-data"]["spvls.grammar"] == ["*.lark"]
    assert (ROOT / "grammar" / "spvasm.lark").is_file() and not (ROOT / "spvls" / "grammar" / "spvasm.lark").exists()


def test_the_build_asks_for_mypyc_only_when_the_compiled_build_is_chosen(monkeypatch):
    """A pure-Python install needs only setuptools; SPVLS_COMPILE=1 adds the tested mypy (mypyc)."""
    from tools import build_backend

    for value in (None, "", "0"):
        if value is None:
            monkeypatch.delenv("SPVLS_COMPILE", raising=False)
        else:
            monkeypatch.setenv("SPVLS_COMPILE", value)
        assert build_backend.MYPYC not in build_backend.get_requires_for_build_wheel()
        assert build_backend.MYPYC not in build_backend.get_requires_for_build_editable()
    monkeypatch.setenv("SPVLS_COMPILE", "1")
    assert build_backend.MYPYC in build_backend.get_requires_for_build_wheel()
    assert build_backend.MYPYC in build_backend.get_requires_for_build_editable()
