"""Parse one line of SPIR-V assembly with the Lark grammar.

A parsed line keeps every token with its exact column range (code points,
0-based, end exclusive). A line that does not parse still yields its tokens,
so ids it defines and uses stay visible to the rest of the tools.
"""

from __future__ import annotations

import gc
import io
import re
import unicodedata
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

import lark
from lark import Lark, Transformer, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..compiled import mypyc_attr
from ..spec import builtcache
from .interning import Interned

if TYPE_CHECKING:  # a machine integer to the compiled build; annotations are not run (a pure install lacks it)
    from mypy_extensions import i64


class Token(NamedTuple):
    kind: str  # ID, OPNAME, WORD, INT, FLOAT, STRING, RAW, COMMENT
    text: str
    start: int
    end: int


class SyntaxProblem(NamedTuple):
    start: int
    end: int
    message: str


class LineFields(NamedTuple):
    """The fields every Line starts with. A hot loop of the compiled build reads them through a
    variable of this type: mypyc reads a NamedTuple's field as a tuple item, a Line's (a class it
    does not compile) by name."""

    text: str
    # The text with each id written '%', for clean lines without strings or comments:
    # lines of one shape parse, and match the grammar, alike.
    shape: str | None
    result: Token | None
    opcode: Token | None


_FIELDS = ("text", "result", "opcode", "operands", "comment", "error", "shape")  # as Line() takes them


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class _Declared(LineFields):
    """What a Line holds besides LineFields, as the type checker sees it (Line and NotedLine read
    each from their own items)."""

    __slots__ = ()
    operands: tuple[Token, ...] = ()
    comment: Token | None = None
    error: SyntaxProblem | None = None


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class Line(_Declared):
    """A parsed line: one tuple of its LineFields then its operands, no tuple of its own for them
    (most lines have some). A line with a comment or a syntax error is a NotedLine, which holds both
    between the two (paid only by those lines). Made as
    Line(text, result, opcode, operands, comment, error, shape)."""

    __slots__ = ()
    operands = property(itemgetter(slice(4, None)))  # type: ignore[assignment]

    def __new__(
        cls,
        text: str,
        result: Token | None,
        opcode: Token | None,
        operands: tuple[Token, ...],
        comment: Token | None,
        error: SyntaxProblem | None = None,
        shape: str | None = None,
    ) -> Line:
        if comment is None and error is None:
            return tuple.__new__(Line, (text, shape, result, opcode, *operands))
        return tuple.__new__(NotedLine, (text, shape, result, opcode, comment, error, *operands))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def _replace(self, **changes: Any) -> Line:
        return Line(**{**{name: getattr(self, name) for name in _FIELDS}, **changes})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in _FIELDS)})"

    @property
    def tokens(self) -> list[Token]:
        out = [t for t in (self.result, self.opcode) if t]
        out.extend(self.operands)
        if self.comment:
            out.append(self.comment)
        return out

    def token_at(self, col: int) -> Token | None:
        for t in self.tokens:
            if t.start <= col <= t.end:
                return t
        return None


@mypyc_attr(native_class=False)  # a tuple or list subclass: mypyc compiles none
class NotedLine(Line):
    """A line with a comment or a syntax error (see Line)."""

    __slots__ = ()
    comment = property(itemgetter(4))  # type: ignore[assignment]
    error = property(itemgetter(5))  # type: ignore[assignment]
    operands = property(itemgetter(slice(6, None)))  # type: ignore[assignment]


def _tok(t: Any) -> Token:  # a lark.Token, its positions set (Lark's stubs say Optional)
    return Token(t.type, str(t), t.start_pos, t.end_pos)


class _ToLine(Transformer):
    """Builds the line while Lark parses: no parse tree is kept."""

    def instruction(self, items: list[lark.Token]) -> tuple[Token | None, Token, tuple[Token, ...]]:
        toks = [_tok(t) for t in items]
        result = toks.pop(0) if toks[0].kind == "ID" else None
        return result, toks[0], tuple(toks[1:])

    def line(self, items: list[Any]) -> tuple[object, Token | None]:
        inst = comment = None
        for it in items:
            if isinstance(it, tuple):
                inst = it
            else:
                comment = _tok(it)
        return inst, comment


