"""The Go language server of SPIRV-Tools (../shared/peers/go-spirvls), measured like spvls.

It syncs full text and publishes diagnostics without a version, so each keystroke sends the
whole document and waits for the next publication (one change is in flight at a time).
"""
from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

from common import quiet
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

SHARED = Path(os.environ.get("SPVLS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
GO_SERVER = Path(os.environ.get("SPVLS_GO_SERVER", SHARED / "peers" / "go-spirvls"))


def available() -> bool:
    return GO_SERVER.is_file() and os.access(GO_SERVER, os.X_OK)


async def go_session(path: Path, edits: int, requests: int, edit_lines: list[int], probe: tuple[int, int],
                     peak_rss_mb) -> dict:
    text = path.read_text()
    lines = text.split("\n")
    client = LanguageClient("spvls-bench", "1")
    quiet(client)
    count = 0
    got = asyncio.Event()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diags(params: T.PublishDiagnosticsParams):
        nonlocal count
        count += 1
        got.set()

    async def next_publication(seen: int) -> float:
        while count <= seen:
            got.clear()
            await got.wait()
        return time.perf_counter()

    await client.start_io(str(GO_SERVER))
    pid = client._server.pid  # the benchmark reads the server's RSS
    await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities()))
    client.initialized(T.InitializedParams())
    uri = path.resolve().as_uri()
    t0 = time.perf_counter()
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spirv", 1, text)))
    open_s = await next_publication(0) - t0
    keystrokes = []
    for i in range(edits):
        n = edit_lines[i % len(edit_lines)]
        lines[n] = lines[n] + " " if i % 2 == 0 else lines[n][:-1]
        seen = count
        t = time.perf_counter()
        client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            [T.TextDocumentContentChangeWholeDocument("\n".join(lines))]))
        keystrokes.append(await next_publication(seen) - t)
    hovers = []
    for _ in range(requests):
        t = time.perf_counter()
        await client.text_document_hover_async(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(*probe)))
        hovers.append(time.perf_counter() - t)
    rss = peak_rss_mb(pid)
    await client.shutdown_async(None)
    client.exit(None)
    # It does not always exit on 'exit'; the figures are taken, so end it.
    try:
        await asyncio.wait_for(client._server.wait(), 2)
    except asyncio.TimeoutError:
        client._server.kill()
    await client.stop()
    return {"open": open_s, "key_p50": statistics.median(keystrokes), "hover_p50": statistics.median(hovers),
            "rss_mb": rss}
