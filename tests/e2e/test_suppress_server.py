"""`; spvls: ignore[...]` comments in the editor: the server publishes what `spvls check` prints,
and follows edits that add or remove a suppression."""
from lsprotocol import types as T
from test_server import MODULE, diagnostics_for, open_doc

from spvls.state import progress


def _edit(client, uri, version, line, text):
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(version=version, uri=uri),
        [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, 0), T.Position(line, 10_000)), text=text)]))


async def test_suppressions_follow_edits(client):
    body = MODULE.replace("OpReturn", "OpRetrun")
    n = body.split("\n").index("OpRetrun")
    uri = open_doc(client, body)
    codes = {d.code for d in await diagnostics_for(client, uri, 1)}
    assert "operand.unknown-opcode" in codes

    _edit(client, uri, 2, n, "OpRetrun ; spvls: ignore[operand.unknown-opcode]")
    diags = await diagnostics_for(client, uri, 2)
    assert "operand.unknown-opcode" not in {d.code for d in diags}

    _edit(client, uri, 3, n, "OpReturn ; spvls: ignore[operand.unknown-opcode]")  # the mistake fixed
    diags = await diagnostics_for(client, uri, 3)
    (unused,) = [d for d in diags if d.code == "suppression.unused"]
    assert unused.range.start.line == n and unused.severity == T.DiagnosticSeverity.Warning

    _edit(client, uri, 4, n, "OpRetrun")  # the suppression removed
    assert "operand.unknown-opcode" in {d.code for d in await diagnostics_for(client, uri, 4)}


async def test_a_suppression_in_the_opened_text_holds_from_the_first_diagnostics(client):
    body = MODULE.replace("OpReturn", "OpRetrun ; spvls: ignore[operand.unknown-opcode]")
    uri = open_doc(client, body)
    codes = {d.code for d in await diagnostics_for(client, uri, 1)}
    assert "operand.unknown-opcode" not in codes and "suppression.unused" not in codes

    n = body.split("\n").index("OpRetrun ; spvls: ignore[operand.unknown-opcode]")
    _edit(client, uri, 2, n, "OpRetrun")  # the suppression removed
    assert "operand.unknown-opcode" in {d.code for d in await diagnostics_for(client, uri, 2)}


async def test_a_suppression_in_a_large_opened_text_holds_from_the_first_diagnostics(client):
    # Past progress.LINES an open is built off the event loop and adopted (server.sync): the text's
    # search for suppressions is taken on the loop and handed over with the built document.
    open_doc(client, MODULE)  # a first open may be answered before pygls: this one is not the first
    body = MODULE.replace("OpReturn", "OpRetrun ; spvls: ignore[operand.unknown-opcode]")
    uri = open_doc(client, body + "\n; filler" * progress.LINES)
    codes = {d.code for d in await diagnostics_for(client, uri, 1)}
    assert "operand.unknown-opcode" not in codes and "suppression.unused" not in codes