def grammar_text() -> str:
    """The project's grammar/spvasm.lark: read from the source tree, or from spvls/grammar/ in an installed
    wheel (pyproject.toml maps the package spvls.grammar to grammar/)."""
    source = Path(__file__).resolve().parents[2] / "grammar" / "spvasm.lark"
    if source.is_file():
        return source.read_text(encoding="utf-8")
    from importlib import resources  # here: a checkout reads the file, and the import costs a start

    installed = resources.files("spvls") / "grammar" / "spvasm.lark"
    if installed.is_file():
        return installed.read_text(encoding="utf-8")
    raise FileNotFoundError("grammar/spvasm.lark")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    """Lark's tables for our grammar, from the built cache when the grammar, this module (its
    transformer) and Lark are unchanged."""
    text = grammar_text()
    key = builtcache.key_of([lark.__version__, text, Path(__file__).read_bytes()])

    def build() -> Lark:
        return Lark(
            text, start="line", parser="lalr", lexer="contextual", transformer=_ToLine(), maybe_placeholders=False
        )

    parser = builtcache.built("parser.pickle", key, lambda: _Saved(build()))
    gc.collect(0)  # Lark's construction leaves cycles; while a document is built the collector is paused
    return parser.lark


@mypyc_attr(native_class=False)  # pickle makes one without its __init__, which a native class refuses
class _Saved:
    """A Lark parser pickled through Lark's own save/load, which keeps its tables and our transformer."""

    def __init__(self, parser: Lark) -> None:
        self.lark = parser

    def __getstate__(self) -> bytes:
        out = io.BytesIO()
        self.lark.save(out)
        return out.getvalue()

    def __setstate__(self, state: bytes) -> None:
        self.lark = Lark.load(io.BytesIO(state))


# Fallback tokenizer for lines Lark rejects: same token shapes, plus anything else.
_FALLBACK = re.compile(
    r'(?P<COMMENT>;.*)|(?P<STRING>"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+'
    r'(?:"(?:[^\s;"\\]*+(?:\\[\s\S][^\s;"\\]*+)*+"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+")*+)?)|(?P<ID>%[^\s;="]*)'
    r"|(?P<OPNAME>Op[A-Za-z0-9_]*)|(?P<RAW>!\w+)"
    r"|(?P<NUM>[-+]?[0-9.][0-9A-Za-z.+-]*)|(?P<WORD>[A-Za-z_][\w|]*)|(?P<EQ>=)|(?P<OTHER>\S+)"
)


def _fallback(text: str, problem: SyntaxProblem) -> Line:
    toks = []
    for m in _FALLBACK.finditer(text):
        kind = m.lastgroup or "OTHER"  # every alternative of _FALLBACK is a named group
        if kind == "NUM":
            kind = _num_kind(m.group())
        toks.append(Token(kind, m.group(), m.start(), m.end()))
    comment = toks.pop() if toks and toks[-1].kind == "COMMENT" else None
    result = opcode = None
    if len(toks) >= 2 and toks[0].kind == "ID" and toks[1].kind == "EQ":
        result = toks[0]
        toks = toks[2:]
    if toks and toks[0].kind == "OPNAME":
        opcode = toks.pop(0)
    operands = tuple(t for t in toks if t.kind != "EQ")
    return Line(text, result, opcode, operands, comment, problem)


_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|[0-9]+)")
_FLOAT = re.compile(
    r"[-+]?(0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][-+]?[0-9]+"
    r"|([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)"
)


def int_value(text: str) -> int | None:
    """An integer literal's value as spirv-as reads it (decimal, hex, signed), or None."""
    if not _INT.fullmatch(text):
        return None
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    return sign * (int(body, 16) if body[:2].lower() == "0x" else int(body, 10))


