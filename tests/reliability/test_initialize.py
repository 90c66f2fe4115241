"""`initialize`'s result as spvls/server/capabilities.py builds it (server.early sends it before pygls
is imported) is the result pygls gives, with spvls' handlers registered, for the capabilities real
editors sent (tests/data/clients/, recorded from VS Code, Neovim 0.11 and 0.7, Emacs + eglot and
Vim + ALE) and for seeded combinations of every capability pygls' builder and spvls read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from spvls import __version__
from spvls.server import capabilities
from spvls.state.documents import Client

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = sorted((ROOT / "tests" / "data" / "clients").glob("*.json"))

# pygls' answer to each `initialize` read from stdin (a JSON list of params), each by a new server with
# every handler registered (app.create), in a process of its own: no early front, no shared state.
PYGLS = """
import io, json, sys
from pygls.io_ import StdoutWriter
from spvls.server.app import create
answers = []
for params in json.load(sys.stdin):
    ls = create()
    out = io.BytesIO()
    ls.protocol.set_writer(StdoutWriter(out))
    ls._dispatch([{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}])
    data, messages = out.getvalue(), []
    while data:
        head, _, data = data.partition(b"\\r\\n\\r\\n")
        length = int(head.split(b"\\r\\n")[0].split(b":")[1])
        messages.append(json.loads(data[:length]))
        data = data[length:]
    answers.append(messages)
print(json.dumps(answers))
"""


def pygls_messages(all_params: list[dict]) -> list[list[dict]]:
    """For each params, what pygls wrote for that `initialize`: its answer and any notification."""
    run = subprocess.run(
        [sys.executable, "-c", PYGLS], input=json.dumps(all_params), capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def pygls_answers(all_params: list[dict]) -> list[dict]:
    """pygls' answer to each `initialize`."""
    return [next(m for m in messages if m.get("id") == 1) for messages in pygls_messages(all_params)]


def ours(caps: dict) -> dict:
    """What server.early answers: the session's reading of the capabilities decides pull."""
    pull = Client.of(caps, capabilities.position_encoding(caps)).pull
    return {"id": 1, "jsonrpc": "2.0", "result": capabilities.initialize_result(caps, pull, __version__)}


def test_real_editors_get_the_result_pygls_gives() -> None:
    assert len(CLIENTS) == 5
    caps = [json.loads(path.read_text())["capabilities"] for path in CLIENTS]
    answers = pygls_answers([{"processId": None, "rootUri": None, "capabilities": c} for c in caps])
    for path, c, answer in zip(CLIENTS, caps, answers, strict=True):
        assert ours(c) == answer, path.name
    # The clients differ where the result does: encodings, pulled diagnostics, prepared renames.
    assert len({json.dumps(a, sort_keys=True) for a in answers}) >= 3


def _maybe(rng, *values: object) -> object:
    return rng.choice(values)


_ABSENT = object()


def _tree(pairs: list[tuple[tuple[str, ...], object]]) -> dict:
    out: dict = {}
    for path, value in pairs:
        if value is _ABSENT:
            continue
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return out


def test_every_combination_of_what_the_builder_reads_gets_the_result_pygls_gives(rng) -> None:
    encodings = (_ABSENT, None, [], ["utf-8"], ["utf-32", "utf-16"], ["utf-7", "utf-32"], ["latin-1"], ["utf-16"])
    flag = (_ABSENT, None, True, False)
    file_ops = ("didCreate", "willCreate", "didRename", "willRename", "didDelete", "willDelete")
    all_caps = []
    for _ in range(48):
        pairs: list[tuple[tuple[str, ...], object]] = [
            (("general", "positionEncodings"), _maybe(rng, *encodings)),
            (("textDocument", "synchronization", "willSave"), _maybe(rng, *flag)),
            (("textDocument", "synchronization", "willSaveWaitUntil"), _maybe(rng, *flag)),
            (("textDocument", "synchronization", "didSave"), _maybe(rng, *flag)),
            (("textDocument", "rename", "prepareSupport"), _maybe(rng, *flag)),
            (("textDocument", "diagnostic"), _maybe(rng, _ABSENT, {}, {"relatedDocumentSupport": True})),
            (("workspace", "diagnostics", "refreshSupport"), _maybe(rng, *flag)),
            (("workspace", "workspaceFolders"), _maybe(rng, *flag)),
            (("notebookDocument",), _maybe(rng, _ABSENT, {"synchronization": {}})),
            (("window", "workDoneProgress"), _maybe(rng, *flag)),
        ]
        pairs += [(("workspace", "fileOperations", op), _maybe(rng, _ABSENT, True, False)) for op in file_ops]
        all_caps.append(_tree(pairs))
    answers = pygls_answers([{"processId": None, "rootUri": None, "capabilities": c} for c in all_caps])
    for c, answer in zip(all_caps, answers, strict=True):
        assert ours(c) == answer, json.dumps(c)
