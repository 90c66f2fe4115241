"""Build spvls/spec/registry.json.gz from the SPIR-V Registry's asciidoc sources.

    python tools/registry_gen.py ../shared/spirv-registry

For each document (extensions/<VENDOR>/SPV_*.asciidoc, nonsemantic/, extended/) it keeps the
title, status, dependencies, overview and page, and for each name the text defines — a table cell
that starts with `*Name*` (opcodes, enumerant rows, extended instructions) or a section headed by the
name — the paragraph(s) after it, as Markdown. Names are kept as the text spells them: the grammar
decides at look-up which spelling (canonical or alias) a name goes by. Nothing here reads the
grammar, so the file depends only on the registry.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "spvls" / "spec" / "registry.json.gz"
PAGE = "https://github.khronos.org/SPIRV-Registry/"
MAX_TEXT = 1600  # characters of a definition: its first paragraphs, not whole sections

_NAME = r"[A-Za-z][A-Za-z0-9_]*"
_ATTR = re.compile(r"^:([\w-]+):\s*(.*?)\s*$", re.MULTILINE)
_INCLUDE = re.compile(r"^include::([^\[]+)\[\]\s*$", re.MULTILINE)
_HEADING_UNDERLINE = re.compile(r"^([-~^+=])\1{2,}\s*$")
_HEADING_EQ = re.compile(r"^(={1,5})\s+(.+?)\s*$")
_TABLE_FENCE = re.compile(r"^\|={3,}\s*$")
# An asciidoc cell separator: an optional span/format spec ("3+^.^", "2*", "1+") then "|".
_CELL = re.compile(r"(?:(?:(?<=\s)|^)(?:\d+(?:\.\d+)?[+*])?[<^>]?(?:\.[<^>])?[adehlmsv]?)?(?<!\\)\|", re.MULTILINE)
_CELL_NAME = re.compile(rf"^(?:\[\[[^\]]*\]\]\s*)?\*{{1,2}}(?:<<[^,>]*,)?({_NAME})(?:>>)?\*{{1,2}}(?:\s*\+)?\s*")


def _attributes(text: str) -> str:
    attrs = {m.group(1): re.sub(r"^pass:\w*\[(.*)\]$", r"\1", m.group(2)) for m in _ATTR.finditer(text)}
    text = _ATTR.sub("", text)
    for _ in range(3):
        text = re.sub(r"\{([\w-]+)\}", lambda m: attrs.get(m.group(1), m.group(0)), text)
    return text


def _read(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    text = re.sub(r"^/{4,}\s*\n.*?^/{4,}\s*$", "", text, flags=re.MULTILINE | re.DOTALL)  # comment blocks
    text = re.sub(r"^//(?!/).*\n", "", text, flags=re.MULTILINE)  # comment lines
    text = _INCLUDE.sub(
        lambda m: (
            (path.parent / m.group(1)).read_text(encoding="utf-8") if (path.parent / m.group(1)).is_file() else ""
        ),
        text,
    )
    return _attributes(text)


def markdown(text: str) -> str:
    """Asciidoc inline markup as Markdown; ` +` line breaks kept, other line breaks joined."""
    t = text.replace("\\|", "|")
    t = re.sub(r"\[\[[^\]]*\]\]", "", t)
    t = re.sub(r"<<([^,>]+),([^>]+)>>", r"\2", t)
    t = re.sub(r"<<([^>]+)>>", r"\1", t)
    t = re.sub(r"link:(\S+?)\[([^\]]*)\]", lambda m: f"[{m.group(2) or m.group(1)}]({m.group(1)})", t)
    t = re.sub(r"(?<![(\[])(https?://[^\s\[\]]+)\[([^\]]+)\]", r"[\2](\1)", t)
    t = re.sub(r"pass:\w*\[([^\]]*)\]", r"\1", t)
    t = re.sub(r"\[[\w.-]+\]#([^#\n]+)#", r"\1", t)  # [blue]#text#: a colour role
    t = re.sub(r"`\+(.+?)\+`", r"`\1`", t)
    t = t.replace("{nbsp}", " ").replace("{plus}", "+")
    t = re.sub(r"(?<![\w*])\*\*?(\S(?:[^*\n]*?\S)?)\*\*?(?![\w*])", r"**\1**", t)
    t = re.sub(r"(?<![\w'])'(\S(?:[^'\n]*?\S)?)'(?![\w'])", r"*\1*", t)
    t = re.sub(r"(?<![\w_])__?(\S(?:[^_\n]*?\S)?)__?(?![\w_])", r"*\1*", t)
    paras: list[str] = []
    for block in re.split(r"\n\s*\+?\s*\n|\s\+\s*\n\s*\+\s*\n", t):
        lines = [ln.strip() for ln in block.split("\n") if ln.strip() and ln.strip() != "+"]
        out: list[str] = []
        for ln in lines:
            brk = ln.endswith(" +") or ln == "+"
            ln = ln.removesuffix(" +").rstrip()
            if out and not out[-1].endswith("\n") and not re.match(r"^([*.-]+|\d+\.)\s", ln):
                out[-1] += " " + ln
            else:
                out.append(ln)
            if brk:
                out[-1] += "\n"
        para = "\n".join(o.rstrip("\n") for o in out).strip()
        if para:
            paras.append(para)
    return "\n\n".join(paras)


def _trim(md: str) -> str:
    """Whole paragraphs up to MAX_TEXT characters (at least the first)."""
    out: list[str] = []
    size = 0
    for para in md.split("\n\n"):
        if out and size + len(para) > MAX_TEXT:
            break
        out.append(para)
        size += len(para) + 2
    return "\n\n".join(out)


def _sections(lines: list[str]) -> list[tuple[int, str, int]]:
    """(line index, title, level) of each heading; level 1 for `----` and `==`."""
    out = []
    in_listing = False
    for i, line in enumerate(lines):
        if re.match(r"^-{4,}\s*$", line) and (
            i == 0 or not lines[i - 1].strip() or len(line.strip()) != len(lines[i - 1].strip())
        ):
            in_listing = not in_listing
            continue
        if in_listing:
            continue
        m = _HEADING_EQ.match(line)
        if m and not _TABLE_FENCE.match(line) and not line.startswith("===="):
            out.append((i, m.group(2), len(m.group(1)) - 1))
            continue
        if (
            i
            and _HEADING_UNDERLINE.match(line)
            and lines[i - 1].strip()
            and abs(len(line.strip()) - len(lines[i - 1].strip())) <= 3
            and not lines[i - 1].startswith(("|", "["))
        ):
            out.append((i - 1, lines[i - 1].strip(), 1 if line[0] in "-=" else 2))
    return out


def _body(lines: list[str], start: int, end: int) -> str:
    """Prose lines between two headings, without listing blocks and tables."""
    keep: list[str] = []
    skip: str | None = None
    for n in range(start, end):
        s = lines[n].strip()
        if skip:
            if re.match(skip, s):
                skip = None
            continue
        if re.match(r"^-{4,}$", s):
            prev = lines[n - 1].strip() if n else ""
            if prev and abs(len(prev) - len(s)) <= 3 and keep and keep[-1].strip() == prev:
                keep.pop()  # a heading's underline, not a listing block: drop the heading
                continue
            skip = r"^-{4,}$"
            continue
        if _TABLE_FENCE.match(s):
            skip = r"^\|={3,}$"
            continue
        if s.startswith("[") and s.endswith("]") and not s.startswith("[["):
            continue  # block attributes: [cols=...], [source,...]
        if re.match(r"^([-~^+=])\1{2,}$", s):
            continue
        keep.append(lines[n])
    return "\n".join(keep)


def _section_text(lines, heads, title: str) -> str:
    for n, (i, t, _) in enumerate(heads):
        if t.lower() == title.lower():
            end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
            return markdown(_body(lines, i + 2, end))
    return ""


def _table_cells(lines: list[str]):
    """Each table's cells, in order."""
    i = 0
    while i < len(lines):
        if _TABLE_FENCE.match(lines[i]):
            j = i + 1
            while j < len(lines) and not _TABLE_FENCE.match(lines[j]):
                j += 1
            body = "\n".join(lines[i + 1 : j])
            parts = _CELL.split(body)
            yield [p.strip() for p in parts[1:]]
            i = j + 1
        else:
            i += 1