def _num_kind(text: str) -> str:
    """Same number shapes as the grammar's INT and FLOAT; anything else is not a number."""
    if _INT.fullmatch(text):
        return "INT"
    return "FLOAT" if _FLOAT.fullmatch(text) else "OTHER"


def _describe(tok: str) -> str:
    return "end of line" if not tok else repr(tok)


_CONTROL_NAMES = {"\x0c": "form feed", "\x0b": "vertical tab"}  # unicodedata names no control character


def _problem(text: str, err: UnexpectedInput) -> SyntaxProblem:
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            end = len(text.rstrip())
            return SyntaxProblem(max(end - 1, 0), end, _end_message(text))
        start = tok.start_pos
        return SyntaxProblem(start, tok.end_pos or start + 1, _token_message(str(tok), tok.type, err))
    if isinstance(err, UnexpectedCharacters):
        # lark declares pos_in_stream None on the base class; UnexpectedCharacters always sets an int.
        # Read untyped: the compiled build would check the int against the declared None.
        start = getattr(err, "pos_in_stream", None) or 0
        m = re.compile(r"\S*").match(text, start)
        end = max(m.end() if m else start, start + 1)
        bad = text[start:end]
        if bad.startswith('"'):
            return SyntaxProblem(start, len(text), "unterminated string literal: add the closing '\"'")
        if bad.isspace():
            return SyntaxProblem(
                start,
                start + 1,
                f"{_CONTROL_NAMES.get(bad[0]) or unicodedata.name(bad[0], repr(bad[0])).lower()} "
                f"(U+{ord(bad[0]):04X}) is not whitespace for spirv-as: use a space or a tab",
            )
        if bad.startswith("!"):
            return SyntaxProblem(start, end, f"invalid raw word {bad!r}: write !<integer>, e.g. !5")
        return SyntaxProblem(start, end, f"unexpected {bad!r}: not an id, name, number or string")
    return SyntaxProblem(0, len(text), "cannot parse this line")


def _end_message(text: str) -> str:
    if re.match(r"\s*%\S*\s*=\s*$", text.split(";")[0]):
        return "expected an instruction after '='"
    return "unexpected end of line"


def _token_message(tok: str, kind: str, err: UnexpectedToken) -> str:
    if kind == "OPNAME" and err.state is not None:
        return f"unexpected {tok!r}: one instruction per line"
    if kind in ("WORD", "INT", "FLOAT", "STRING", "RAW") and "OPNAME" in err.expected:
        return f"expected an instruction (Op...) but found {tok!r}"
    if kind == "ID" and "OPNAME" in err.expected:
        return f"expected '=' after {tok!r}, or an instruction (Op...) at the start of the line"
    if kind == "__ANON_0" or tok == "=":
        return "unexpected '=': a result id must come first, as '%name = Op...'"
    return f"unexpected {_describe(tok)}"


class Stats:
    """Counts Lark's parses, and the lines a Document parsed (the caches may spare a line Lark):
    tests use it to prove edits re-parse only touched lines."""

    parses: ClassVar[int] = 0
    lines: ClassVar[int] = 0


# Lines that differ only in their ids parse alike: Lark parses each distinct shape once,
# and the tokens are re-placed over the line's own ids. Lines with strings or comments
# (where '%' may be text) always go to Lark whole.
_ID = re.compile(r'%[^\s;="]*')
_ID_SPLIT = re.compile(f"({_ID.pattern})")
# The same split for an ASCII line: \s spelled out as the ASCII characters str.isspace() takes, a
# character class the regex engine tests by bitmap, not by a Unicode category per character.
_ASCII_ID_SPLIT = re.compile(r'(%[^\t-\r\x1c-\x20;="]*)')
VALID_ID = re.compile(r"%[A-Za-z0-9_]+")  # what spirv-as accepts as an id (the parser takes more)


def parse_line(text: str) -> Line:
    """Parse one line (without its newline)."""
    if '"' in text:
        return _parse_whole(text)
    one = [_NO_LINE]
    parse_lines([text], one, 0, 1)
    return one[0]


