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
