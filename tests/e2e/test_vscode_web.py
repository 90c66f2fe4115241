"""The extension in a real VS Code: the built .vsix installed into code-server (VS Code 1.139) on
127.0.0.1, driven through Debian's headless Chromium as a person would — keys in, what the screen
shows out. A failing step leaves a screenshot under the run's tmp directory (artifacts/vscode/),
its path printed with the failure. tests/e2e/vscode_web.py installs and runs the tools."""
import contextlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import vscode_web
from helpers import required_program, tool
from test_vscode import build_vsix

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent  # the venv running the tests has spvls installed

# A compute shader with one mistake: OpSizeOf needs the Addresses capability.
MODULE = """; SPIR-V
; Version: 1.0
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %uint_1 = OpConstant %uint 1
    %float_2 = OpConstant %float 2
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %x = OpIAdd %uint %uint_1 %uint_1
          %s = OpSizeOf %uint %x
               OpReturn
               OpFunctionEnd
"""
BINARY_SOURCE = MODULE.replace("          %s = OpSizeOf %uint %x\n", "")


def _path_without_spvls() -> str:
    """PATH with no directory holding a `spvls`: the extension host must find it only where told."""
    return os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not (Path(d) / "spvls").exists())


def _workspace(folder: Path, settings: dict) -> Path:
    (folder / ".vscode").mkdir(parents=True)
    (folder / ".vscode" / "settings.json").write_text(json.dumps(settings, indent=1))
    return folder


def _assemble(text: str, out: Path) -> None:
    subprocess.run([tool("spirv-as"), "--target-env", "spv1.0", "-o", str(out), "-"], input=text.encode(),
                   check=True)


def _dis(path: Path) -> str:
    return subprocess.run([tool("spirv-dis"), "--raw-id", "--no-header", str(path)], capture_output=True,
                          text=True, check=True).stdout


class Session:
    """code-server and Chromium, for this test module."""

    def __init__(self, tmp: Path, artifacts: Path) -> None:
        required_program("npm", "to install code-server and puppeteer-core")
        if not Path(vscode_web.CHROMIUM).exists():
            required_program("chromium", ".ci/run installs it: apt-get install chromium")
        self.tools = vscode_web.install()
        self.artifacts = artifacts
        self.server = vscode_web.CodeServer(self.tools, build_vsix(), tmp / "code-server", _path_without_spvls())
        self.browser = vscode_web.Browser(self.tools, tmp / "chromium-profile")
        self.window: vscode_web.Window | None = None

    def open_window(self, folder: Path) -> vscode_web.Window:
        self.window = vscode_web.Window(self.browser, self.server, folder, self.artifacts)
        return self.window

    def close(self) -> None:
        self.browser.close()
        self.server.close()


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    artifacts = tmp_path_factory.getbasetemp() / "artifacts" / "vscode"
    s = Session(tmp_path_factory.mktemp("vscode-web"), artifacts)
    yield s
    s.close()


@pytest.fixture(scope="module")
def window(session, tmp_path_factory):
    """One window on a folder with spvls.venv set, for the feature tests (each opens its own file)."""
    folder = _workspace(tmp_path_factory.mktemp("features"), {"spvls.venv": str(VENV)})
    for name in ("features.spvasm", "completion.spvasm", "fix.spvasm", "hover.spvasm", "cfg.spvasm"):
        (folder / name).write_text(MODULE)
    _assemble(BINARY_SOURCE, folder / "edit.spv")
    _assemble(BINARY_SOURCE, folder / "refused.spv")
    return session.open_window(folder)


@pytest.fixture(autouse=True)
def screenshot_on_failure(request):
    """A screenshot of the window when the test fails (conftest's hook keeps each phase's report)."""
    yield
    report = getattr(request.node, "report_call", None)
    if report is None or not report.failed or "session" not in request.fixturenames:
        return
    s = request.getfixturevalue("session")
    if s.window is not None:
        path = s.window.screenshot(request.node.name)
        print(f"\nscreenshot of the failing step: {path}", file=sys.stderr)


def test_activation_and_diagnostics_in_the_problems_panel(window):
    """Opening a .spvasm activates the extension (language spvasm by its file name), starts spvls
    from spvls.venv, and its diagnostic shows in Problems with spirv-val's note beside it."""
    window.open("features.spvasm")
    window.wait(".statusbar-item", pattern="^SPIR-V Assembly$")
    rows = _of(window.problems("OpSizeOf requires"), "features.spvasm")
    assert rows == [
        "1 problems in file features.spvasm of folder .",
        "Error: OpSizeOf requires one of these capabilities: Addresses (SPIR-V 2.16.1: declare it with "
        "OpCapability) at line 17 and character 16. This problem has references to 1 locations. generated by spvls",
        "spirv-val: Opcode SizeOf requires one of these capabilities: Addresses at line 17 and character 11 in "
        "features.spvasm",
    ]


