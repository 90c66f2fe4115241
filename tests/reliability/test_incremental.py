"""Issue 14.3-7: incremental state equal to a fresh open."""
import pytest

import spvls.checks as checks
from spvls.checks import analyze
from spvls.checks.family import Family
from spvls.features import symbols, tokens
from spvls.syntax.document import Document
from tests.reliability.rawlsp import Server

FUNCTION = """OpCapability Shader
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%int = OpTypeInt 32 0
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
%l = OpLabel
%a = OpIAdd %int %int %int
%b = OpIAdd %int %a %a
%c1 = OpConstant %int 1
%c2 = OpConstant %int 2
%c3 = OpConstant %int 3
OpReturn
OpFunctionEnd
"""
# Without the constants: a function holding a module-level line (Function.foreign) is rebuilt on every
# edit, so the in-place path needs a body of values only.
VALUES = FUNCTION.replace("%c1 = OpConstant %int 1\n%c2 = OpConstant %int 2\n%c3 = OpConstant %int 3\n", "")


def _state(doc: Document, previous=None):
    a = analyze(doc, previous=previous)
    m = a.module
    return a, (a.diagnostics, tokens.semantic_tokens(m), symbols.document_symbols(m), symbols.folding_ranges(m))


def _edit_matches_fresh(text: str, line: int, new: str) -> None:
    doc = Document(text)
    a, _ = _state(doc)
    tokens.semantic_tokens(a.module)  # fill the caches an editor fills
    symbols.folding_ranges(a.module)
    doc.replace((line, 0), (line, len(doc.texts[line])), new)
    _, incremental = _state(doc, a)
    _, fresh = _state(Document(doc.text))
    assert incremental == fresh


def test_a_value_line_becoming_a_type_retypes_its_uses():
    _edit_matches_fresh(FUNCTION, 7, "%a = OpTypeInt 32 0")  # point 3


def test_a_constant_in_a_run_becoming_a_value_unfolds_the_run():
    _edit_matches_fresh(FUNCTION, 10, "%c2 = OpIAdd %int %a %a")  # point 4


def test_a_failed_analysis_does_not_leave_the_model_behind(monkeypatch):
    """Point 5: the edit's lines were cleared before the failing analysis, so the next in-place
    edit updated a model that had missed a structural one."""
    doc = Document(FUNCTION)
    a, _ = _state(doc)
    doc.replace((7, 0), (7, 0), "%x = OpIAdd %int %int %int\n%y = OpIAdd %int %x %x\n")  # two more lines

    def broken(m, scope=None):
        raise RuntimeError("a check failed")
    failing = Family("failing", "failing", "a check that fails.", (), broken)
    monkeypatch.setattr(checks, "FAMILIES", (*checks.FAMILIES, failing))
    with pytest.raises(RuntimeError):
        analyze(doc, previous=a)
    monkeypatch.undo()
    doc.replace((8, 0), (8, 2), "%q")  # in place: %y (%b to the stale model) becomes %q
    _, incremental = _state(doc, a)
    _, fresh = _state(Document(doc.text))
    assert incremental == fresh


@pytest.mark.parametrize("text,pos,insert,lines", [
    ("a\nb\nc", (0, 1), "\r", ["a", "b", "c"]),  # CR typed before an LF: one CRLF break
    ("a\rb\nc", (1, 0), "\n", ["a", "b", "c"]),  # LF typed after a lone CR
    ("a\rX\nb", None, "", ["a", "b"]),  # deleting what stood between them
    ("a\r\nb", (0, 1), "\r", ["a", "", "b"]),
])
def test_line_breaks_as_the_client_counts_them(text, pos, insert, lines):
    doc = Document(text)
    if pos is None:
        doc.replace((1, 0), (1, 1), insert)
    else:
        doc.replace(pos, pos, insert)
    assert doc.texts == lines == Document(doc.text).texts


TEXT = 'OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %void "é😀x" ; ü\n%void = OpTypeVoid\n'


# The comment starts at code point 19: after 'é' (2 UTF-8 bytes) and '😀' (4 bytes, 2 UTF-16 units).
@pytest.mark.parametrize("encoding,column,length", [("utf-8", 23, 4), ("utf-16", 20, 3), ("utf-32", 19, 3)])
def test_columns_in_the_negotiated_encoding(encoding, column, length):
    """Point 7: columns in the encoding announced (the client's first choice), not UTF-16."""
    s = Server()
    try:
        offered = [encoding] + [e for e in ("utf-16", "utf-8", "utf-32") if e != encoding]
        r = s.initialize({"general": {"positionEncodings": offered}})
        assert r["result"]["capabilities"]["positionEncoding"] == encoding
        uri = "file:///tmp/enc.spvasm"
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spvasm", "version": 1,
                                                           "text": TEXT}})
        # The comment after the string starts at a column that depends on the encoding.
        toks = s.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}})["result"]["data"]
        line = col = 0
        found = []
        for k in range(0, len(toks), 5):
            line, col = (line + toks[k], toks[k + 1]) if toks[k] else (line, col + toks[k + 1])
            found.append((line, col, toks[k + 2]))
        assert (2, column, length) in found
        # An edit at that column, in the same units, lands before the comment.
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 2, "character": column}, "end": {"line": 2, "character": column}},
             "text": "%x "}]})
        diags = s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"].get("version") == 2)
        assert any(d["range"]["start"] == {"line": 2, "character": column} for d in diags["params"]["diagnostics"])
    finally:
        s.close()


