"""The workbench in a real VS Code (code-server and Chromium, as tests/e2e/test_vscode_web.py):
an entry point's resources in the Outline view, its code lens and a resource's hover, spirv-opt's effect opened as a
diff beside the module with the instruction counts, and "Compare with…" on a SPIR-V file through
VS Code's own file dialog, from the command palette and from the explorer's menu on a binary —
against what spirv-opt and spirv-diff themselves make."""

import subprocess
from pathlib import Path

import pytest
import vscode_web
from test_vscode_web import VENV, Session, _workspace
from test_vscode_web import screenshot_on_failure as screenshot_on_failure  # a screenshot of a failing step

from spvls.binary import compare, convert, optimize
from spvls.cli.modules import read_words

pytestmark = pytest.mark.editors

WORKBENCH = Path(__file__).resolve().parents[1] / "data" / "workbench"
ORIGINAL = ".monaco-diff-editor .editor.original"
MODIFIED = ".monaco-diff-editor .editor.modified"


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    s = Session(tmp_path_factory.mktemp("vscode-workbench"), tmp_path_factory.getbasetemp() / "artifacts" / "vscode")
    yield s
    s.close()


@pytest.fixture(scope="module")
def window(session, tmp_path_factory):
    """A folder holding lit.frag's glslang build as text (lit.spvasm) and its -Os build as a binary
    (lit-os.spv). No inlay hints: the diff's lines are compared whole."""
    folder = _workspace(tmp_path_factory.mktemp("workbench"), {
        "spvls.venv": str(VENV), "editor.inlayHints.enabled": "off",
        "diffEditor.hideUnchangedRegions.enabled": False, "diffEditor.renderSideBySide": True})
    glslang = "glslangValidator"
    subprocess.run([glslang, "-V", str(WORKBENCH / "lit.frag"), "-o", str(folder / "lit.spv")], check=True,
                   capture_output=True)
    (folder / "lit.spvasm").write_text(convert.listing(read_words(str(folder / "lit.spv"))))
    (folder / "lit.spv").unlink()
    subprocess.run([glslang, "-V", "-Os", str(WORKBENCH / "lit.frag"), "-o", str(folder / "lit-os.spv")],
                   check=True, capture_output=True)
    # Two builds of blur.comp (RADIUS 2, its default, and 3) as binaries, for the explorer's menu.
    for name, define in (("blur-r2.spv", []), ("blur-r3.spv", ["-DRADIUS=3"])):
        subprocess.run([glslang, "-V", *define, str(WORKBENCH / "blur.comp"), "-o", str(folder / name)], check=True,
                       capture_output=True)
    return session.open_window(folder)


def _shown(window: vscode_web.Window, side: str) -> list[str]:
    """The lines a side of the diff editor shows, once they are there."""
    window.wait(f"{side} .view-lines .view-line", pattern=".")
    shown = window.editor_lines(within=side)
    assert len(shown) >= 20, shown  # a screenful, not one line
    return shown


def test_the_outline_lists_each_resource_under_its_entry_point(window):
    window.open("lit.spvasm")
    window.wait(".statusbar-item", pattern="^SPIR-V Assembly$")
    window.wait(".monaco-editor.focused")  # the opened editor takes the focus, then the outline does
    window.command("Explorer: Focus on Outline View")
    window.wait(".outline-pane .monaco-list-row", pattern="main")
    window.wait(".outline-pane .monaco-list:focus-within")
    rows = []
    for _ in range(8):  # the entry point, then its seven resources (the pane shows fewer at once)
        window.press("ArrowDown")
        focused = ".outline-pane .monaco-list-row.focused"
        window.wait(focused)
        rows.append((window.texts(f"{focused} .label-name")[0], window.texts(f"{focused} .label-description")[0]))
    assert rows == [
        ("main", "Fragment %main"),
        ("albedo_map", "texture · set 1 · binding 0 · sampler2D"),
        ("uv", "input · location 0 · vec2"),
        ("Materials", "SSBO · set 0 · binding 1 · 16 B × n"),
        ("push", "push constants · 68 B"),
        ("color", "output · location 0 · vec4"),
        ("normal", "input · location 1 · vec3"),
        ("Camera", "UBO · set 0 · binding 0 · 112 B"),
    ]


