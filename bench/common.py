"""What the benchmarks share: a percentile, when each version's diagnostics reached the client, and
the environment that runs the compiled build."""
from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as T


def compiled_env(dest: Path) -> dict[str, str]:
    """The environment in which `python -m spvls` runs the compiled build: a copy of this checkout
    in `dest` with tools/compiled.py's modules compiled (from its cache when these sources were
    compiled before; else mypyc runs, some minutes), first on the path."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from tools.compiled import compile_copy

    dest.mkdir(parents=True, exist_ok=True)
    compile_copy(dest)
    # PYTHONSAFEPATH: `python -m spvls` run from a checkout would import the checkout's sources
    # (the current directory goes first on the path), not the compiled copy.
    env = {**os.environ, "PYTHONPATH": str(dest), "PYTHONSAFEPATH": "1"}
    probe = "import spvls.syntax.parser as p, spvls.checks.families.ids as i; print(p.__file__, i.__file__)"
    where = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, check=True, capture_output=True)
    if not all(name.endswith(".so") for name in where.stdout.decode().split()):
        sys.exit(f"the compiled copy is not what runs: {where.stdout.decode()}")
    return env


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


class Publications:
    """The time each version's first diagnostics arrived (a later publication of the same version,
    spirv-val's, does not move it). `changed` is set on each; other handlers may set it too."""

    def __init__(self, client) -> None:
        self.at: dict[int, float] = {}
        self.changed = asyncio.Event()

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diags(params: T.PublishDiagnosticsParams) -> None:
            self.at.setdefault(params.version, time.perf_counter())
            self.changed.set()

    async def until(self, cond) -> None:
        while not cond():
            self.changed.clear()
            await self.changed.wait()

    async def version(self, v: int) -> float:
        """When version v's diagnostics arrived (waits for them)."""
        await self.until(lambda: v in self.at)
        return self.at[v]


def quiet(client) -> None:
    """Take the server's log and messages without a word (pygls prints a line for each notification
    it has no handler for); for clients that do not read them (`validations` does)."""
    for method in (T.WINDOW_LOG_MESSAGE, T.WINDOW_SHOW_MESSAGE):
        client.feature(method)(lambda params: None)


def validations(client, published: Publications) -> list[int]:
    """The versions whose spirv-val run finished, in order (the server logs each run); each sets
    `published.changed`, so `published.until` can wait for one."""
    done: list[int] = []

    @client.feature(T.WINDOW_LOG_MESSAGE)
    def on_log(params: T.LogMessageParams) -> None:
        m = re.search(r"version (\d+) done in", params.message)
        if m:
            done.append(int(m.group(1)))
            published.changed.set()

    return done


def status_mb(pid: int) -> dict[str, float]:
    """A process's RSS now and at its peak (VmRSS, VmHWM), MB; empty once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {k: int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")}


def children(pid: int) -> list[int]:
    """The process's child processes (Linux: each thread's `children` file)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def role(pid: int) -> str:
    """What a child of the server is: the validator's process (its own program) or a forked child
    (checks.parallel.run_split's, during one check)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    return "validator" if b"spvls.binding.worker" in cmd else "forked"
