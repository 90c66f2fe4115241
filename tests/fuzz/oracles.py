"""What must hold for any input: the oracles the fuzzer checks."""
from __future__ import annotations

import re
import shutil
import tempfile
import traceback

from spvls.binding import spirv_tools
from spvls.checks import analyze
from spvls.features.formatting import format_lines
from spvls.syntax.document import Document, paired
from tests.reliability.rawlsp import Server


def as_file(text: str) -> str:
    """The text as `spvls check` reads it from a file (UTF-8, bad bytes replaced)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def formatted(text: str) -> str:
    doc = Document(text)
    lines, breaks = list(doc.texts), list(doc.breaks)
    for n, _old, new in format_lines(doc):
        lines[n] = new
    return "".join(t + b for t, b in zip(lines, breaks, strict=False))


def assembled(text: str) -> bytes | str:
    """The module spirv-as makes (bytes), or its error message (str)."""
    r = spirv_tools.assemble(text)
    return r.message if isinstance(r, spirv_tools.Failure) else bytes(r)


def check_and_format(text: str) -> list[str]:
    """`check` never raises; `format` keeps what spirv-as makes or rejects, and is idempotent."""
    text = as_file(text)
    found = []
    try:
        found += in_place(text)
    except Exception:  # that is the finding
        found.append("check raised:\n" + traceback.format_exc())
    try:
        once = formatted(text)
        twice = formatted(once)
    except Exception:
        return found + ["format raised:\n" + traceback.format_exc()]
    if twice != once:
        found.append("format is not idempotent")
    if once != text:
        before, after = assembled(text), assembled(once)
        if isinstance(before, bytes) != isinstance(after, bytes) or (isinstance(before, bytes) and before != after):
            found.append(f"format changed what spirv-as makes: before {_short(before)}, after {_short(after)}")
    return found


def _key(d) -> tuple:
    # related and fixes as text: two diagnostics alike but for them must still sort
    return d.line, d.start, d.end, d.code, d.severity, d.message, repr(d.related), repr(d.fixes)


def in_place(text: str, functions: int = 3) -> list[str]:
    """Check the text, then retype a line of a few functions' bodies as it was: each re-check of
    one function in place must give what the fresh check gave (cheaper than an LSP session, and
    it reaches every function)."""
    doc = Document(text)
    a = analyze(doc)
    fresh = sorted(map(_key, a.diagnostics))
    found = []
    for fn in a.module.functions[:functions]:
        body = [i for b in fn.blocks for i in b.insts]
        if not body:
            continue
        n = body[len(body) // 2].line
        line = doc.texts[n]
        doc.replace((n, 0), (n, len(line)), line)
        a = analyze(doc, previous=a)
        if a.rechecked is None:
            continue
        mine = sorted(map(_key, a.diagnostics))
        if mine != fresh:
            found.append(_differs("an in-place re-check differs from a fresh check", fresh, mine))
            break
    if found or not a.module.functions:
        return found
    # Then indent those lines by one more space: in place again, and every column on them moves.
    for fn in a.module.functions[:functions]:
        body = [i for b in fn.blocks for i in b.insts]
        if body:
            n = body[len(body) // 2].line
            doc.replace((n, 0), (n, 0), " ")
            a = analyze(doc, previous=a)
    fresh = sorted(map(_key, analyze(Document(doc.text)).diagnostics))
    mine = sorted(map(_key, a.diagnostics))
    if mine != fresh:
        found.append(_differs("in-place re-checks of moved columns differ from a fresh check", fresh, mine))
    return found


def _differs(what: str, fresh: list[tuple], mine: list[tuple]) -> str:
    lost = [k[3] for k in fresh if k not in mine][:3]
    extra = [k[3] for k in mine if k not in fresh][:3]
    return f"{what}: lost {lost}, added {extra}"


def _short(r: bytes | str) -> str:
    return f"{len(r) // 4} words" if isinstance(r, bytes) else f"error {r!r}"


# -- LSP sessions ----------------------------------------------------------------------------
_BREAK = re.compile(r"\r\n|\r|\n")


def position(text: str, offset: int, encoding: str) -> dict:
    """An LSP position for a code-point offset (inside a CRLF: before it)."""
    line, start = 0, 0
    for m in _BREAK.finditer(text):
        if m.start() >= offset:
            break
        if m.end() > offset:  # between CR and LF
            offset = m.start()
            break
        line, start = line + 1, m.end()
    head = text[start:offset]
    if encoding == "utf-8":
        col = len(head.encode("utf-8", "surrogatepass"))
    elif encoding == "utf-16":
        col = len(head.encode("utf-16-le", "surrogatepass")) // 2
    else:
        col = len(head)
    return {"line": line, "character": col}


def snap(text: str, offset: int) -> int:
    """Offsets an LSP position can name: not between the CR and LF of one break."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


