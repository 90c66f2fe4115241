"""The VS Code extension builds, its TextMate grammar passes its tests, and it packages to a .vsix."""
import filecmp
import subprocess
from pathlib import Path

from helpers import required_program

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"


def test_snapshot_inputs_are_the_examples():
    for snap in (VSCODE / "test" / "snap").glob("*.spvasm"):
        assert filecmp.cmp(snap, ROOT / "examples" / snap.name, shallow=False), f"{snap.name} is stale"


def test_build_grammar_tests_and_vsix():
    npm = required_program("npm", "to build the VS Code extension")
    for step in (["ci", "--no-audit", "--no-fund"], ["run", "compile"], ["run", "test:grammar"],
                 ["run", "test:snap"], ["run", "package"]):
        r = subprocess.run([npm, *step], cwd=VSCODE, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"npm {' '.join(step)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert (VSCODE / "out" / "extension.js").is_file()
    vsix = VSCODE / "spvls.vsix"
    assert vsix.stat().st_size > 10_000  # carries vscode-languageclient
