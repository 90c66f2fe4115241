"""The VS Code extension: it builds and bundles (esbuild) into a small .vsix with its docs, licence
and icon; its grammar passes its tests; its file types, language id and targetEnv choices are
spvls's own; and it finds spvls in a virtual environment, or says plainly that it is missing."""
import filecmp
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from helpers import required_program, vscode_build_lock

from spvls.spec import env, filetypes

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"
PACKAGE = json.loads((VSCODE / "package.json").read_text())
NAMES = ["a.spvasm", "a.spv.asm", "a.spirv", "x.asm.comp", "x.asm.frag", "x.asm.vk.nocompat.frag",
         "x.asm.rchit", "x.asm.task", "boot.asm", "x.comp", "x.frag", "x.asm", "x.spv", "a.asm.txt"]


def test_snapshot_inputs_are_the_examples():
    for snap in (VSCODE / "test" / "snap").glob("*.spvasm"):
        assert filecmp.cmp(snap, ROOT / "examples" / snap.name, shallow=False), f"{snap.name} is stale"


def test_target_envs_language_id_and_file_types_are_spvls_own():
    props = PACKAGE["contributes"]["configuration"]["properties"]
    assert props["spvls.targetEnv"]["enum"] == ["auto", *env.NAMES]
    (lang,) = PACKAGE["contributes"]["languages"]
    assert lang["id"] == filetypes.LANGUAGE_ID == PACKAGE["contributes"]["grammars"][0]["language"]
    assert lang["firstLine"] == "^" + filetypes.FIRST_LINE
    for name in NAMES:
        ours = name.endswith(tuple(lang["extensions"])) or any(fnmatch.fnmatch(name, p)
                                                              for p in lang["filenamePatterns"])
        assert ours == filetypes.by_name(name), name
    assert "example.invalid" not in json.dumps(PACKAGE) and "repository" not in PACKAGE


def _npm(npm: str, *step: str) -> None:
    r = subprocess.run([npm, *step], cwd=VSCODE, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"npm {' '.join(step)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"


@pytest.fixture(scope="module")
def built():
    npm = required_program("npm", "to build the VS Code extension")
    with vscode_build_lock(VSCODE):
        for step in (["ci", "--no-audit", "--no-fund"], ["run", "compile"], ["run", "test:grammar"],
                     ["run", "test:snap"], ["run", "package"]):
            _npm(npm, *step)
        yield VSCODE / "spvls.vsix"


def build_vsix() -> Path:
    """The .vsix packaged now from the sources (npm ci first when node_modules is not the lock's),
    copied out of the tree so another test's `npm ci` cannot change it under its user."""
    npm = required_program("npm", "to build the VS Code extension")
    with vscode_build_lock(VSCODE):
        installed = VSCODE / "node_modules" / ".package-lock.json"
        if not installed.is_file() or installed.stat().st_mtime < (VSCODE / "package-lock.json").stat().st_mtime:
            _npm(npm, "ci", "--no-audit", "--no-fund")
        _npm(npm, "run", "package")
        out = Path(tempfile.mkdtemp(prefix="spvls-vsix-")) / "spvls.vsix"
        shutil.copy(VSCODE / "spvls.vsix", out)
    return out


def test_bundled_vsix(built):
    with zipfile.ZipFile(built) as z:
        names = {n for n in z.namelist() if n.startswith("extension/")}
    assert names == {"extension/package.json", "extension/language-configuration.json", "extension/readme.md",
                     "extension/changelog.md", "extension/LICENSE.txt", "extension/images/icon.png",
                     "extension/syntaxes/spvasm.tmLanguage.json", "extension/dist/extension.js",
                     # The CFG panel's webview: its page script and the Viz.js it loads.
                     "extension/media/cfg-view.js", "extension/media/cfg-view.css",
                     "extension/node_modules/@viz-js/viz/dist/viz-global.js"}
    assert built.stat().st_size < 1_000_000


def _find(settings: dict, env_extra: dict) -> dict:
    """server.ts's findServer, run by node on the compiled module."""
    script = (f"const s = require({json.dumps(str(VSCODE / 'out' / 'server.js'))});"
              f"console.log(JSON.stringify(s.findServer({json.dumps(settings)})));")
    node = required_program("node", "to run the extension's server finder")
    # Run outside the repository: from its root, `python -m spvls` would find the clone's spvls/.
    r = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=120,
                       env={**os.environ, **env_extra}, cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_finds_spvls_in_a_venv_or_says_how_to_install_it(built, tmp_path):
    good = tmp_path / "good"
    (good / "bin").mkdir(parents=True)
    exe = good / "bin" / "spvls"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} -m spvls \"$@\"\n")
    exe.chmod(0o755)
    assert _find({"venv": str(good)}, {"PYTHONPATH": str(ROOT)}) == {"command": str(exe), "args": []}

    bare = tmp_path / "bare"  # a real virtual environment without spvls
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", "--without-pip", bare], check=True)
    python = str(bare / "bin" / "python")
    got = _find({"venv": str(bare)}, {"PYTHONPATH": ""})
    assert got == {"error": f"spvls is not installed for {python}. Install it there: {python} -m pip install "
                            "/path/to/spvls (a clone of the spvls repository)."}

    got = _find({"venv": str(tmp_path / "nowhere")}, {})
    assert got["error"].startswith(f"spvls.venv is {tmp_path / 'nowhere'}, which is not a virtual environment")
    got = _find({}, {"PATH": "/nonexistent"})
    assert got["error"].startswith("spvls was not found on PATH") and "pip install /path/to/spvls" in got["error"]


def test_binary_modules_open_as_assembly(built, tmp_path):
    """A .spv opens through the custom editor as a spvls-binary: document (src/binary.ts, over the
    server's spvls.disassemble/spvls.assemble); a file is binary by its magic number, either order."""
    from spvls.binary import words
    from spvls.binding import spirv_tools

    (editor,) = PACKAGE["contributes"]["customEditors"]
    assert editor["viewType"] == "spvls.binary" and editor["selector"] == [{"filenamePattern": "*.spv"}]
    assert "onFileSystem:spvls-binary" in PACKAGE["activationEvents"]
    w = spirv_tools.assemble("OpCapability Shader\nOpMemoryModel Logical GLSL450\n", "spv1.0")
    files = {"le.bin": words.to_bytes(w), "be.bin": words.to_bytes(w, big_endian=True),
             "text.spv": b"; SPIR-V\nOpCapability Shader\n", "short.spv": b"\x03\x02"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    script = (f"const f = require({json.dumps(str(VSCODE / 'out' / 'spvFile.js'))});"
              f"Promise.all({json.dumps(sorted(files))}.map(n => f.isBinaryFile({json.dumps(str(tmp_path))} + '/' + n)))"
              ".then(r => console.log(JSON.stringify(r)));")
    node = required_program("node", "to run the extension's binary detection")
    r = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert dict(zip(sorted(files), json.loads(r.stdout), strict=True)) == {"be.bin": True, "le.bin": True, "short.spv": False,
                                                              "text.spv": False}
