"""A keystroke re-checks only the lines it can change (checks/scope.py): the exact lines each
family re-checks, and, over random edits, an incremental analysis equal to a fresh one."""

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spvls.checks import analyze
from spvls.checks.scope import Lines
from spvls.syntax.document import Document

ROOT = Path(__file__).resolve().parents[2]
HEAD = """OpCapability Shader
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%int = OpTypeInt 32 1
%fn = OpTypeFunction %void
%one = OpConstant %int 1
"""
BODY = """%f = OpFunction %void None %fn
%l = OpLabel
%a = OpIAdd %int %one %one
%b = OpIAdd %int %a %one
%c = OpIMul %int %b %one
%d = OpISub %int %a %b
%e = OpIAdd %int %q %one
OpReturn
OpFunctionEnd
"""
TEXT = HEAD + BODY  # %a on line 8, its users on 9 and 11; line 12 names %q, never defined


def _edit(text: str, line: int, new: str):
    doc = Document(text)
    a = analyze(doc)
    doc.replace((line, 0), (line, len(doc.texts[line])), new)
    b = analyze(doc, previous=a)
    fresh = analyze(Document(doc.text))
    assert b.diagnostics == fresh.diagnostics
    return a, b


def _lines(analysis, family: str):
    scope = analysis.scopes[family]
    return scope.lines if isinstance(scope, Lines) else scope


def test_an_edit_keeping_the_id_rechecks_the_line_and_the_lines_naming_it():
    _, b = _edit(TEXT, 8, "%a = OpISub %int %one %one")
    assert b.rechecked is not None
    for family in ("syntax", "operands", "ids", "capabilities", "types", "arith", "memory", "rotate", "ballot"):
        assert _lines(b, family) == (8, 9, 11), family
    assert b.scopes["structure"] is b.rechecked and b.scopes["reconvergence"] is b.rechecked


def test_a_rename_also_rechecks_the_lines_the_family_reported_on():
    a, b = _edit(TEXT, 8, "%z = OpIAdd %int %one %one")
    assert [d.line for d in a.by_family["ids"]] == [12]  # %q
    # The line, %a's users (now undefined) and, as an id was renamed, line 12: %q's suggestion
    # reads the ids visible in the function.
    assert _lines(b, "ids") == (8, 9, 11, 12)
    assert _lines(b, "arith") == (8, 9, 11)  # arith reported nothing
    assert {(d.line, d.code) for d in b.by_family["ids"]} == {(9, "id.undefined"), (11, "id.undefined"), (12, "id.undefined")}


def test_a_new_id_changes_the_suggestion_on_a_line_that_does_not_name_it():
    a, b = _edit(TEXT, 8, "%qq = OpIAdd %int %one %one")
    before = next(d for d in a.diagnostics if d.line == 12)
    after = next(d for d in b.diagnostics if d.line == 12)
    assert "did you mean %qq?" in after.message and before.message != after.message


def test_a_line_defining_an_id_used_as_a_result_type_rechecks_the_function():
    text = TEXT.replace("%c = OpIMul %int %b %one", "%c = OpIMul %a %b %one")
    _, b = _edit(text, 8, "%a = OpISub %int %one %one")
    assert all(s is b.rechecked for s in b.scopes.values())


def test_an_opline_edit_rechecks_the_function():
    text = HEAD.replace("%one", '%src = OpString "a.glsl"\n%one', 1) + BODY.replace(
        "%a = OpIAdd", "OpLine %src 3 1\n%a = OpIAdd"
    )
    n = text.split("\n").index("OpLine %src 3 1")
    _, b = _edit(text, n, "OpLine %src 4 1")
    assert b.rechecked is not None
    assert all(s is b.rechecked for s in b.scopes.values())


def test_a_missing_function_end_stays_reported_after_an_edit_in_the_next_function():
    # structure.function-end of %f lies on %g's OpFunction line, inside %g.
    text = HEAD + BODY.replace("OpFunctionEnd\n", "") + BODY.replace("%f =", "%g =").replace("%l =", "%m =")
    g = text.split("\n").index("%g = OpFunction %void None %fn")
    a, b = _edit(text, g + 2, "%a = OpISub %int %one %one")
    end = [(d.line, d.code) for d in b.diagnostics if d.code == "structure.function-end"]
    assert end == [(g, "structure.function-end")]


def test_a_large_function_rechecks_only_the_edited_line_and_its_users():
    body = "".join(f"%v{k} = OpIAdd %int %one %one\n%w{k} = OpIMul %int %v{k} %one\n" for k in range(2000))
    text = HEAD + "%f = OpFunction %void None %fn\n%l = OpLabel\n" + body + "OpReturn\nOpFunctionEnd\n"
    n = text.split("\n").index("%v700 = OpIAdd %int %one %one")
    _, b = _edit(text, n, "%v700 = OpISub %int %one %one")
    assert _lines(b, "arith") == (n, n + 1)


def _sources() -> list[str]:
    paths = sorted((ROOT / "tests" / "data" / "rules").glob("*.spvasm")) + sorted((ROOT / "examples").glob("*.spvasm"))
    return [p.read_text() for p in paths]


SOURCES = _sources()
ID = re.compile(r"%[A-Za-z0-9_]+")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    src=st.sampled_from(SOURCES),
    edits=st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 4), st.integers(0, 10_000), st.sampled_from("xa1_ %")),
        min_size=1,
        max_size=4,
    ),
)
def test_incremental_equals_fresh_after_renames_typos_and_typing(src, edits):
    """Each edit on a line inside a function: an id renamed to another id of the module, a typo in
    an id, a fresh name, a character typed or deleted; after each, the in-place analysis says
    what a fresh one does."""
    doc = Document(src)
    a = analyze(doc)
    for pick, kind, where, char in edits:
        m = a.module
        body = [
            i.line
            for f in m.functions
            for i in m.insts_in(f)
            if i.opname not in ("OpFunction", "OpFunctionEnd", "OpLabel")
        ]
        if not body:
            return
        n = body[pick % len(body)]
        t = doc.texts[n]
        ids = list(ID.finditer(t))
        if kind < 3 and ids:
            hit = ids[where % len(ids)]
            s = hit.group()
            if kind == 0:
                s = sorted(m.defs)[where % len(m.defs)]
            elif kind == 1:
                s = s[:-1] + char if len(s) > 2 else s + char
            else:
                s = f"%fresh{where % 7}"
            new = t[: hit.start()] + s + t[hit.end() :]
        elif kind == 3:
            k = where % (len(t) + 1)
            new = t[:k] + char + t[k:]
        else:
            k = where % (len(t) + 1)
            new = t[:k] + t[k + 1 :]
        doc.replace((n, 0), (n, len(t)), new)
        a = analyze(doc, previous=a)
        fresh = analyze(Document(doc.text))
        assert a.diagnostics == fresh.diagnostics