def test_a_value_edit_takes_the_in_place_path_and_leaves_the_document_alone():
    """Issue 13.1: an edit inside a body updates the same module and re-checks that function
    alone; analyze only reads the document, so analysing it twice or from an older analysis
    gives the same answer."""
    doc = Document(VALUES)
    a, _ = _state(doc)
    doc.replace((8, 0), (8, len(doc.texts[8])), "%b = OpISub %int %a %undefined")
    b, incremental = _state(doc, a)
    assert b.module is a.module and b.rechecked is a.module.functions[0]
    assert "id.undefined" in [d.code for d in b.diagnostics]
    assert incremental == _state(Document(doc.text))[1]
    doc.replace((7, 5), (7, 11), "OpISub")  # a second in-place edit, from the updated model
    c, incremental = _state(doc, b)
    assert c.module is a.module and c.rechecked is not None
    assert incremental == _state(Document(doc.text))[1]
    again = analyze(doc, previous=c)  # nothing edited since: checked whole, same answer
    assert again.rechecked is None and again.diagnostics == c.diagnostics


def test_edits_since_an_older_analysis_all_count():
    doc = Document(VALUES)
    a, _ = _state(doc)
    doc.replace((7, 0), (7, 2), "%z")  # %a renamed: %b's uses are now undefined
    doc.replace((8, 0), (8, 2), "%y")
    b, incremental = _state(doc, a)
    assert b.rechecked is not None
    assert incremental == _state(Document(doc.text))[1]


HEAD = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%fn = OpTypeFunction %void\n"


@pytest.mark.parametrize(
    "body, line",
    [
        # The first function has no end: structure.function-end lies on the second's OpFunction
        # (found by the fuzzer, seed 2311, after 7,025 inputs).
        ("%f = OpFunction %void None %fn\n%g = OpFunction %void None %fn\n%l = OpLabel\nOpNop\nOpReturn\n"
         "OpFunctionEnd\n", 8),
        # Module-level instructions inside a body, reported by rules that run only whole.
        ('%main = OpFunction %void None %fn\n%l = OpLabel\nOpEntryPoint Fragment %main "main"\nOpNop\nOpReturn\n'
         "OpFunctionEnd\n", 8),
        ("%main = OpFunction %void None %fn\n%l = OpLabel\nOpCapability CooperativeMatrixKHR\nOpNop\nOpReturn\n"
         "OpFunctionEnd\n", 8),
        # An annotation, a type, a constant (fuzzer, seed 172974975: decoration.duplicate).
        ("OpDecorate %int RelaxedPrecision\n%main = OpFunction %void None %fn\n%l = OpLabel\n"
         "OpDecorate %int RelaxedPrecision\nOpNop\nOpReturn\nOpFunctionEnd\n", 9),
        ("%main = OpFunction %void None %fn\n%l = OpLabel\n%t = OpTypeFloat 32\nOpNop\nOpReturn\nOpFunctionEnd\n", 8),
        ("%main = OpFunction %void None %fn\n%l = OpLabel\n%k = OpConstant %int 7\nOpNop\nOpReturn\nOpFunctionEnd\n", 8),
        # A global variable inside a body: an entry point's interface rule (SPIR-V 1.0) reports it.
        ("; Version: 1.0\nOpCapability Shader\nOpMemoryModel Logical GLSL450\n"
         'OpEntryPoint GLCompute %main "main" %v\nOpExecutionMode %main LocalSize 1 1 1\n'
         "%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%p = OpTypePointer StorageBuffer %int\n%fn = OpTypeFunction %void\n"
         "%main = OpFunction %void None %fn\n%l = OpLabel\n%v = OpVariable %p StorageBuffer\nOpNop\nOpReturn\n"
         "OpFunctionEnd\n", 12),
        # A function's own variable listed in an interface (fuzzer, seed 2401, after 5,514 inputs).
        ("; Version: 1.0\nOpCapability Shader\nOpMemoryModel Logical GLSL450\n"
         'OpEntryPoint GLCompute %main "main" %v\nOpExecutionMode %main LocalSize 1 1 1\n'
         "%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%p = OpTypePointer Function %int\n%fn = OpTypeFunction %void\n"
         "%main = OpFunction %void None %fn\n%l = OpLabel\n%v = OpVariable %p Function\nOpNop\nOpReturn\n"
         "OpFunctionEnd\n", 12),
    ],
)
def test_an_edit_in_a_function_keeps_what_whole_module_rules_report_inside_it(body, line):
    """An in-place re-check of one function yields only what its own rules say; a diagnostic of a
    whole-module rule lying inside the function was dropped and not said again."""
    text = body if body.startswith(";") else HEAD + body
    assert Document(text).texts[line] == "OpNop"
    _edit_matches_fresh(text, line, "OpNop ; retyped")