def test_the_code_lens_on_the_entry_point_sums_its_resources(window):
    window.open("lit.spvasm")
    lenses = window.wait(".codelens-decoration", pattern="UBO", timeout=60000)
    assert lenses == ["1 UBO, 1 SSBO, 1 texture · push constants 68 B · 2 inputs, 1 output"]


def test_optimize_opens_spirv_opts_result_beside_the_module_as_a_diff(window):
    """The command asks for spirv-opt's flags (-O offered), then opens the module and the result
    side by side, titled with the instruction counts before and after."""
    path = window.folder / "lit.spvasm"
    words = read_words(str(path))
    expected = optimize.optimize(words, ["-O"])
    window.open("lit.spvasm")
    window.command("spvls: Optimize with spirv-opt (show as diff)", asks=True)
    assert window.texts(".quick-input-widget .quick-input-title") == ["spirv-opt passes"]
    window.press("Enter")  # the offered -O
    title = f"lit.spvasm: spirv-opt -O: {expected.before} → {expected.after} instructions"
    tab = window.b.call("waitAttribute", selector=".tab.active", name="aria-label", pattern="instructions",
                        timeout=60000)
    assert tab[-1] == f"{title} (lit.spvasm (before -O) ↔ lit.spvasm (after -O))"
    assert expected.after < expected.before
    source = _lines(convert.listing(words))
    left = _shown(window, ORIGINAL)
    right = _shown(window, MODIFIED)
    assert left == source[: len(left)]
    assert right == _lines(expected.text)[: len(right)]
    window.command("View: Close All Editor Groups")


def test_compare_with_a_binary_through_the_file_dialog(window):
    """Compare with… on the text module, the other build picked in VS Code's file dialog: the
    diff editor shows spirv-diff's matching (the -Os build in the text's ids and names)."""
    expected = compare.compare(read_words(str(window.folder / "lit.spvasm")),
                               read_words(str(window.folder / "lit-os.spv")), "lit.spvasm", "lit-os.spv")
    window.open("lit.spvasm")
    window.command("spvls: Compare with…", asks=True)
    assert window.texts(".quick-input-widget .quick-input-title") == ["Compare lit.spvasm with…"]
    window.choose_file(window.folder / "lit-os.spv")
    tab = window.b.call("waitAttribute", selector=".tab.active", name="aria-label", pattern="spirv-diff",
                        timeout=60000)
    assert tab[-1] == (f"lit.spvasm ↔ lit-os.spv (spirv-diff: {expected.changed} lines differ) "
                       "(lit.spvasm ↔ lit-os.spv)")
    assert expected.changed > 0
    left = _shown(window, ORIGINAL)
    right = _shown(window, MODIFIED)
    assert left == _lines(expected.left)[: len(left)]
    assert right == _lines(expected.right)[: len(right)]
    window.command("View: Close All Editor Groups")



def _explorer_menu(window: vscode_web.Window, name: str, item: str) -> None:
    """Chooses `item` in the explorer's context menu of the file `name`."""
    row = ".explorer-folders-view .monaco-list-row"
    window.wait(row, pattern=name)
    window.b.call("click", selector=row, pattern=f"^{name}$", button="right")
    window.wait(".context-view .monaco-menu .action-label", pattern=item)
    # Down to the item and Enter, as a keyboard does (a click just as the menu opens is ignored).
    for _ in range(30):
        window.press("ArrowDown")
        if any(t.startswith(item) for t in window.texts(".context-view .monaco-menu .action-item.focused")):
            window.press("Enter")
            return
    raise AssertionError(f"no {item!r} in the explorer's menu of {name}")


