"""The VS Code CFG panel's page, rendered by a real headless Chromium: the webview script draws
spvls.showCfg's DOT with the bundled Viz.js, and the SVG in the DOM has every block's label."""
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import required_program, vscode_build_lock

from spvls.checks import analyze
from spvls.features import cfg_dot
from spvls.syntax.document import Document

pytestmark = pytest.mark.editors  # an editor or hook tool built and run: `-m 'not editors'` skips these

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"
VIZ = VSCODE / "node_modules" / "@viz-js" / "viz" / "dist" / "viz-global.js"
SAMPLES = [ROOT / "tests" / "data" / "cfg" / "nested.spvasm", ROOT / "tests" / "data" / "rules" / "reconvergence-fail.spvasm"]


@pytest.fixture(scope="module")
def built():
    npm = required_program("npm", "to build the VS Code extension")
    with vscode_build_lock(VSCODE):
        steps = ([] if VIZ.is_file() else [["ci", "--no-audit", "--no-fund"]]) + [["run", "compile"]]
        for step in steps:
            r = subprocess.run([npm, *step], cwd=VSCODE, capture_output=True, text=True, timeout=600, check=False)
            assert r.returncode == 0, f"npm {' '.join(step)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        panel = (VSCODE / "out" / "cfgPanel.js").read_text()
        # The panel loads exactly these files from the extension: the bundled Viz.js and the page script.
        assert '"node_modules", "@viz-js", "viz", "dist", "viz-global.js"' in panel and '"media", "cfg-view.js"' in panel
        yield VSCODE


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return required_program("chromium", ".ci/run installs it: apt-get install chromium")


class Texts(HTMLParser):
    """The text of every <text> element inside the <svg> under #graph, and each node's <title>."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.texts: list[str] = []
        self.titles: list[str] = []
        self.current: list[str] = []
        self.in_graph = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "graph":
            self.in_graph = 1
        self.stack.append(tag)
        if tag == "g" and "current" in (a.get("class") or "").split():
            self.current.append("pending")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if not self.in_graph or not self.stack:
            return
        if self.stack[-1] == "text":
            self.texts.append(data)
        elif self.stack[-1] == "title":
            self.titles.append(data)
            if self.current and self.current[-1] == "pending":
                self.current[-1] = data


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_webview_renders_every_block_in_chromium(built, path, tmp_path):
    a = analyze(Document(path.read_text()), "spv1.5")
    m = a.module
    fn = m.functions[-1] if path.stem == "nested" else m.function_of["%helper"]
    v = cfg_dot.view(m, a.diagnostics, fn.blocks[1].line)
    answer = {"function": v.function, "dot": v.dot, "svg": None, "current": v.current, "message": "",
              "blocks": [{"node": n, "label": label} for n, label, _ in v.blocks]}
    page = tmp_path / "page.html"
    page.write_text(f"""<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body><div id="status"></div><div id="graph"></div>
<script src="{VIZ.as_uri()}"></script>
<script src="{(VSCODE / 'media' / 'cfg-view.js').as_uri()}"></script>
<script>spvlsCfg.render({json.dumps(answer)});</script></body></html>""", encoding="utf-8")
    # Headless Chromium may dump the page before Viz's WebAssembly has compiled (seen once in ~10
    # runs on a loaded machine): the page is dumped again, up to three times, until it is drawn.
    for _ in range(3):
        r = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu",
                            "--user-data-dir=" + str(tmp_path / "p"), "--virtual-time-budget=30000", "--dump-dom",
                            page.as_uri()], capture_output=True, text=True, timeout=180, check=False)
        dom = r.stdout
        if f'data-rendered="{v.function}"' in dom:
            break
    assert f'data-rendered="{v.function}"' in dom, f"not drawn:\n{dom[-2000:]}\n{r.stderr[-2000:]}"
    assert re.search(r'<div id="graph"><svg[^>]*xmlns="http://www.w3.org/2000/svg"', dom)
    parsed = Texts()
    parsed.feed(dom)
    firsts = {t.split(" (")[0] for t in parsed.texts}
    for node in cfg_dot.picture(m, fn).nodes:  # names as drawn: OpName strings unescaped ('outer "loop" {\\}')
        assert node.name in firsts, f"{node.block} is not in the rendered SVG"
    assert len(firsts & {n.name for n in cfg_dot.picture(m, fn).nodes}) == len(fn.blocks)
    nodes = {n for n, _, _ in v.blocks}
    assert nodes <= set(parsed.titles)  # each node's id, which a click sends back
    assert parsed.current == [v.current] and v.current == v.blocks[1][0]
