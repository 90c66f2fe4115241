"""Bytes of JSON a real `spvls` sends for completion after `OpCapability ` (and one resolve).

    python bench/completion_payload.py [--no-defaults] [-v]
"""
from __future__ import annotations

import json
import subprocess
import sys


def _send(p, msg: dict) -> None:
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def _read(p) -> bytes:
    length = 0
    while True:
        line = p.stdout.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return p.stdout.read(length)


def _answer(p, id_: int) -> bytes:
    while True:
        raw = _read(p)
        if json.loads(raw).get("id") == id_:
            return raw


def main() -> int:
    p = subprocess.Popen([sys.executable, "-m", "spvls"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    uri = "file:///tmp/payload.spvasm"
    # As VS Code declares it; with --no-defaults, a client that takes no item defaults.
    caps = {} if "--no-defaults" in sys.argv else {"textDocument": {"completion": {"completionList": {
        "itemDefaults": ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"]}}}}
    _send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": caps}})
    _answer(p, 1)
    _send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    _send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "spirv", "version": 1, "text": "OpCapability \n"}}})
    _send(p, {"jsonrpc": "2.0", "id": 2, "method": "textDocument/completion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": 0, "character": 13}}})
    raw = _answer(p, 2)
    items = json.loads(raw)["result"]["items"]
    if "-v" in sys.argv:
        print(json.dumps(items[0]))
    print(f"completion after 'OpCapability ': {len(items)} items, {len(raw)} bytes of JSON")
    item = next(i for i in items if i["label"] == "Shader")
    defaults = json.loads(raw)["result"].get("itemDefaults") or {}
    item = {**item, "data": item.get("data", defaults.get("data"))}  # as a client applies the defaults
    _send(p, {"jsonrpc": "2.0", "id": 3, "method": "completionItem/resolve", "params": item})
    resolved = _answer(p, 3)
    doc = json.loads(resolved)["result"].get("documentation")
    print(f"resolve 'Shader': {len(resolved)} bytes; documentation: {json.dumps(doc)[:120]}")
    _send(p, {"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
    _answer(p, 4)
    _send(p, {"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
