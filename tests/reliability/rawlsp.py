"""A bare LSP client over a pipe: sends any bytes, reads framed messages with timeouts. Used where
pytest-lsp cannot go (malformed frames and params) and by the fuzzer's sessions."""
from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`spvls` over its stdin and stdout, or (tcp=True) `spvls --tcp` over a real socket."""

    def __init__(self, env: dict | None = None, tcp: bool = False):
        port = _free_port() if tcp else None
        args = ["--tcp", "--port", str(port)] if tcp else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "spvls", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
        self.sock = None
        self.output = self.proc.stdout
        if tcp:
            deadline = time.monotonic() + 30
            while True:
                try:
                    self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                    break
                except OSError:
                    if time.monotonic() > deadline or self.proc.poll() is not None:
                        self.proc.kill()
                        raise
                    time.sleep(0.1)
            self.sock.settimeout(None)
            self.output = self.sock.makefile("rb")
        self.inbox: queue.Queue = queue.Queue()
        self.stderr: list[bytes] = []
        self.notes: list[dict] = []  # notifications seen while waiting for answers
        self.asked: list[str] = []  # the methods of the requests the server made (each answered null)
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        out = self.output
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif line in (b"\r\n", b"\n"):
                    break
            self.inbox.put(json.loads(out.read(length)))

    def send_bytes(self, data: bytes) -> None:
        if self.sock is not None:
            self.sock.sendall(data)
            return
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params, timeout: float = 30) -> dict:
        """The whole response (result or error) to a new request."""
        self._next += 1
        self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == self._next and "method" not in m, timeout)

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, pred, timeout: float = 30) -> dict:
        """The first message (seen already or arriving) that pred accepts."""
        for k, msg in enumerate(self.notes):
            if pred(msg):
                return self.notes.pop(k)
        while True:
            try:
                msg = self.inbox.get(timeout=timeout)
            except queue.Empty:
                raise TimeoutError(f"no matching message in {timeout} s") from None
            if msg is None:
                raise EOFError("the server closed its output: " + b"".join(self.stderr[-20:]).decode(errors="replace"))
            if "method" in msg and "id" in msg:  # a request from the server: answer it
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                self.asked.append(msg["method"])
                if pred(msg):
                    return msg
                continue
            if pred(msg):
                return msg
            if "method" in msg:
                self.notes.append(msg)

    def initialize(self, capabilities: dict | None = None, options=None) -> dict:
        r = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": capabilities or {},
                                        "initializationOptions": options})
        self.notify("initialized", {})
        return r

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
                self.proc.wait(timeout=10)
        except Exception:  # a test already failed; just make sure it is gone
            pass
        finally:
            if self.sock is not None:
                self.sock.close()
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