_new = tuple.__new__  # builds a Token or Line without the NamedTuple's Python-level __new__
_NO_LINE = Line("", None, None, (), None, None)  # a slot parse_lines fills


@lru_cache(maxsize=4096)
def _parse_whole(text: str) -> Line:
    """Lark's parse of a line without ids, or one the shapes do not cover. Kept per text: lines
    without ids repeat (OpReturn, OpFunctionEnd), and share one Line."""
    if '"' not in text and ";" not in text and "%" not in text:
        toks = _placed(text)  # the line is its own shape
        if toks is not None:
            out = [_new(Token, (kind, tok_text, start, start + len(tok_text))) for _, kind, tok_text, start in toks]
            return _new(Line, (text, None, None, *out))
    return _comment_only(text) or _parse(text)


def _comment_only(text: str) -> Line | None:
    """A line of blanks, or of blanks then a comment, as Lark reads it, without Lark (a cold open
    met a Lark parse for each line of spirv-dis' header); None for any other line."""
    body = text.lstrip(" \t")
    if not body:
        return Line(text, None, None, (), None, None)
    if body[0] != ";" or "\n" in body or "\x00" in body:  # (Lark's COMMENT stops at a newline; NUL is an error)
        return None
    return Line(text, None, None, (), _new(Token, ("COMMENT", body, len(text) - len(body), len(text))), None)


class _Shape(NamedTuple):
    """A clean shape's tokens as (is id, kind, text, column) and the shape itself (which every line
    of that shape shares); each id's index among a Line's items and column in the shape; how many ids
    come before the last token that is not an id (only their lengths move such tokens); and those
    tokens, built once per layout of those lengths: lines laid out alike (spirv-dis right-aligns
    result ids) share them."""

    has_result: bool
    toks: tuple[tuple[bool, str, str, int], ...]
    text: str
    ids: tuple[tuple[int, int], ...]
    leading: int
    layouts: dict[int | tuple[int, ...] | None, list[Token | str | None]]  # by _layout's key


def _shape(toks: tuple[tuple[bool, str, str, int], ...], shape: str) -> _Shape:
    """A shape's template from its tokens (see _Shape)."""
    fixed = [k for k, t in enumerate(toks) if not t[0]]
    leading = sum(1 for t in toks[: fixed[-1]] if t[0]) if fixed else 0
    first = 2 if toks[0][0] else 3  # a Line's items: text, shape, result, opcode, operands
    ids = tuple((first + k, t[3]) for k, t in enumerate(toks) if t[0])
    return _Shape(toks[0][0], toks, shape, ids, leading, {})


# A word alone between spaces or tabs: an Op name, a name (enumerant, extended instruction), a
# decimal integer or decimal float. Lark reads each as one token whose kind follows from its class
# alone (Op name, other name, integer, float; see _stand_in), never from its spelling: so a shape
# is parsed with every such word written as its class's stand-in, and 95,000 distinct unknown
# opcodes are one Lark parse. tests/unit/test_parser.py holds this against Lark on every line.
_WORD = re.compile(r"(?<![^ \t])(Op[A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|[-+]?[0-9]+(?:\.[0-9]+)?)(?![^ \t])")


def _stand_in(word: str) -> str:
    if word[0] in "+-0123456789":
        return "0.0" if "." in word else "0"
    return "Op" if word.startswith("Op") else "a"


# Each shape's template, None for a shape with an error: a dict, not an lru_cache, as parse_lines
# asks it for each line and the compiled build looks a dict up directly (an lru_cache is a call,
# dearer than the lookup). Emptied when full.
_templates: dict[str, _Shape | None] = {}
_MAX_SHAPES = 16384


def _template(shape: str) -> _Shape | None:
    """A shape's template, or None when the shape has an error."""
    if shape in _templates:
        return _templates[shape]
    toks = _placed(shape)
    template = None if toks is None else _shape(tuple(toks), shape)
    if len(_templates) >= _MAX_SHAPES:
        _templates.clear()
    _templates[shape] = template
    return template