def _names_in_tables(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """Names a table cell defines with their text, and those it names with none (token tables)."""
    out: dict[str, str] = {}
    bare: list[str] = []
    for cells in _table_cells(lines):
        for k, cell in enumerate(cells):
            m = _CELL_NAME.match(cell)
            if not m:
                continue
            desc = cell[m.end() :].strip()
            # A name alone in its cell: its description is a later cell of the row (after the
            # enabling capability, say), before the next row's value.
            for nxt in cells[k + 1 : k + 4] if not desc else ():
                if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", nxt):
                    break
                if len(nxt) > 20 and not nxt.startswith(("*", "_")) and not re.match(r"^\d", nxt):
                    desc = nxt
                    break
            text = _trim(markdown(desc))
            if text and m.group(1) not in out:
                out[m.group(1)] = text
            elif not text:
                bare.append(m.group(1))
    return out, bare


def _names_in_headings(lines: list[str], heads) -> dict[str, str]:
    out: dict[str, str] = {}
    for n, (i, title, _) in enumerate(heads):
        name = title.strip("*` ")
        # SPIR-V names are CamelCase with a capital inside (TimeAMD, OpGroupIAdd); "Contact" is not one.
        if not re.fullmatch(_NAME, name) or not re.search("[A-Z]", name[1:]):
            continue
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        skip = 2 if i + 1 < len(lines) and _HEADING_UNDERLINE.match(lines[i + 1]) else 1
        text = _trim(markdown(_body(lines, i + skip, end)))
        if text and name not in out:
            out[name] = text
    return out


# How older documents list new tokens: "|CapabilityStencilExportEXT|5013" rows and "Name = 5014" or
# bare-name lines in listing blocks; the prefix is the C header's enum name.
_TOKEN_ROW = re.compile(
    rf"^\|\s*\*?({_NAME})\*?\s*\|\s*(?:0x)?[0-9a-fA-F]+\s*$|^({_NAME})\s*=\s*(?:0x)?[0-9a-fA-F]+\s*$|^(Op{_NAME})\s*$"
)
_PREFIXES = "Capability|BuiltIn|ExecutionMode|Decoration|StorageClass|ExecutionModel"
_ENUM_PREFIX = re.compile(rf"^({_PREFIXES})(?=[A-Z])")


def _listed_tokens(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        m = _TOKEN_ROW.match(line.strip())
        if m:
            name = next(g for g in m.groups() if g)
            if re.search("[A-Z]", name[1:]):  # "| Revision | 1" is the version table, not a token
                out.append(name)
    return out


def _mentions(lines: list[str], names: list[str], known: dict[str, str]) -> dict[str, str]:
    """For names a document lists without defining: its first prose paragraph that names them."""
    paras = [p for p in re.split(r"\n\s*\n", _body(lines, 0, len(lines))) if p.strip()]
    out: dict[str, str] = {}
    for name in names:
        bare = _ENUM_PREFIX.sub("", name)  # kept under the grammar's spelling, found by either
        if bare in known or bare in out:
            continue
        word = re.compile(rf"(?<![\w])(?:{_PREFIXES})?{re.escape(bare)}(?![\w])")
        for para in paras:
            if word.search(para) and len(para.strip()) > len(name) + 20 and not _TOKEN_ROW.match(para.strip()):
                out[bare] = _trim(markdown(para))
                break
    return out


def _status(lines, heads) -> str:
    text = _section_text(lines, heads, "Status")
    return "; ".join(ln.lstrip("-* ").strip() for ln in text.split("\n") if ln.strip())


def document(path: Path, root: Path) -> dict:
    lines = _read(path).split("\n")
    heads = _sections(lines)
    rel = path.relative_to(root).as_posix()
    names = _names_in_headings(lines, heads)
    defined, bare = _names_in_tables(lines)
    for name, text in defined.items():
        names[name] = text  # a definition cell says more than a "modify this section" heading
    names.update(_mentions(lines, _listed_tokens(lines) + bare, names))
    return {
        "title": lines[0].strip(),
        "path": rel,
        "url": PAGE + rel.removesuffix(".asciidoc") + ".html",
        "status": _status(lines, heads),
        "dependencies": _section_text(lines, heads, "Dependencies"),
        "overview": _trim(_section_text(lines, heads, "Overview") or _section_text(lines, heads, "Introduction")),
        "names": dict(sorted(names.items())),
    }


def build(root: Path) -> dict:
    docs = {}
    for path in sorted(root.rglob("*.asciidoc")):
        docs[path.stem] = document(path, root)
    return {"source": "KhronosGroup/SPIRV-Registry asciidoc sources (see the registry's README)", "documents": docs}


def encode(index: dict) -> bytes:
    """Deterministic bytes: sorted keys, no gzip timestamp or file name."""
    raw = json.dumps(index, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return gzip.compress(raw, compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "../shared/spirv-registry")
    if not root.is_dir():
        print(f"no registry at {root}", file=sys.stderr)
        return 2
    data = encode(build(root))
    OUT.write_bytes(data)
    print(f"{OUT}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
