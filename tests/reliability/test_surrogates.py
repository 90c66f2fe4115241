"""A lone surrogate (half of a UTF-16 pair; an LSP client's JSON can carry "\\ud800") is a clear
diagnostic at its place, and every place that encodes text takes it: the validator, embedded
source files, the assembler, spvls.assemble (fuzz seed 2403: pull diagnostics answered
"'utf-8' codec can't encode character '\\ud800'")."""
import subprocess

import pytest

from spvls.binding import spirv_tools
from spvls.binding.text import utf8
from spvls.checks import analyze
from spvls.checks.validator import run as validate_text
from spvls.syntax.document import Document
from tests.helpers import tool
from tests.reliability.rawlsp import Server

HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def test_a_lone_surrogate_is_a_diagnostic_at_its_place():
    text = HEAD + ('; a\ud800b\n'
                   'OpSourceExtension "q\udc00"\n'
                   'OpSource GLSL 450 0 "one\n'
                   'two\ud83d"\n'
                   '\udfff\n')
    got = [(d.line, d.start, d.end, d.severity, d.message) for d in analyze(Document(text)).diagnostics
           if d.code == "syntax.encoding"]
    pair = "is half of a UTF-16 surrogate pair, not a character"
    assert got == [
        (2, 3, 4, "warning", f"U+D800 {pair}: a file cannot hold it as UTF-8 (in a comment, spirv-as skips it)"),
        (3, 20, 21, "error", f"U+DC00 {pair}: a literal string is UTF-8, which cannot hold it "
                             "(spirv-as would copy its bytes ED B0 80 into the module)"),
        (5, 3, 4, "error", f"U+D83D {pair}: a literal string is UTF-8, which cannot hold it "
                           "(spirv-as would copy its bytes ED A0 BD into the module)"),
        (6, 0, 1, "error", f"U+DFFF {pair}: SPIR-V assembly is UTF-8 text, which cannot hold it"),
    ]


PLACES = {
    "comment": HEAD + "; a\ud800b\n",
    "string": HEAD + 'OpSourceExtension "a\ud800b"\n',
    "opcode": HEAD + "OpNop\ud800\n",
    "alone": HEAD + "\ud800\n",
    "escaped byte": HEAD + 'OpSourceExtension "a\udcffb"\n',  # a byte surrogateescape kept: 0xff
}


@pytest.mark.parametrize("place", PLACES)
def test_the_assembler_reads_a_lone_surrogate_as_spirv_as_reads_its_bytes(place, tmp_path):
    """The library gets the bytes a file would hold (surrogateescape's byte, else the 3-byte
    form) and answers what the real spirv-as answers for that file."""
    text = PLACES[place]
    src, out = tmp_path / "m.spvasm", tmp_path / "m.spv"
    src.write_bytes(utf8(text))
    theirs = subprocess.run([tool("spirv-as"), "--preserve-numeric-ids", "--target-env", "spv1.6", str(src),
                             "-o", str(out)], capture_output=True, check=False)
    mine = spirv_tools.assemble(text, "spv1.6")
    if theirs.returncode == 0:
        assert bytes(mine) == out.read_bytes()
    else:
        assert isinstance(mine, spirv_tools.Failure)
        said = theirs.stderr.decode("utf-8", "replace")  # as the binding decodes the library's message
        assert f"error: {mine.line + 1}: {mine.column + 1}: {mine.message}" in said


def test_a_validator_error_after_a_lone_surrogate_is_on_its_token():
    text = HEAD + 'OpSourceExtension "\ud800\ud800" OpFrob\n'
    doc = Document(text)
    (d,) = validate_text(text, doc.lines, "spv1.6")
    assert (d.line, d.start, d.end, d.message) == (2, 23, 29, "Invalid Opcode name 'OpFrob'")


SOURCE = "void main()\n{\n  int i\ud800 = 0;\n}\n"
DOCUMENT = (
    "; SPIR-V\n"
    "               OpCapability Shader\n"
    "               OpMemoryModel Logical GLSL450\n"
    "               OpEntryPoint GLCompute %main \"main\"\n"
    "               OpExecutionMode %main LocalSize 1 1 1\n"
    "          %1 = OpString \"a.comp\"\n"
    f"               OpSource GLSL 450 %1 \"{SOURCE}\"\n"
    "       %void = OpTypeVoid\n"
    "         %fn = OpTypeFunction %void\n"
    "       %main = OpFunction %void None %fn\n"
    "      %entry = OpLabel\n"
    "               OpLine %1 3 3\n"
    "               OpFrob\n"
    "               OpReturn\n"
    "               OpFunctionEnd\n"
)
URI = "file:///tmp/surrogate.spvasm"