def _placed(shape: str) -> list[tuple[bool, str, str, int]] | None:
    """A shape's tokens as (is id, kind, text, column), or None when it has an error: Lark's parse
    of the shape with its words written as stand-ins, the words then put back."""
    parts = _WORD.split(shape)
    if len(parts) == 1:
        return _direct(shape)
    words = parts[1::2]
    plan = _plan("".join([p + _stand_in(w) for p, w in zip(parts[::2], words, strict=False)]) + parts[-1])
    if plan is None:
        return None
    if not plan:
        return _direct(shape)
    toks = []
    shift = k = 0
    for is_id, kind, tok_text, start, stand_in in plan:
        if stand_in:
            word = words[k]
            toks.append((is_id, kind, word, start + shift))
            shift += len(word) - stand_in
            k += 1
        else:
            toks.append((is_id, kind, tok_text, start + shift))
    return toks


def _direct(shape: str) -> list[tuple[bool, str, str, int]] | None:
    direct = _lark_template(shape)
    return None if direct is None else list(direct.toks)


@lru_cache(maxsize=4096)
def _plan(abstract: str) -> tuple[tuple[bool, str, str, int, int], ...] | None:
    """Lark's tokens of a shape whose words are stand-ins, each marked with its stand-in's length
    where a word goes (0 elsewhere); None when the shape has an error, () when a stand-in is not
    one token (not the case in this grammar, but Lark decides)."""
    toks = _plain(abstract)
    if toks is None:
        template = _lark_template(abstract)
        if template is None:
            return None
        toks = template.toks
    parts = _WORD.split(abstract)
    cols = set()  # the column of each stand-in, and the stand-in
    col = 0
    for lit, stand_in in zip(parts[::2], parts[1::2], strict=False):
        col += len(lit)
        cols.add((col, stand_in))
        col += len(stand_in)
    plan = []
    for is_id, kind, tok_text, start in toks:
        marked = (start, tok_text) in cols
        plan.append((is_id, kind, tok_text, start, len(tok_text) if marked else 0))
    return tuple(plan) if sum(1 for p in plan if p[4]) == len(cols) else ()


# What Lark reads each blank-separated piece of a plain shape as: an id, or a word's stand-in.
_PLAIN_OPERANDS = {"%": "ID", "a": "WORD", "0": "INT", "0.0": "FLOAT"}
_PIECE = re.compile(r"[^ \t]+")


def _plain(abstract: str) -> tuple[tuple[bool, str, str, int], ...] | None:
    """The tokens of a shape whose words are stand-ins when it is `[% =] Op operand...`, every piece
    between blanks (the spaces and tabs the grammar ignores) an id or a stand-in: what Lark makes of
    it, read without Lark (a cold open met a Lark parse for each of its few dozen shapes, a third
    of a 10k-line parse). None for any other shape, which Lark reads. tests/unit/test_parser.py
    holds the two equal over every corpus shape and random lines."""
    pieces = [(m.group(), m.start()) for m in _PIECE.finditer(abstract)]
    first = 2 if len(pieces) >= 3 and pieces[0][0] == "%" and pieces[1][0] == "=" else 0
    if len(pieces) <= first or pieces[first][0] != "Op":
        return None
    toks = [(True, "ID", "%", pieces[0][1])] if first else []
    toks.append((False, "OPNAME", "Op", pieces[first][1]))
    for piece, start in pieces[first + 1 :]:
        kind = _PLAIN_OPERANDS.get(piece)
        if kind is None:
            return None
        toks.append((kind == "ID", kind, piece, start))
    return tuple(toks)


@lru_cache(maxsize=16384)
def _lark_template(shape: str) -> _Shape | None:
    """Lark's parse of a shape as a template, or None when the shape has an error."""
    line = _parse(shape)
    if line.error is not None or line.opcode is None:
        return None
    toks = ([line.result] if line.result else []) + [line.opcode, *line.operands]
    return _shape(tuple((t.kind == "ID", t.kind, t.text, t.start) for t in toks), shape)


