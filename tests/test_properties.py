"""Property tests: random incremental edits keep the document and its analysis equal to a fresh
parse and a fresh analysis of the same text, and every feature answers without an exception."""
import random
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from spvls.checks import analyze
from spvls.features import calls, completion, formatting, hover, navigation, signature, symbols, tokens
from spvls.syntax.document import Document

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RULES = Path(__file__).resolve().parent / "data" / "rules"
SOURCES = [p.read_text() for p in sorted(EXAMPLES.glob("*.spvasm")) + sorted(RULES.glob("*-pass.spvasm"))]
# Pieces an editor produces: characters, tokens, whole lines, CRLF, tabs, non-ASCII, quotes.
PIECES = ["", " ", "%", "x", "=", '"', ";", "|", "\t", "\r\n", "\n", "é", "😀", "\x00", "Op", "%a = OpIAdd %u32 %b %c",
          "OpCapability Shader\n", "OpBranch %entry\n", "%x = OpLabel\n", "Unroll|DontUnroll", "0x1.8p+1", "!7"]
LATE_IMPORT = """\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%main = OpFunction %void None %fn
%entry = OpLabel
 %q = OpExtInst %float %glsl Sqrt %never_defined
OpReturn
OpFunctionEnd
%glsl = OpExtInstImport "GLSL.std.450"
"""
MISPLACED_DECORATION = """\
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %arr ArrayStride 16
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%arr = OpTypeRuntimeArray %float
%main = OpFunction %void None %fn
%entry = OpLabel
OpDecorate %arr ArrayStride 16
%u = OpUndef %float
 %v = OpFAdd %float %u %u
OpReturn
OpFunctionEnd
"""


def _fresh_equal(doc: Document, env=None) -> Document:
    fresh = Document(doc.text)
    assert doc.lines == fresh.lines
    assert doc.span == fresh.span
    return fresh


def _index(analysis) -> tuple[dict, dict]:
    """Where each id is defined and used, in order: what references, rename and the checks read."""
    m = analysis.module
    uses = {k: [(i.line, o.token.start) for i, o in m.references(k)] for k, v in m.uses.items() if v}
    return {k: i.line for k, i in m.defs.items()}, uses


edit = st.tuples(st.integers(0, 10_000), st.integers(0, 200), st.integers(0, 3), st.integers(0, 40),
                 st.sampled_from(PIECES))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(src=st.sampled_from(SOURCES), edits=st.lists(edit, min_size=1, max_size=12))
# Found by CI's seed: a blank line typed into a bodiless function re-checked it in place, where its
# judgment as a declaration (structure.declaration-import) was left out.
@example(
    src=(RULES / "structure-linkage-pass.spvasm").read_text(),
    edits=[(0, 0, 2, 0, ""), (0, 0, 3, 0, ""), (0, 0, 3, 0, ""), (3, 0, 0, 0, "\r\n"), (2383, 0, 0, 0, "")],
)
# And layout.missing-memory-model, which sits on a function's OpFunction when no line above it parses.
@example(
    src=(RULES / "structure-linkage-pass.spvasm").read_text(),
    edits=[(0, 0, 2, 0, "%"), (0, 1, 3, 0, ""), (1, 0, 3, 16, ""), (3, 0, 0, 0, "\r\n"), (2383, 0, 0, 0, "")],
)
# Found by the fuzzer: an OpExtInst naming a set imported further down resolves none of its operands
# in a fresh build, so a re-check of its line in place must not resolve them either.
@example(src=LATE_IMPORT, edits=[(9, 0, 0, 1, " ")])
# And an annotation misplaced in a function body, which the decorations family judges whole only.
@example(src=MISPLACED_DECORATION, edits=[(13, 0, 0, 1, " ")])
def test_incremental_edits_match_fresh_parse_and_analysis(src, edits):
    doc = Document(src)
    previous = analyze(doc)
    for line, col, dl, dc, text in edits:
        n = len(doc.texts)
        sl = line % n
        el = min(n - 1, sl + dl)
        doc.replace((sl, col), (el, dc), text)
        fresh_doc = _fresh_equal(doc)
        previous = analyze(doc, previous=previous)
        fresh = analyze(fresh_doc)
        assert previous.diagnostics == fresh.diagnostics
        assert _index(previous) == _index(fresh)
        assert symbols.document_symbols(previous.module) == symbols.document_symbols(fresh.module)
        assert symbols.folding_ranges(previous.module) == symbols.folding_ranges(fresh.module)
        assert tokens.semantic_tokens(previous.module) == tokens.semantic_tokens(fresh.module)
        m = previous.module
        for probe in range(3):
            ln = (sl + probe) % len(doc.texts)
            c = random.Random(ln).randint(0, len(doc.texts[ln]) + 2)
            completion.complete(m, ln, c)
            hover.hover(m, ln, c)
            signature.signature_help(m, ln, c)
            navigation.references(m, ln, c)
            navigation.definition(m, ln, c)
            it = calls.function_at(m, ln, c)
            if it is not None:
                calls.incoming(m, it.id)
                calls.outgoing(m, it.id)
        formatting.format_lines(doc)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(SOURCES), st.integers(0, 500), st.sampled_from(["x", " ", "1", "%", "Op"]))
def test_typing_inside_a_function_is_incremental_and_exact(src, pick, char):
    doc = Document(src)
    a = analyze(doc)
    body = [i.line for f in a.module.functions for i in a.module.insts_in(f)
            if i.opname not in ("OpFunction", "OpFunctionEnd", "OpLabel")]
    if not body:
        return
    n = body[pick % len(body)]
    doc.replace((n, len(doc.texts[n])), (n, len(doc.texts[n])), char)
    b = analyze(doc, previous=a)
    fresh = analyze(Document(doc.text))
    assert b.diagnostics == fresh.diagnostics
    assert _index(b) == _index(fresh)
    assert symbols.document_symbols(b.module) == symbols.document_symbols(fresh.module)
    assert tokens.semantic_tokens(b.module) == tokens.semantic_tokens(fresh.module)