def test_hover(window):
    window.open("hover.spvasm")
    window.goto(16, 36)  # %uint_1 in OpIAdd
    window.command("Show or Focus Hover")
    (text,) = window.wait(".monaco-hover-content", pattern="OpConstant")
    assert text.split("\n") == ["%uint_1 = OpConstant %uint 1", "", "Defined on line 12", "Type: u32",
                                "References: 2"]
    window.press("Escape")


def test_completion_offers_values_of_the_operand_type_first(window):
    window.open("completion.spvasm")
    window.goto(16, 1)
    window.press("End")
    window.press("Enter")
    window.type("%y = OpIAdd %uint ")
    window.press("Control+Space")
    labels = window.b.call("waitAttribute", selector=".suggest-widget .monaco-list-row", name="aria-label",
                           pattern="uint_1")
    window.press("Escape")
    window.command("File: Revert File")
    # The u32 values first (%uint_1, %x), then the others; the label's first word is the id.
    assert [label.split(",")[0] for label in labels[:2]] == ["%uint_1", "%x"]
    assert "%float_2" in [label.split(",")[0] for label in labels[2:]]


def test_go_to_definition(window):
    window.open("features.spvasm")
    window.goto(17, 32)  # %x in OpSizeOf
    window.press("F12")
    window.wait(".statusbar-item", pattern="^Ln 16, Col 11")


def test_a_quick_fix_applied_and_saved(window):
    window.open("fix.spvasm")
    window.goto(17, 16)  # OpSizeOf
    window.press("Control+.")
    window.wait(".action-widget .monaco-list-row", pattern="Add 'OpCapability Addresses'")
    window.b.call("click", selector=".action-widget .monaco-list-row", pattern="Add 'OpCapability Addresses'")
    window.press("Control+s")
    path = window.folder / "fix.spvasm"
    _until(lambda: "OpCapability Addresses" in path.read_text(), "the fix saved")
    assert path.read_text() == MODULE.replace("OpCapability Shader\n",
                                              "OpCapability Shader\n               OpCapability Addresses\n")


def test_semantic_tokens(window):
    """spvls's semantic tokens reach the editor: the inspector shows the server's token type."""
    window.open("features.spvasm")
    window.goto(16, 25)  # %uint, a type id
    window.command("Developer: Inspect Editor Tokens and Scopes")
    (text,) = window.wait(".token-inspect-widget", pattern="semantic token type")
    window.press("Escape")
    fields = dict(line.split("\t", 1) for line in text.split("\n") if "\t" in line)
    assert fields["semantic token type"] == "type" and fields["language"] == "spvasm"


def test_the_cfg_panel_draws(window):
    window.open("cfg.spvasm")
    window.goto(18, 1)
    window.command("spvls: Show control-flow graph")
    _until(lambda: window.b.call("frameTexts", selector="svg text"), "the graph drawn")
    assert window.b.call("frameTexts", selector="svg text") == [
        "main (%main)", "%entry", "%x = OpIAdd %uint %uint_1 %uint_1", "%s = OpSizeOf %uint %x", "OpReturn",
        "⚠ capability.missing"]
    window.command("View: Close All Editor Groups")