_MAX_LAYOUTS = 64


_interned = Interned()  # see syntax/interning.py


def forget_ids() -> None:
    """Empty this thread's interned ids."""
    _interned.id_at.clear()
    _interned.last.clear()


def _layout(template: _Shape, key: int | tuple[int, ...] | None) -> list[Token | str | None]:
    """A Line's items but the text and the ids (None in their places): the shape, and the tokens
    that are not ids placed for leading ids of these lengths. The key: None without leading ids, the
    length of the one, or the lengths of several."""
    lengths = () if key is None else (key,) if isinstance(key, int) else key
    fixed: list[Token | str | None] = [None, template.text] if template.has_result else [None, template.text, None]
    shift = k = 0
    for is_id, kind, tok_text, start in template.toks:
        if is_id:
            fixed.append(None)
            shift += lengths[k] - 1 if k < len(lengths) else 0
            k += 1
        else:
            start += shift
            fixed.append(_new(Token, (kind, tok_text, start, start + len(tok_text))))
    if len(template.layouts) < _MAX_LAYOUTS:
        template.layouts[key] = fixed
    return fixed


# Whether this module runs compiled (tools/compiled.py), as black tells: there a loop over a line's
# characters is native code, and splits it in a fraction of the regex engine's time; interpreted,
# such a loop is far slower than the regex.
_COMPILED: Final = Path(__file__).suffix in (".so", ".pyd")


def _split_ids(text: str, ids: list[str]) -> str | None:
    """_ID_SPLIT's split of a line, read character by character: the shape (each id written '%'),
    the ids appended to `ids`. None when an id holds a character beyond ASCII (`ids` then holds
    some), which the regex reads."""
    pieces = []
    prev = 0
    size: i64 = len(text)
    at = text.find("%")
    while at >= 0:
        end: i64 = at + 1
        while end < size:
            c: i64 = ord(text[end])
            # _ASCII_ID_SPLIT's stops: \t-\r, \x1c-\x20, '"', ';', '='
            if c <= 32 and (c >= 28 or 9 <= c <= 13) or c == 34 or c == 59 or c == 61:
                break
            if c >= 128:
                return None
            end += 1
        pieces.append(text[prev:at])
        ids.append(text[at:end])
        prev = end
        at = text.find("%", end)
    pieces.append(text[prev:])
    return "%".join(pieces)


def parse_lines(texts: list[str], lines: list[Line], i: int, stop: int, all_ascii: bool = False) -> int:
    """Parse texts[i:stop] into lines[i:stop], each as parse_line would, up to the first that holds
    a quote (its string may run on over the next lines: the Document groups them). Returns where it
    stopped. The loop of a Document's build, with no call per line where the line's shape is known:
    the shape's tokens are moved over the line's own ids (each '%' in the shape is one id). all_ascii:
    every text is ASCII (the caller knows it of the whole text at no cost; else each line is asked)."""
    split, ascii_split, join = _ID_SPLIT.split, _ASCII_ID_SPLIT.split, "%".join
    templates, template_of, whole = _templates, _template, _parse_whole
    new, token_class, line_class = _new, Token, Line  # locals: the compiled build looks a global up by name
    interned = _interned
    last, id_at = interned.last, interned.id_at
    while i < stop:
        text = texts[i]
        if '"' in text:
            break
        template = None
        if ";" not in text and "%" in text:
            shape = None
            if _COMPILED:
                ids: list[str] = []
                shape = _split_ids(text, ids)
            if shape is None:
                # The text between ids, and the ids
                parts = ascii_split(text) if all_ascii or text.isascii() else split(text)
                shape = join(parts[::2])
                ids = parts[1::2]
            template = templates.get(shape)
            if template is None:
                template = template_of(shape)
        if template is None:
            lines[i] = whole(text)
            i += 1
            continue
        leading = template.leading
        key = None if not leading else len(ids[0]) if leading == 1 else tuple(map(len, ids[:leading]))
        fixed = template.layouts.get(key)
        out = (fixed if fixed is not None else _layout(template, key)).copy()
        if len(text) > len(id_at):  # a table for each column an id may start at
            id_at.extend({} for _ in range(len(text) - len(id_at)))
        shift = 0  # how far the ids so far moved the next from its column in the shape
        for j, (k, col) in enumerate(template.ids):  # (a loop the compiled build makes native; zip's is not)
            tok_text = ids[j]
            start = col + shift
            size = len(tok_text)
            shift += size - 1
            here = id_at[start]
            tok = here.get(tok_text)
            if tok is None:
                same = last.get(tok_text)
                if same is None:
                    tok = last[tok_text] = new(token_class, ("ID", tok_text, start, start + size))
                else:
                    tok_text = same[1]
                    tok = new(token_class, ("ID", tok_text, start, start + size))
                here[tok_text] = tok
            out[k] = tok
        out[0] = text
        lines[i] = new(line_class, out)
        i += 1
    return i


