"""The source map through the real server over stdio: glslangValidator output opened next to its
shaders; hover, definition, diagnostics' related information and the sourceHints inlay hints."""
import os
from pathlib import Path

import pytest
from lsprotocol import types as T
from shaders import build, line_of, source_text
from test_server import diagnostics_for


@pytest.fixture(autouse=True, scope="module")
def cache_dir(tmp_path_factory):
    """Where the server writes embedded source texts (set before the server starts)."""
    old = os.environ.get("SPVLS_CACHE_DIR")
    os.environ["SPVLS_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield os.environ["SPVLS_CACHE_DIR"]
    if old is None:
        del os.environ["SPVLS_CACHE_DIR"]
    else:
        os.environ["SPVLS_CACHE_DIR"] = old


def _open(client, path, text=None, uri=None):
    uri = uri or path.as_uri()
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri, "spirv", 1, text if text is not None else path.read_text())))
    return uri


def _line(text: str, needle: str, after: int = 0) -> tuple[int, int]:
    """(line, column of the opcode) of the first line at or after `after` containing `needle`."""
    lines = text.split("\n")
    n = next(i for i in range(after, len(lines)) if needle in lines[i])
    return n, lines[n].index("Op")


async def test_hover_definition_related_and_hints_over_stdio(client, tmp_path, cache_dir):
    path = build(tmp_path, "sum.comp", "inlined")
    # square's multiply, inlined into main: made to read an undefined id, so it carries a diagnostic.
    text = path.read_text()
    n, col = _line(text, "= OpFMul %float", after=_line(text, "%main = OpFunction")[0])
    lines = text.split("\n")
    lines[n] = lines[n].rsplit(" ", 1)[0] + " %nowhere"
    text = "\n".join(lines)
    uri = _open(client, path, text)
    doc = T.TextDocumentIdentifier(uri)
    square, call = line_of("sum.comp", "return x * x;"), line_of("sum.comp", "acc += square(")

    diags = await diagnostics_for(client, uri, 1)
    d = next(d for d in diags if d.code == "id.undefined")
    rel = [r for r in d.related_information if r.message.startswith("source: ")]
    assert [(r.message, r.location.uri, r.location.range.start.line) for r in rel] == [
        (f"source: sum.comp:{square}", (tmp_path / "sum.comp").as_uri(), square - 1)]

    h = await client.text_document_hover_async(T.HoverParams(doc, T.Position(n, col + 1)))
    assert h.contents.value.startswith(
        f"Source: `sum.comp:{square}` in `square`\n\n```glsl\n{source_text('sum.comp', square)}\n```\n\n"
        f"inlined into `main` at `sum.comp:{call}`\n\n---\n\n")

    loc = await client.text_document_definition_async(T.DefinitionParams(doc, T.Position(n, col + 1)))
    assert (loc.uri, loc.range.start.line, loc.range.start.character) == ((tmp_path / "sum.comp").as_uri(), square - 1, 0)

    # Off by default; on, `sum.comp:N` after the first instruction of each run.
    rng = T.Range(T.Position(0, 0), T.Position(len(lines), 0))
    before = await client.text_document_inlay_hint_async(T.InlayHintParams(doc, rng))
    assert not any(h.label.startswith("sum.comp:") for h in before)
    client.workspace_did_change_configuration(T.DidChangeConfigurationParams({"spvls": {"sourceHints": True}}))
    hints = await client.text_document_inlay_hint_async(T.InlayHintParams(doc, rng))
    at = {h.position.line: h.label for h in hints if ":" in h.label and not h.label.startswith(":")}
    assert f"sum.comp:{square}" in at.values() and f"common.glsl:{line_of('common.glsl', '% 7u')}" in at.values()


async def test_embedded_text_when_the_file_is_missing(client, tmp_path, cache_dir):
    path = build(tmp_path, "sum.comp", "g")
    text = path.read_text()
    uri = _open(client, path, text, uri=(tmp_path / "elsewhere" / path.name).as_uri())
    n, col = _line(text, "OpFMul", after=_line(text, "%square_f1_ = OpFunction")[0])
    loc = await client.text_document_definition_async(
        T.DefinitionParams(T.TextDocumentIdentifier(uri), T.Position(n, col)))
    target = Path(loc.uri.removeprefix("file://"))
    assert target.is_relative_to(cache_dir) and target.name == "sum.comp"
    square = line_of("sum.comp", "return x * x;")
    assert target.read_text().split("\n")[loc.range.start.line] == source_text("sum.comp", square)


async def test_related_information_without_a_source_file(client, tmp_path):
    """-gV embeds no text: with the file gone, the related information still names the location,
    at the diagnostic's own place."""
    path = build(tmp_path, "sum.comp", "gV")
    text = path.read_text()
    n, _ = _line(text, "OpFMul", after=_line(text, "%square_f1_ = OpFunction")[0])
    lines = text.split("\n")
    lines[n] = lines[n].rsplit(" ", 1)[0] + " %nowhere"
    uri = _open(client, path, "\n".join(lines), uri=(tmp_path / "elsewhere" / path.name).as_uri())
    d = next(d for d in await diagnostics_for(client, uri, 1) if d.code == "id.undefined")
    (rel,) = [r for r in d.related_information if r.message.startswith("source: ")]
    assert rel.message == f"source: sum.comp:{line_of('sum.comp', 'return x * x;')}"
    assert (rel.location.uri, rel.location.range) == (uri, d.range)
