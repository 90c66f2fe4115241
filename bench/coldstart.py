"""Cold start, side by side in one run: what every editor launch and every script's `spvls check` pays.

    python bench/coldstart.py [--runs N] [--lines N] [--pure-only]

- `spvls --version` and `python -c pass` (the interpreter's own floor);
- `spvls check` of a small file against `spirv-as` + `spirv-val` on the same file: as the virtual
  environment's PATH has them (cmeel's Python scripts, each starting an interpreter to run the
  program: issue 35's yardstick) and the C++ programs themselves;
- a fresh language server, spawn -> `initialize` -> `didOpen` -> first `publishDiagnostics`, for a
  generated module of --lines lines, spvls beside SPIRV-Tools' Go server (../shared/peers/go-spirvls):
  a text never seen (made new each run), the same text seen before (its diagnostics kept in spvls's
  cache), and with spvls's caches off (SPVLS_NO_CACHE: a first launch), for a client that takes
  diagnostics pushed and (caches off) for one that pulls them;
- the same for the compiled build (tools/compiled.py, a compiled copy of this checkout first on
  the path), unless --pure-only.

The client is a bare JSON-RPC writer and reader over the child's pipes, so the figures are the
server's, not a client library's. Each figure is the median of --runs, runs interleaved.
Not part of the test suite: speed is measured here, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import peer  # noqa: E402
from common import compiled_env  # noqa: E402
from generate import module  # noqa: E402

from spvls.binding import tools  # noqa: E402

ENV = "vulkan1.3"
SMALL = ROOT / "examples" / "subgroup.spvasm"


def tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else (shutil.which(name) or name)


def spvls() -> list[str]:
    return [tool("spvls")] if Path(tool("spvls")).exists() else [sys.executable, "-m", "spvls"]


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(argv, capture_output=True, env=env, check=False)
    return time.perf_counter() - t


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def read_message(stream, deadline: float) -> dict:
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        wait = deadline - time.perf_counter()
        if wait <= 0 or not select.select([stream], [], [], wait)[0]:
            raise TimeoutError("no answer from the server")
        byte = os.read(stream.fileno(), 1)
        if not byte:
            raise EOFError("the server closed its output")
        head += byte
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    body = b""
    while len(body) < length:
        chunk = os.read(stream.fileno(), length - len(body))
        if not chunk:
            raise EOFError("the server closed its output")
        body += chunk
    return json.loads(body)


# A client that pulls diagnostics (as VS Code does): it asks for them after the open.
PULLS = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}


def first_diagnostics(
    argv: list[str], path: Path, env: dict[str, str], fresh: bool = False, pull: bool = False
) -> float:
    """Seconds from spawning the server to the first publishDiagnostics for `path` (`fresh`: its
    text with a comment no earlier run had; `pull`: to the answer of the pull that follows the open,
    from a client that pulls)."""
    text = path.read_text(encoding="utf-8")
    if fresh:
        text += f"; run {time.perf_counter_ns()}\n"
    uri = path.resolve().as_uri()
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {"processId": os.getpid(), "rootUri": None, "capabilities": PULLS if pull else {}}
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        item = {"uri": uri, "languageId": "spirv", "version": 1, "text": text}
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}))
        if pull:
            ask = {"textDocument": {"uri": uri}}
            proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/diagnostic", "params": ask}))
        proc.stdin.flush()
        deadline = t + 60
        while True:
            msg = read_message(proc.stdout, deadline)
            if pull and msg.get("id") == 2 and "result" in msg:
                return time.perf_counter() - t
            if not pull and msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                return time.perf_counter() - t
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    """shutdown and exit, as a client leaves: a killed server may not yet have kept the text's
    diagnostics in its cache (it keeps them after publishing), and the "seen text" runs then
    found none."""
    try:
        assert proc.stdin is not None
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown", "params": None}))
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit", "params": None}))
        proc.stdin.flush()
        proc.wait(timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.0f} ms"


def ratio(a: list[float], b: list[float]) -> str:
    return f"{statistics.median(a) / statistics.median(b):.2f}x"


def interleaved(runs: int, figures: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    for fn in figures.values():  # one warm-up each: disk caches, the built cache, .pyc files
        fn()
    out: dict[str, list[float]] = {name: [] for name in figures}
    for _ in range(runs):
        for name, fn in figures.items():
            out[name].append(fn())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--pure-only", action="store_true", help="leave out the compiled build")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="spvls-coldstart-"))
    big = work / f"generated-{args.lines}.spvasm"
    big.write_text(module(args.lines), encoding="utf-8")
    out = work / "m.spv"
    quiet_env = {**os.environ, "SPVLS_NO_CACHE": "1"}
    seen_env = {**os.environ, "SPVLS_CACHE_DIR": str(work / "cache")}
    seen_env.pop("SPVLS_NO_CACHE", None)

    def baseline(assembler: str, validator: str) -> Callable[[], float]:
        def run() -> float:
            t = time.perf_counter()
            subprocess.run([assembler, "--target-env", ENV, str(SMALL), "-o", str(out)], capture_output=True)
            subprocess.run([validator, "--target-env", ENV, str(out)], capture_output=True)
            return time.perf_counter() - t

        return run

    # `spirv-as` on the virtual environment's PATH is cmeel's Python script, which starts an
    # interpreter to run the program beside SPIRV-Tools' library (what binding.tools.find finds):
    # the yardstick is the former; the latter is what a C++ tool costs.
    native = [str(tools.find(name)) for name in ("spirv-as", "spirv-val")]

    figures: dict[str, Callable[[], float]] = {
        "python -c pass": lambda: timed([sys.executable, "-c", "pass"]),
        "spvls --version": lambda: timed([*spvls(), "--version"]),
        "spvls check (small)": lambda: timed([*spvls(), "check", "--target-env", ENV, str(SMALL)]),
        "spirv-as + spirv-val (small)": baseline(tool("spirv-as"), tool("spirv-val")),
        "the programs themselves (small)": baseline(*native),
        "server: never-seen text": lambda: first_diagnostics(spvls(), big, seen_env, fresh=True),
        "server: seen text": lambda: first_diagnostics(spvls(), big, seen_env),
        "server: caches off": lambda: first_diagnostics(spvls(), big, quiet_env),
        "server: caches off, pulled": lambda: first_diagnostics(spvls(), big, quiet_env, pull=True),
    }
    if not args.pure_only:
        built = compiled_env(work / "compiled")
        python_m = [sys.executable, "-m", "spvls"]
        quiet_built = {**built, "SPVLS_NO_CACHE": "1"}
        seen_built = {**built, "SPVLS_CACHE_DIR": str(work / "cache-compiled")}
        seen_built.pop("SPVLS_NO_CACHE", None)
        figures |= {
            "compiled: --version": lambda: timed([*python_m, "--version"], built),
            "compiled: check (small)": lambda: timed([*python_m, "check", "--target-env", ENV, str(SMALL)], built),
            "compiled: never-seen text": lambda: first_diagnostics(python_m, big, seen_built, fresh=True),
            "compiled: caches off": lambda: first_diagnostics(python_m, big, quiet_built),
        }
    if peer.available():
        figures["Go server"] = lambda: first_diagnostics([str(peer.GO_SERVER)], big, quiet_env)
    got = interleaved(args.runs, figures)
    print(f"cold start, median of {args.runs} ({os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})")
    for name, samples in got.items():
        print(f"  {name:32} {median_ms(samples):>8}")
    print(
        f"  check / (spirv-as + spirv-val)   {ratio(got['spvls check (small)'], got['spirv-as + spirv-val (small)']):>8}"
    )
    if "compiled: check (small)" in got:
        small = ratio(got["compiled: check (small)"], got["spirv-as + spirv-val (small)"])
        print(f"  compiled check / (as + val)      {small:>8}")
    print(
        f"  check / the programs themselves  {ratio(got['spvls check (small)'], got['the programs themselves (small)']):>8}"
    )
    compiled = [name for name in ("compiled: never-seen text", "compiled: caches off") if name in got]
    if "Go server" in got:
        servers = ("server: never-seen text", "server: seen text", "server: caches off", "server: caches off, pulled")
        for name in (*servers, *compiled):
            print(f"  {name} / Go {'':<9}{ratio(got[name], got['Go server']):>8}")
    else:
        print("  (no Go server at ../shared/peers/go-spirvls: its column is left out)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