def test_a_binary_module_edited_and_saved_passes_spirv_val(window):
    path = window.folder / "edit.spv"
    mode = stat.S_IMODE(path.stat().st_mode)  # what the umask gave it
    window.open("edit.spv")
    window.wait(".statusbar-item", pattern="binary saved")
    lines = window.editor_lines()
    n, add = next((i, t) for i, t in enumerate(lines) if "OpIAdd" in t)
    x = add.split("=")[0].split(":")[0].strip()  # its friendly name, before the type's inlay hint
    window.goto(n + 1, 1)
    window.press("End")
    window.press("Enter")
    window.type(f"%y = OpIMul %uint {x} %uint_1")
    window.press("Control+s")
    _until(lambda: "OpIMul" in _dis(path), "the binary written")
    r = subprocess.run([tool("spirv-val"), "--target-env", "spv1.0", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(path.stat().st_mode) == mode  # replaced atomically, its mode kept
    assert _dis(path) == _dis_text(BINARY_SOURCE.replace(
        "OpIAdd %uint %uint_1 %uint_1\n", "OpIAdd %uint %uint_1 %uint_1\n%y = OpIMul %uint %x %uint_1\n"))


def test_a_refused_save_says_why_once_and_leaves_the_file(window):
    path = window.folder / "refused.spv"
    before = path.read_bytes()
    window.open("refused.spv")
    window.wait(".statusbar-item", pattern="binary saved")
    window.goto(6, 1)
    window.press("End")
    window.press("Enter")
    window.type("OpCapabil")
    window.press("Control+s")
    (message,) = window.wait(".notifications-toasts .notification-list-item-message", pattern="OpCapabil")
    assert message.endswith("not saved: line 7: Invalid Opcode name 'OpCapabil')"), message
    window.wait(".statusbar-item", pattern="binary not saved")
    # The panel lists the file's heading and both rows once both reached it (the server's diagnostic
    # and the refused save's note come apart): read again until it shows three for the file.
    rows: list[str] = []

    def listed() -> bool:
        rows[:] = _of(window.problems("OpCapabil"), "refused.spv")
        return len(rows) >= 3

    with contextlib.suppress(AssertionError):  # the comparison below says what it shows instead
        _until(listed, "the refused file's problems")
    assert rows == ["1 problems in file refused.spv of folder .",  # one: the server's, with spirv-as's note
                    "Error: unknown instruction 'OpCapabil'; did you mean 'OpCapability'? at line 7 and character "
                    "16. This problem has references to 1 locations. generated by spvls",
                    "spirv-as: Invalid Opcode name 'OpCapabil' at line 7 and character 16 in refused.spv"]
    assert path.read_bytes() == before
    window.command("File: Revert File")
    window.command("Notifications: Clear All Notifications")


def test_the_first_run_without_a_server_says_how_to_install_it_and_starts_once_it_is_set(session, tmp_path):
    """No spvls on PATH and no setting: the window still finishes activating (a command of the
    extension runs at once), the message says how to install spvls, and saving spvls.venv starts it."""
    folder = _workspace(tmp_path / "first-run", {})
    (folder / "m.spvasm").write_text(MODULE)
    window = session.open_window(folder)
    window.open("m.spvasm")
    (message,) = window.wait(".notifications-toasts .notification-list-item-message", pattern="not found")
    assert message == (
        "spvls: spvls was not found on PATH and no spvls.venv is set. Install it: python3 -m venv ~/.venvs/spvls "
        "&& ~/.venvs/spvls/bin/pip install /path/to/spvls (a clone of the spvls repository), then set spvls.venv "
        "to ~/.venvs/spvls. The server starts as soon as the setting is saved.")
    window.command("spvls: Show control-flow graph")  # answered while the message is still up
    window.b.call("frameTexts", selector="#status")
    _until(lambda: "spvls is not running" in window.b.call("frameTexts", selector="#status"), "the panel's answer")
    (folder / ".vscode" / "settings.json").write_text(json.dumps({"spvls.venv": str(VENV)}))
    rows = window.problems("OpSizeOf requires")
    assert rows[0] == "1 problems in file m.spvasm of folder ."


def test_auto_save_writes_only_what_assembles(session, tmp_path):
    """files.autoSave afterDelay: a pause mid-word shows no dialog and leaves the file as it was, the
    status bar says the binary is not saved; finishing the word saves it."""
    folder = _workspace(tmp_path / "auto-save", {"spvls.venv": str(VENV), "files.autoSave": "afterDelay",
                                                 "files.autoSaveDelay": 300})
    path = folder / "m.spv"
    _assemble(BINARY_SOURCE, path)
    before = path.read_bytes()
    window = session.open_window(folder)
    window.open("m.spv")
    window.wait(".statusbar-item", pattern="binary saved")
    window.goto(6, 1)
    window.press("End")
    window.press("Enter")
    window.type("OpCapabil")
    window.wait(".statusbar-item", pattern="binary not saved")
    time.sleep(2)  # several auto-save delays
    assert window.texts(".notifications-toasts .notification-list-item-message") == []
    assert window.texts(".monaco-dialog-box") == []
    assert path.read_bytes() == before
    window.type("ity Int64")
    window.wait(".statusbar-item", pattern="binary saved")
    _until(lambda: "OpCapability Int64" in _dis(path), "the finished line auto-saved")
    assert _dis(path) == _dis_text(BINARY_SOURCE.replace("OpCapability Shader\n",
                                                         "OpCapability Shader\nOpCapability Int64\n"))


def _of(rows: list[str], name: str) -> list[str]:
    """The Problems panel's rows for one file: its heading and the rows under it."""
    out: list[str] = []
    for row in rows:
        if " problems in file " in row:
            if out:
                break
            if f" problems in file {name} " not in row:
                continue
        if out or " problems in file " in row:
            out.append(row)
    return out


def _dis_text(text: str) -> str:
    """What spirv-dis shows for `text` assembled: the comparison ignores layout and id numbering."""
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"spvls-vscode-{os.getpid()}.spv"
    try:
        _assemble(text, tmp)
        return _dis(tmp)
    finally:
        tmp.unlink(missing_ok=True)


def _until(predicate, what: str, timeout: float = 60) -> None:
    """Polls predicate until true; 60 s, as the driver's waits on the server (under a suite on two
    cores, a first answer of the server may take that long)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except (OSError, subprocess.CalledProcessError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"waited {timeout:g} s for {what}")


def test_a_second_install_is_the_cached_one(monkeypatch):
    """Installed once, the pinned tools are found under the cache directory: no npm runs again."""
    marker = (vscode_web.cache_root() / f"node{vscode_web.NODE}-code-server{vscode_web.CODE_SERVER}"
              f"-puppeteer{vscode_web.PUPPETEER_CORE}" / "complete")
    if not marker.is_file():
        pytest.skip("the tools are not installed yet")

    def no_npm(*args, **kwargs):
        raise AssertionError(f"ran {args[0]}")

    monkeypatch.setattr(vscode_web.subprocess, "run", no_npm)
    tools = vscode_web.install()
    assert tools.node.is_file() and tools.code_server.is_file() and tools.puppeteer.is_dir()