class Session:
    """One server, one encoding: documents edited incrementally and compared with a fresh open."""

    def __init__(self, encoding: str):
        self.encoding = encoding
        # A diagnostics cache of its own (spvls/state/cache.py): a text opened again is published
        # from it, which must say what the analysis says.
        self.cache = tempfile.mkdtemp(prefix="spvls-fuzz-cache-")
        self.server = Server(env={"SPVLS_NO_CACHE": "", "SPVLS_CACHE_DIR": self.cache})
        caps = {"general": {"positionEncodings": [encoding]}, "textDocument": {"diagnostic": {}}}
        # spirv-val off: its result arrives later, so the edited and the fresh document could be
        # compared at different points of it.
        r = self.server.initialize(caps, {"validate": "off"})
        assert r["result"]["capabilities"].get("positionEncoding", "utf-16") == encoding, r
        self.count = 0

    def close(self) -> None:
        self.server.close()
        shutil.rmtree(self.cache, ignore_errors=True)

    def _open(self, uri: str, text: str) -> None:
        self.server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "spvasm", "version": 1, "text": text}})

    def _state(self, uri: str) -> dict:
        s = self.server
        doc = {"textDocument": {"uri": uri}}
        out = {}
        for method in ("textDocument/diagnostic", "textDocument/semanticTokens/full",
                       "textDocument/documentSymbol", "textDocument/foldingRange"):
            r = s.request(method, doc, timeout=120)
            if "error" in r:
                out[method] = ("error", r["error"].get("message"))
                continue
            res = r["result"]
            if method == "textDocument/semanticTokens/full" and res:
                res = res["data"]  # the result id differs from document to document
            out[method] = res
        return _same_uri(out, uri)

    def run(self, text: str, edits: list[tuple[int, int, str]]) -> list[str]:
        """Open text, apply the edits one by one (each a didChange), and compare the answers
        with those for a fresh open of the final text."""
        self.count += 1
        uri, fresh = f"file:///fuzz/{self.count}.spvasm", f"file:///fuzz/{self.count}-fresh.spvasm"
        self._open(uri, text)
        version = 1
        for k, (a, b, new) in enumerate(edits):
            a, b = snap(text, min(a, len(text))), snap(text, min(b, len(text)))
            change = {"range": {"start": position(text, a, self.encoding), "end": position(text, b, self.encoding)},
                      "text": new}
            text = paired(text[:a] + new + text[b:])  # as the client's UTF-16 text holds it
            version += 1
            self.server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                          "contentChanges": [change]})
            if k % 3 == 2:  # ask in between, as an editor does, so the caches are filled
                self.server.request("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}}, timeout=120)
                self.server.request("textDocument/foldingRange", {"textDocument": {"uri": uri}}, timeout=120)
        mine = self._state(uri)
        self._open(fresh, text)
        theirs = self._state(fresh)
        for u in (uri, fresh):
            self.server.notify("textDocument/didClose", {"textDocument": {"uri": u}})
        # The notifications no request waited for (pushed diagnostics): read by nobody, and held for
        # the server's life they were the harness's growth (~0.4 MB a session, 2.7 GB in 40 minutes).
        self.server.notes.clear()
        found = []
        # Opened again: published from the cache at once, as the analysis found it.
        self._open(fresh, text)
        kept = self.server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                    and m["params"]["uri"] == fresh and m["params"].get("version") == 1,
                                    timeout=120)["params"]["diagnostics"]
        pulled = theirs["textDocument/diagnostic"]
        if not isinstance(pulled, tuple) and _same_uri(kept, fresh) != pulled["items"]:
            found.append(f"a text opened again was published from the cache unlike its analysis ({self.encoding})")
        self.server.notify("textDocument/didClose", {"textDocument": {"uri": fresh}})
        self.server.request("textDocument/documentSymbol", {"textDocument": {"uri": fresh}}, timeout=120)
        self.server.notes.clear()
        for key in mine:
            if mine[key] != theirs[key]:
                found.append(f"{key}: incremental state differs from a fresh open ({self.encoding})")
            elif isinstance(mine[key], tuple):
                found.append(f"{key} answered an error: {mine[key][1]}")
        return found


def _same_uri(value, uri: str):
    """Answers with the document's uri written one way, so two documents' answers compare."""
    if isinstance(value, dict):
        return {k: _same_uri(v, uri) for k, v in value.items()}
    if isinstance(value, list):
        return [_same_uri(v, uri) for v in value]
    if value == uri:
        return "<uri>"
    return value
