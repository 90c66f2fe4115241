"""Soak over raw stdio: bursts of edits and requests, cancellations, misuse of the protocol.

Every request must get a result or a proper JSON-RPC error, the server must never exit on its
own, and its memory must settle. SPVLS_SOAK=long runs ten times as many rounds.
"""
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROUNDS = 400 if os.environ.get("SPVLS_SOAK") == "long" else 40


class RawClient:
    """JSON-RPC over the server's stdin/stdout, with Content-Length framing."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "spvls"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.responses: dict[int, dict] = {}
        self.notifications: list[dict] = []
        self.cond = threading.Condition()
        self.next_id = 0
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self.stderr_reader.start()

    def _drain_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read(4096), b""):
            self.stderr += chunk

    def _read(self):
        out = self.proc.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                b = out.read(1)
                if not b:
                    return
                header += b
            length = int(next(h for h in header.split(b"\r\n") if h.lower().startswith(b"content-length"))
                         .split(b":")[1])
            msg = json.loads(out.read(length))
            with self.cond:
                if "id" in msg and ("result" in msg or "error" in msg):
                    self.responses[msg["id"]] = msg
                elif "method" in msg:
                    self.notifications.append(msg)
                self.cond.notify_all()

    def send(self, payload: dict):
        body = json.dumps(payload).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, ids, timeout=120.0) -> dict[int, dict]:
        deadline = time.time() + timeout
        with self.cond:
            while not all(i in self.responses for i in ids):
                left = deadline - time.time()
                assert left > 0, f"no answer to {[i for i in ids if i not in self.responses][:5]}"
                self.cond.wait(left)
            return {i: self.responses[i] for i in ids}

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


def _pos(line, ch):
    return {"line": line, "character": ch}


def test_soak(tmp_path):
    c = RawClient()
    rnd = random.Random(7)
    try:
        # A request before initialize gets an answer (result or error), not silence or a crash.
        early = c.request("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": _pos(0, 0)})
        c.wait([early])
        init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert "result" in c.wait([init])[init]
        c.notify("initialized", {})
        rss = {"start": c.rss_mb()}

        texts = {f"file:///soak/{p.name}": p.read_text() for p in sorted(EXAMPLES.glob("*.spvasm"))}
        texts["file:///soak/junk.spvasm"] = "".join(chr(rnd.randrange(0, 0x2FF)) for _ in range(5000))
        texts["file:///soak/huge.spvasm"] = (EXAMPLES / "matmul.spvasm").read_text() * 2500  # ~5 MB
        versions = {}
        for uri, text in texts.items():
            versions[uri] = 1
            c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spirv", "version": 1,
                                                               "text": text}})
        small = [u for u in texts if "huge" not in u]
        methods = ["textDocument/hover", "textDocument/completion", "textDocument/definition",
                   "textDocument/references", "textDocument/documentHighlight", "textDocument/signatureHelp",
                   "textDocument/semanticTokens/full", "textDocument/documentSymbol", "textDocument/foldingRange",
                   "textDocument/inlayHint", "textDocument/codeAction", "textDocument/prepareRename",
                   "textDocument/rename", "textDocument/diagnostic", "workspace/symbol",
                   "textDocument/formatting", "textDocument/rangeFormatting", "textDocument/semanticTokens/full/delta",
                   "textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", "callHierarchy/outgoingCalls"]
        edits = requests = cancelled = 0
        pending = []
        for rnd_i in range(ROUNDS):
            for _ in range(25):  # a burst of typing
                uri = rnd.choice(small)
                versions[uri] += 1
                line, ch = rnd.randrange(0, 60), rnd.randrange(0, 90)
                text = rnd.choice(["x", " ", "%", "\n", "", "é", "\r\n", "Op", '"', "😀", "\t"])
                end = _pos(line + rnd.choice([0, 0, 1]), ch + rnd.randrange(0, 3))
                c.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": versions[uri]},
                    "contentChanges": [{"range": {"start": _pos(line, ch), "end": end}, "text": text}]})
                edits += 1
            for _ in range(10):  # and requests, some out of range, some for unknown documents
                uri = rnd.choice(small + ["file:///soak/unknown.spvasm"])
                pos = _pos(rnd.choice([0, 5, 20, 10_000]), rnd.choice([0, 3, 40, 100_000]))
                method = rnd.choice(methods)
                params = {"textDocument": {"uri": uri}, "position": pos}
                if method == "textDocument/references":
                    params["context"] = {"includeDeclaration": True}
                elif method == "textDocument/rename":
                    params["newName"] = rnd.choice(["%ok_name", "%bad-name", "x"])
                elif method in ("textDocument/inlayHint", "textDocument/codeAction"):
                    params["range"] = {"start": _pos(0, 0), "end": pos}
                    params.pop("position")
                    if method == "textDocument/codeAction":
                        params["context"] = {"diagnostics": []}
                elif method == "workspace/symbol":
                    params = {"query": rnd.choice(["", "main", "%"])}
                elif method in ("textDocument/formatting", "textDocument/rangeFormatting"):
                    params["options"] = {"tabSize": 4, "insertSpaces": True}
                    params["range"] = {"start": pos, "end": _pos(pos["line"] + 3, 0)}
                    params.pop("position")
                    if method == "textDocument/formatting":
                        params.pop("range")
                elif method.startswith("callHierarchy/"):  # an item as a client would echo it, or a stale one
                    params = {"item": {"name": "%main", "kind": 12, "uri": uri, "range": {"start": pos, "end": pos},
                                       "selectionRange": {"start": pos, "end": pos},
                                       "data": rnd.choice([{"id": "%main"}, {"id": "%nope"}, None, "junk"])}}
                elif method == "textDocument/semanticTokens/full/delta":
                    params["previousResultId"] = rnd.choice(["1", "2", "stale"])
                    params.pop("position")
                elif method.startswith("textDocument/") and method.split("/")[1] in (
                        "semanticTokens", "documentSymbol", "foldingRange", "diagnostic"):
                    params.pop("position")
                rid = c.request(method, params)
                requests += 1
                if rnd.random() < 0.2:
                    c.notify("$/cancelRequest", {"id": rid})
                    cancelled += 1
                pending.append(rid)
            if rnd_i == ROUNDS // 2:
                c.wait(pending)
                rss["middle"] = c.rss_mb()
            assert c.proc.poll() is None, c.stderr.decode()[-2000:]
        answers = c.wait(pending)
        for msg in answers.values():
            assert "result" in msg or ("error" in msg and "code" in msg["error"]), msg
        internal = [m for m in answers.values() if "error" in m and m["error"]["code"] == -32603]
        assert not internal, f"internal errors: {internal[:3]}\n{c.stderr.decode()[-3000:]}"
        # The huge document still answers.
        hid = c.request("textDocument/hover", {"textDocument": {"uri": "file:///soak/huge.spvasm"},
                                               "position": _pos(100_000, 15)})
        assert "result" in c.wait([hid])[hid]
        rss["end"] = c.rss_mb()
        print(f"soak: {edits} edits, {requests} requests ({cancelled} cancelled); RSS MB {rss}")
        assert rss["end"] < 600

        sid = c.request("shutdown", None)
        c.wait([sid])
        late = c.request("textDocument/hover", {"textDocument": {"uri": small[0]}, "position": _pos(0, 0)})
        assert "error" in c.wait([late])[late]  # after shutdown: an error, not a crash
        assert c.proc.poll() is None  # never exits on its own
        c.notify("exit", None)
        assert c.proc.wait(timeout=20) == 0  # LSP: exit after shutdown is a clean exit
        c.stderr_reader.join(timeout=20)
        assert b"Traceback" not in c.stderr, c.stderr.decode()[-3000:]
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