def test_every_request_answers_on_a_document_holding_a_lone_surrogate(tmp_path):
    """The seed-2403 path: a diagnostic under an OpLine names the embedded source text, which is
    written to a cache file. Then every other request, and the validator's result."""
    s = Server(env={"XDG_CACHE_HOME": str(tmp_path)})
    try:
        s.initialize({"textDocument": {"diagnostic": {}}}, {"validate": "onType"})
        s.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "spvasm", "version": 1,
                                                           "text": DOCUMENT}})
        doc = {"textDocument": {"uri": URI}}
        r = s.request("textDocument/diagnostic", doc)
        assert "result" in r, r
        items = {(d["range"]["start"]["line"], d["code"]): d for d in r["result"]["items"]}
        assert items[(8, "syntax.encoding")]["range"] == {"start": {"line": 8, "character": 7},
                                                         "end": {"line": 8, "character": 8}}
        frob = items[(16, "operand.unknown-opcode")]
        (source,) = frob["relatedInformation"]
        copy = tmp_path / "spvls" / "embedded"
        assert source["location"]["uri"].startswith(copy.as_uri())
        assert source["location"]["range"]["start"] == {"line": 2, "character": 2}
        written = next(copy.rglob("a.comp")).read_bytes()
        assert written == utf8(SOURCE) == b"void main()\n{\n  int i\xed\xa0\x80 = 0;\n}\n"

        at = {**doc, "position": {"line": 8, "character": 7}}
        whole = {**doc, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 19, "character": 0}}}
        for method, params in [
            ("textDocument/hover", at), ("textDocument/completion", at), ("textDocument/definition", at),
            ("textDocument/references", {**at, "context": {"includeDeclaration": True}}),
            ("textDocument/documentHighlight", at), ("textDocument/signatureHelp", at),
            ("textDocument/semanticTokens/full", doc), ("textDocument/documentSymbol", doc),
            ("textDocument/foldingRange", doc), ("textDocument/inlayHint", whole),
            ("textDocument/formatting", {**doc, "options": {"tabSize": 4, "insertSpaces": True}}),
            ("textDocument/codeAction", {**whole, "context": {"diagnostics": []}}),
            ("workspace/executeCommand", {"command": "spvls.showCfg",
                                          "arguments": [{"uri": URI, "position": {"line": 16, "character": 16}}]}),
        ]:
            r = s.request(method, params)
            assert "result" in r, (method, r)
        # spirv-as reads the surrogate's bytes in the string and stops at OpFrob: its message is
        # merged with the native diagnostics (before the fix the validator job raised instead), as
        # the related information of the native error on the same instruction.
        def spirv_as(d: dict) -> list[str]:
            return [r["message"] for r in d.get("relatedInformation", ()) if r["message"].startswith("spirv-as")]

        pushed = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and any(
            spirv_as(d) for d in m["params"]["diagnostics"]), timeout=60)
        (mine,) = [d for d in pushed["params"]["diagnostics"] if spirv_as(d)]
        assert mine["range"]["start"]["line"] == 16
        assert spirv_as(mine) == ["spirv-as: Invalid Opcode name 'OpFrob'"]
        assert b"Traceback" not in b"".join(s.stderr)
    finally:
        s.close()


def test_spvls_assemble_refuses_a_lone_surrogate_and_keeps_the_file(tmp_path):
    target = tmp_path / "m.spv"
    target.write_bytes(b"old")
    s = Server()
    try:
        s.initialize()
        text = HEAD + 'OpSourceExtension "a\ud800"\n'
        r = s.request("workspace/executeCommand", {"command": "spvls.assemble",
                                                   "arguments": [{"uri": target.as_uri(), "text": text}]})
        assert r["error"]["code"] == -32602
        assert r["error"]["message"] == ("m.spv: not saved: line 3: U+D800 is half of a UTF-16 surrogate pair, "
                                         "not a character: SPIR-V assembly is UTF-8 text, which cannot hold it")
        assert target.read_bytes() == b"old"
    finally:
        s.close()


PAIR_DOC = HEAD + 'OpName %x "ab" junk\n'
PAIR_AT = PAIR_DOC.index("\"ab\"") + 2  # between a and b


def test_a_pair_typed_half_by_half_is_one_character():
    """A UTF-16 client holds the halves typed one after the other as one character, and a fresh
    open's JSON "\\ud83d\\ude00" decodes to one: the edited document must hold the same."""
    doc = Document(PAIR_DOC)
    doc.replace((2, PAIR_AT - len(HEAD)), (2, PAIR_AT - len(HEAD)), "\ud83d")
    doc.replace((2, PAIR_AT - len(HEAD) + 1), (2, PAIR_AT - len(HEAD) + 1), "\ude00")
    assert doc.texts[2] == 'OpName %x "a\U0001f600b" junk'
    fresh = Document(PAIR_DOC[:PAIR_AT] + "\ud83d\ude00" + PAIR_DOC[PAIR_AT:])
    assert fresh.texts == doc.texts
    assert [(d.start, d.end, d.code) for d in analyze(doc).diagnostics] == [
        (d.start, d.end, d.code) for d in analyze(fresh).diagnostics]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_a_pair_typed_half_by_half_over_lsp_equals_a_fresh_open(encoding):
    """Fuzzer finding (a pull-diagnostics difference in utf-8): the server kept the halves as two
    lone surrogates, a fresh open had one character, so every column after it differed (and each
    half got a syntax.encoding diagnostic)."""
    from tests.fuzz.oracles import Session

    s = Session(encoding)
    try:
        assert s.run(PAIR_DOC, [(PAIR_AT, PAIR_AT, "\ud800"), (PAIR_AT + 1, PAIR_AT + 1, "\udc00")]) == []
    finally:
        s.close()