def test_compare_with_from_the_explorers_menu_on_a_binary(window):
    """The explorer's *spvls: Compare with…* on blur-r2.spv, blur-r3.spv picked in the dialog: the
    two builds' difference as spirv-diff matches them (only the radius's constants and their uses)."""
    folder = window.folder
    expected = compare.compare(read_words(str(folder / "blur-r2.spv")), read_words(str(folder / "blur-r3.spv")),
                               "blur-r2.spv", "blur-r3.spv")
    _explorer_menu(window, "blur-r2.spv", "spvls: Compare with…")
    window.wait(".quick-input-widget .quick-input-title", pattern="^Compare blur-r2.spv with…$")
    window.choose_file(folder / "blur-r3.spv")
    tab = window.b.call("waitAttribute", selector=".tab.active", name="aria-label", pattern="spirv-diff",
                        timeout=60000)
    assert tab[-1] == (f"blur-r2.spv ↔ blur-r3.spv (spirv-diff: {expected.changed} lines differ) "
                       "(blur-r2.spv ↔ blur-r3.spv)")
    assert expected.diff == (WORKBENCH / "blur.diff").read_text().replace("--- a.spv", "--- blur-r2.spv", 1).replace(
        "+++ b.spv", "+++ blur-r3.spv", 1)
    left = _shown(window, ORIGINAL)
    right = _shown(window, MODIFIED)
    assert left == _lines(expected.left)[: len(left)]
    assert right == _lines(expected.right)[: len(right)]
    window.command("View: Close All Editor Groups")


def test_optimize_from_the_explorers_menu_on_a_binary(window):
    """The explorer's *spvls: Optimize with spirv-opt* on a binary that is not open: read from disk."""
    words = read_words(str(window.folder / "blur-r2.spv"))
    expected = optimize.optimize(words, ["-O"])
    _explorer_menu(window, "blur-r2.spv", "spvls: Optimize with spirv-opt")
    window.wait(".quick-input-widget .quick-input-title", pattern="^spirv-opt passes$")
    window.press("Enter")  # the offered -O
    tab = window.b.call("waitAttribute", selector=".tab.active", name="aria-label", pattern="instructions",
                        timeout=60000)
    assert tab[-1] == (f"blur-r2.spv: spirv-opt -O: {expected.before} → {expected.after} instructions "
                       "(blur-r2.spv (before -O) ↔ blur-r2.spv (after -O))")
    left = _shown(window, ORIGINAL)
    right = _shown(window, MODIFIED)
    assert left == _lines(convert.listing(words))[: len(left)]
    assert right == _lines(expected.text)[: len(right)]
    window.command("View: Close All Editor Groups")


def test_hover_on_a_resource_gives_its_binding_and_member_layout(window):
    text = (window.folder / "lit.spvasm").read_text().split("\n")
    line = next(n for n, s in enumerate(text) if "%camera = OpVariable" in s)
    window.open("lit.spvasm")
    window.goto(line + 1, text[line].index("%camera") + 2)
    window.command("Show or Focus Hover")
    (shown,) = window.wait(".monaco-hover-content", pattern="UBO")
    window.press("Escape")
    # Its definition, then (after the id's facts) the resource and its members' layout as a table.
    paragraphs = shown.split("\n\n")
    assert paragraphs[0] == "%camera = OpVariable %_ptr_Uniform_Camera Uniform"
    assert paragraphs[-2:] == [
        "UBO Camera · set 0 · binding 0 · 112 B · std140, std430, scalar",
        "offset\tsize\tmember\ttype\n"
        "0\t64\tview_proj\tmat4 · matrix stride 16\n"
        "64\t12\teye\tvec3\n"
        "76\t4\texposure\tfloat\n"
        "80\t32\tlights\tvec4[2] · array stride 16",
    ]


def test_a_flag_spirv_opt_refuses_is_named_in_a_notification(window):
    """A bad flag typed in the input box: VS Code shows spirv-opt's own words, and opens no diff."""
    window.open("lit.spvasm")
    window.command("spvls: Optimize with spirv-opt (show as diff)", asks=True)
    window.press("Control+a")
    window.type("-O --bogus")
    window.press("Enter")
    (message,) = window.wait(".notifications-toasts .notification-list-item-message", pattern="bogus",
                             timeout=60000)
    assert message == ("spvls: spirv-opt does not accept --bogus: Unknown flag '--bogus'. Use --help for a list of "
                       "valid flags")
    assert [t for t in window.b.call("attribute", selector=".tab", name="aria-label") if "spirv-opt" in t] == []
    window.command("Notifications: Clear All Notifications")
