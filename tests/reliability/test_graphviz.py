"""Graphviz is someone else's program that may fail, hang or outlive us: spvls cfg says so (no
traceback), the server waits for it off its event loop (other requests are answered meanwhile), and
a `dot` left running dies with its parent. Failures are made by a `dot` of the test's own on PATH
(Graphviz itself cannot be made to fail on demand); the real one is used where it draws."""

import os
import random
import shutil
import signal
import time

import pytest
from test_cli import VALID, run

from spvls.features import cfg_dot
from tests.reliability.rawlsp import Server

SEED = int(os.environ.get("SPVLS_SEED") or 0)
URI = "file:///tmp/graphviz.spvasm"


def _fake_dot(tmp_path, body: str) -> dict:
    bin_ = tmp_path / "bin"
    bin_.mkdir(exist_ok=True)
    dot = bin_ / "dot"
    dot.write_text(f"#!/bin/sh\n{body}\n")
    dot.chmod(0o755)
    return {"PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("case", range(4))
def test_cfg_svg_says_when_graphviz_fails(tmp_path, monkeypatch, case):
    rng = random.Random(SEED * 10 + case)
    code, words = rng.randint(1, 255), rng.choice(["Error: syntax error in line 1", "Segmentation fault", ""])
    env = _fake_dot(tmp_path, f"cat > /dev/null; echo '{words}' >&2; exit {code}")
    monkeypatch.setenv("PATH", env["PATH"])
    f = tmp_path / "m.spvasm"
    f.write_text(VALID)
    r = run("cfg", "--format", "svg", f)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"spvls cfg: {f}: Graphviz's dot failed: {words or f'exit status {code}'}\n"


def test_cfg_svg_stops_graphviz_at_its_time_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", _fake_dot(tmp_path, "exec sleep 60")["PATH"])
    f = tmp_path / "m.spvasm"
    f.write_text(VALID)
    r = run("cfg", "--format", "svg", "--timeout", "0.5", f)
    assert (r.returncode, r.stderr) == (2, f"spvls cfg: {f}: Graphviz's dot took longer than 0.5 s and was stopped\n")


def test_the_server_answers_while_graphviz_runs_and_dot_dies_with_it(tmp_path):
    """A `dot` that takes 20 s: a hover asked after showCfg is answered first; the server killed,
    its `dot` goes too (the parent-death signal)."""
    pids = tmp_path / "dot.pid"
    env = _fake_dot(tmp_path, f"echo $$ > {pids}; exec sleep 20")
    s = Server(env=env)
    try:
        s.initialize()
        s.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1, "text": VALID}}
        )
        s.send(
            {
                "jsonrpc": "2.0",
                "id": 900,
                "method": "workspace/executeCommand",
                "params": {
                    "command": "spvls.showCfg",
                    "arguments": [{"uri": URI, "position": {"line": 8, "character": 0}}],
                },
            }
        )
        deadline = time.monotonic() + 30
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids.exists(), b"".join(s.stderr).decode()
        hover = s.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 8, "character": 2}})
        assert "result" in hover and not [m for m in s.notes if m.get("id") == 900], hover
        dot = int(pids.read_text())
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(dot) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(dot), "dot outlived the server"
    finally:
        s.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


@pytest.mark.skipif(shutil.which("dot") is None or shutil.which("setpriv") is None, reason="needs Graphviz, setpriv")
def test_the_real_graphviz_draws_through_the_same_path():
    svg = cfg_dot.render_svg('digraph { a [label="x &amp; y"] }')
    assert svg is not None and ">x &amp; y</text>" in svg