def _parse(text: str) -> Line:
    Stats.parses += 1
    if len(text) > 20000 and "\x00" in text:
        return Line(
            text, None, None, (), None, SyntaxProblem(0, len(text), "binary data: this is not SPIR-V assembly text")
        )
    if "\x00" in text:
        pos = text.index("\x00")
        return _fallback(text, SyntaxProblem(pos, pos + 1, "NUL character: this is not SPIR-V assembly text"))
    try:
        # lark types parse() as returning a Tree; our transformer makes it this tuple.
        parsed: tuple[tuple[Token | None, Token, tuple[Token, ...]] | None, Token | None]
        parsed = _parser().parse(text)  # type: ignore[assignment]
        inst, comment = parsed
    except UnexpectedInput as err:
        return _fallback(text, _problem(text, err))
    if inst is None:
        return Line(text, None, None, (), comment, None)
    result, opcode, operands = inst
    glued = _glued(text, result, opcode, operands)
    if glued is not None:
        return _fallback(text, glued)
    return Line(text, result, opcode, operands, comment, None)


_EQ = re.compile(r"[ \t]+=[ \t]+")


def _glued(text: str, result: Token | None, opcode: Token, operands: tuple[Token, ...]) -> SyntaxProblem | None:
    """spirv-as splits a line into words at whitespace only (and ';'): 'OpName%x' or '%a=' is
    one word to it, which Lark alone would read as two tokens."""
    if result is not None and not _EQ.fullmatch(text, result.end, opcode.start):
        return SyntaxProblem(
            result.start,
            opcode.end,
            "write spaces around '=': spirv-as reads "
            f"{next(w for w in text[result.start : opcode.end].split() if '=' in w)!r} as one word",
        )
    prev = opcode
    for tok in operands:
        if tok.start == prev.end:
            return SyntaxProblem(
                prev.start,
                tok.end,
                f"put a space between {prev.text!r} and {tok.text!r}: "
                f"spirv-as reads {text[prev.start : tok.end]!r} as one word",
            )
        prev = tok
    return None


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def string_value(text: str) -> str:
    """A string literal's value as spirv-as reads it: the quotes off (one each side: a closing `\\"`
    is a quote of the value) and each backslash escape replaced by the character it escapes."""
    if text.startswith('"'):
        text = text[1:-1] if len(text) >= 2 and text.endswith('"') and not _escaped_end(text) else text[1:]
    return _ESCAPE.sub(r"\1", text)


def _escaped_end(text: str) -> bool:
    """Whether the final quote is escaped (an odd run of backslashes before it): an unclosed string."""
    run = len(text) - 1 - len(text[:-1].rstrip("\\"))
    return run % 2 == 1


def version_from_comment(text: str) -> tuple[int, int] | None:
    """`; Version: 1.3` as spirv-dis writes it in the header."""
    m = re.match(r"\s*;\s*Version:\s*(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None
