"""The layers of ARCHITECTURE.md, read from the imports of every module under spvls/: no import runs up
a layer, the binding uses no other layer, and no check family or feature imports another (they share
only the helpers named here)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("spec", "syntax", "model", "checks", "features")  # each uses only those before it
FRONT = {"server", "transport", "cli", "state", "__main__"}  # may use every layer
BESIDE = {"binding": set(), "binary": {"binding", "spec", "syntax"}}  # what they may use
USE_BINDING = {"checks", "features", *FRONT}
# Every layer's file writes and bounded reads (fileio), and what the compiled build is told about a
# class (compiled); they use no other spvls module.
FOUNDATION = {"fileio", "compiled"}
# What a check family (a module of spvls/checks/families) or a feature may import from its own
# package besides the package itself.
SHARED = {
    "checks": {"diagnostic", "family", "fixes", "idkinds", "scope"},
    "features": {"context", "docs", "interface", "sourcefiles"},
}


def _imports() -> dict[str, set[str]]:
    """Each module (dotted) and the spvls modules it imports (a name imported from a package counts as
    its submodule when there is one)."""
    mods = {}
    for p in sorted((ROOT / "spvls").rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        is_pkg = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_pkg else parts)
        pkg = name if is_pkg else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.split(".")[0] == "spvls"}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "spvls":
                    continue
                for a in node.names:
                    sub = ROOT.joinpath(*f"{target}.{a.name}".split("."))
                    deps.add(f"{target}.{a.name}" if sub.with_suffix(".py").is_file() or sub.is_dir() else target)
        mods[name] = deps - {name}
    return mods


def _part(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_import_runs_up_a_layer():
    wrong = []
    for mod, deps in _imports().items():
        own = _part(mod)
        for dep in deps:
            other = _part(dep)
            if other in ("", own) or own in FRONT:
                continue
            if own in FOUNDATION:
                ok = False
            elif other in FOUNDATION:
                ok = True
            elif own in BESIDE:
                ok = other in BESIDE[own]
            elif other == "binding":
                ok = own in USE_BINDING
            else:
                ok = other in ORDER and own in ORDER and ORDER.index(other) < ORDER.index(own)
            if not ok:
                wrong.append(f"{mod} imports {dep}")
    assert wrong == []


def test_no_check_family_or_feature_imports_another():
    wrong = []
    for mod, deps in _imports().items():
        pkg = mod.rsplit(".", 1)[0]
        layer = {"spvls.checks.families": "spvls.checks", "spvls.features": "spvls.features"}.get(pkg)
        if layer is None:
            continue  # the checks helpers and the tools beside the families (validator, suppression, ...)
        shared = {f"{layer}.{name}" for name in SHARED[layer.split(".")[1]]}
        for dep in deps:
            if dep in shared:
                continue
            if dep.rsplit(".", 1)[0] in (pkg, layer):
                wrong.append(f"{mod} imports {dep}")
    assert wrong == []


def test_the_rule_sees_imports():
    """The reader finds the imports it judges (a reader that finds none would pass anything)."""
    mods = _imports()
    assert "spvls.checks.fixes" in mods["spvls.checks.families.capabilities"]
    assert "spvls.features.lookup" in mods["spvls.cli.doc"]
    assert "spvls.model.module" in mods["spvls.features.context"]
    assert {"spvls.checks.families.ids", "spvls.checks.families.types"} <= mods["spvls.checks.families"]