@pytest.mark.parametrize("before, after, same_side", [("OpNop", "OpIAd", "OpNop ; x"), ("OpIAd", "OpNop", "OpIAdx")])
def test_an_edit_across_the_did_you_mean_limit_rechecks_the_whole_module(before, after, same_side):
    """Past SUGGEST_OPCODES_UP_TO distinct unknown opcodes no message names the closest opcode: an
    edit inside a function that crosses it changes the messages elsewhere, so it rebuilds."""
    from spvls.model.module import SUGGEST_OPCODES_UP_TO

    unknown = "".join(f"OpFrob{i}\n" for i in range(SUGGEST_OPCODES_UP_TO))
    text = HEAD + unknown + f"%main = OpFunction %void None %fn\n%l = OpLabel\n{before}\nOpReturn\nOpFunctionEnd\n"
    line = 5 + SUGGEST_OPCODES_UP_TO + 2
    assert Document(text).texts[line] == before
    _edit_matches_fresh(text, line, after)
    doc = Document(text)
    a = analyze(doc)
    doc.replace((line, 0), (line, len(before)), same_side)  # in place
    assert analyze(doc, previous=a).rechecked is not None


@pytest.mark.parametrize("before, after, same_side", [
    ("OpNop", "%r = OpExtInst %int %glsl Sqrtt %c", "OpNop ; x"),
    ("%r = OpExtInst %int %glsl Sqrtt %c", "OpNop", "%r = OpExtInst %int %glsl Sqrtt %c ; x"),
    ("OpNop", "OpStore %p %c Volatil", "OpNop ; x"),
])
def test_an_edit_across_the_unknown_name_limit_rechecks_the_whole_module(before, after, same_side):
    """Past SUGGEST_NAMES_UP_TO distinct unknown enumerants, extended instructions and
    OpSpecConstantOp opcodes no message names the closest: an edit inside a function that crosses
    it changes the messages elsewhere, so it rebuilds; one that does not is re-checked in place."""
    from spvls.model.module import SUGGEST_NAMES_UP_TO

    unknown = "".join(f"OpCapability Shadr{i}\n" for i in range(SUGGEST_NAMES_UP_TO))  # each names Shader
    text = (HEAD + '%glsl = OpExtInstImport "GLSL.std.450"\n%c = OpConstant %int 1\n' + unknown
            + f"%main = OpFunction %void None %fn\n%l = OpLabel\n%p = OpVariable %int Function\n{before}\n"
            "OpReturn\nOpFunctionEnd\n")
    line = 7 + SUGGEST_NAMES_UP_TO + 3
    assert Document(text).texts[line] == before
    _edit_matches_fresh(text, line, after)
    doc = Document(text)
    a = analyze(doc)
    doc.replace((line, 0), (line, len(before)), same_side)
    assert analyze(doc, previous=a).rechecked is not None


@pytest.mark.parametrize("before, after", [("OpNop", "%r = OpIAdd %int %zz %zz"), ("%r = OpIAdd %int %zz %zz", "OpNop")])
def test_an_edit_across_the_undefined_id_limit_rechecks_the_whole_module(before, after):
    """Past SUGGEST_IDS_UP_TO undefined ids no message names the closest id: an edit inside a
    function that crosses it changes the messages elsewhere, so it rebuilds."""
    from spvls.model.module import SUGGEST_IDS_UP_TO

    names = "".join(f'OpName %u{i} "x"\n' for i in range(SUGGEST_IDS_UP_TO))
    text = HEAD + "%c1 = OpConstant %int 1\n%u = OpConstant %int 2\n" + names
    text += f"%main = OpFunction %void None %fn\n%l = OpLabel\n{before}\nOpReturn\nOpFunctionEnd\n"
    line = 7 + SUGGEST_IDS_UP_TO + 2
    assert Document(text).texts[line] == before
    _edit_matches_fresh(text, line, after)


def test_an_edit_moving_a_line_that_a_diagnostic_elsewhere_relates_rechecks_the_whole_module():
    """entry.interface (on the module-level variable) relates the variable's first use in the
    function: an in-place edit that moved that use's columns left the kept diagnostic pointing at
    the old ones (fuzzer, seed 2402, after 19,275 inputs, utf-32)."""
    text = (
        "; Version: 1.4\nOpCapability Shader\nOpMemoryModel Logical GLSL450\n"
        'OpEntryPoint GLCompute %main "main"\nOpExecutionMode %main LocalSize 1 1 1\n'
        "%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%s = OpTypeStruct %int\n%p = OpTypePointer StorageBuffer %s\n"
        "%v = OpVariable %p StorageBuffer\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n"
        "%l = OpLabel\n%y = OpCopyObject %p %v\nOpReturn\nOpFunctionEnd\n"
    )
    assert any(d.code == "entry.interface" and d.related[-1].line == 13 for d in analyze(Document(text)).diagnostics)
    _edit_matches_fresh(text, 13, "%yy = OpCopyObject %p %v")
