"""Fuzzing the surfaces that read untrusted data besides the text: binary modules (mutated `.spv`
through dis, as --ids-from and the LSP commands), control-flow shapes and names (the CFG view), and
the source-file names a module gives (hover, go-to-source). Each function takes the run's random
generator and returns its findings (one line each, then details)."""

from __future__ import annotations

import os
import random
import tempfile
import traceback
from pathlib import Path

from spvls.binary import commands, convert, words
from spvls.binding import spirv_tools
from spvls.checks import analyze
from spvls.features import cfg_dot, hover, source
from spvls.syntax.document import Document

_HEAD = (
    'OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main "main"\n'
    "OpExecutionMode %main LocalSize 1 1 1\n"
)


def binary(rng: random.Random, texts: list[str]) -> list[str]:
    """A module assembled from a seed text, its words mutated: `disassemble` refuses (BinaryError)
    or reads it; what it reads is saved unchanged byte for byte (as --ids-from), saved edited to
    something that reopens; the LSP commands refuse or answer, never raise anything else."""
    base = None
    for _ in range(5):
        got = spirv_tools.assemble(rng.choice(texts))
        if not isinstance(got, spirv_tools.Failure):
            base = bytearray(words.to_bytes(got))
            break
    if base is None:
        return []
    data = _mutate_words(rng, base)
    try:
        dis = convert.disassemble(bytes(data))
    except words.BinaryError:
        return []
    except Exception:  # that is the finding
        return ["binary: disassemble raised:\n" + traceback.format_exc()]
    found = []
    try:
        saved = words.to_bytes(convert.assemble(dis.text, None, dis.module), dis.module.big_endian)
        if saved != bytes(data):
            found.append(f"binary: an unchanged disassembly saved different bytes ({len(data)} -> {len(saved)})")
        edited = dis.text.replace("OpReturn\n", "OpNop\nOpReturn\n", 1)
        convert.disassemble(words.to_bytes(convert.assemble(edited, None, dis.module)))
    except convert.AssembleError:
        pass  # refused with its line and reason: allowed
    except Exception:
        found.append("binary: saving raised (or saved what does not reopen):\n" + traceback.format_exc())
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.spv"
        path.write_bytes(bytes(data))
        try:
            text = commands.disassemble(({"uri": path.as_uri()},))["text"]
            commands.assemble(({"uri": path.as_uri(), "text": text},), None)
            if path.read_bytes() != bytes(data):
                found.append("binary: spvls.assemble of the unchanged text changed the file")
        except commands.CommandError:
            pass
        except Exception:
            found.append("binary: an LSP command raised:\n" + traceback.format_exc())
    return found


def _mutate_words(rng: random.Random, data: bytearray) -> bytearray:
    n = len(data) // 4
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        k = rng.randrange(5, n) if n > 5 else 0
        if op == 0:  # a bit flipped
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif op == 1:  # a whole word replaced
            data[4 * k : 4 * k + 4] = rng.choice([0, 1, 0xFFFFFFFF, 0x10000, rng.randrange(1 << 32)]).to_bytes(
                4, "little"
            )
        elif op == 2:  # a header word
            h = rng.randrange(1, 5)
            data[4 * h : 4 * h + 4] = rng.choice([0, 0x10000, 0x10700, 0x20000, rng.randrange(1 << 32)]).to_bytes(
                4, "little"
            )
        elif op == 3:  # bytes of a string: not UTF-8, or after its NUL
            for i in range(4 * k, min(4 * k + 4, len(data))):
                if rng.random() < 0.5:
                    data[i] = rng.choice([0x80, 0xC3, 0xFF, 0x00, rng.randrange(256)])
        elif op == 4:  # truncated
            del data[4 * max(k, 5) + rng.randrange(4) :]
        else:  # an instruction's words duplicated
            data[4 * k : 4 * k] = data[4 * k : 4 * k + 4 * rng.randint(1, 4)]
        n = len(data) // 4
    return data


_NAME_PIECES = ['"', "\\", "&lt;", "&amp;", "<b>", "{", "}", "|", "`", "[x](y)", "é", "\n", " ", "%", "\\n", "a", "\t"]


def cfg(rng: random.Random) -> list[str]:
    """A random graph of blocks (branches, switches, merges declared anywhere: structured or not)
    with random OpNames: the picture builds, draws each block once, and its DOT quotes every name."""
    count = rng.randint(1, 12)
    labels = [f"%b{i}" for i in range(count)]
    names = {
        lab: "".join(rng.choice(_NAME_PIECES) for _ in range(rng.randint(1, 5))) for lab in labels if rng.random() < 0.5
    }
    out = [_HEAD]
    out += [
        f'OpName {lab} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"\n'
        for lab, v in names.items()
    ]
    out.append(
        "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%t = OpConstantTrue %bool\n"
        "%int = OpTypeInt 32 0\n%one = OpConstant %int 1\n%main = OpFunction %void None %fn\n"
    )
    for lab in labels:
        out.append(f"{lab} = OpLabel\n")
        kind = rng.randrange(5)
        if kind == 1:
            out.append(f"OpSelectionMerge {rng.choice(labels)} None\n")
        elif kind == 2:
            out.append(f"OpLoopMerge {rng.choice(labels)} {rng.choice(labels)} None\n")
        term = rng.randrange(4)
        if term == 0:
            out.append("OpReturn\n")
        elif term == 1:
            out.append(f"OpBranch {rng.choice(labels)}\n")
        elif term == 2:
            out.append(f"OpBranchConditional %t {rng.choice(labels)} {rng.choice(labels)}\n")
        else:
            cases = " ".join(f"{i} {rng.choice(labels)}" for i in range(rng.randint(0, 3)))
            out.append(f"OpSwitch %one {rng.choice(labels)} {cases}\n")
    out.append("OpFunctionEnd\n")
    text = "".join(out)
    try:
        m = analyze(Document(text)).module
        p = cfg_dot.picture(m, m.functions[0])
        dot = cfg_dot.to_dot([p])
    except Exception:
        return ["cfg: the picture raised:\n" + traceback.format_exc() + "\ninput:\n" + text]
    drawn = list(p.loose)
    stack = list(p.clusters)
    while stack:
        c = stack.pop()
        drawn += c.nodes
        stack += c.children
    found = []
    if sorted(drawn) != sorted(n.id for n in p.nodes):
        found.append("cfg: a block is drawn twice or not at all\ninput:\n" + text)
    for value in names.values():
        if cfg_dot.quote(value)[1:-1] not in dot:
            found.append(f"cfg: the name {value!r} is not drawn as written\ninput:\n" + text)
    return found


_FILE_PIECES = [
    "..",
    "/",
    "secret.glsl",
    "inside.glsl",
    "/etc/passwd",
    "/proc/self/environ",
    "/dev/zero",
    "pipe",
    "link",
    "~",
    "%2e%2e",
    "\\",
    "`",
    "[x](http://x)",
    "<img src=x>",
    "é",
    " ",
    "a" * 300,
    "\x00",
]


class SourceFiles:
    """A root with a file, a FIFO and a link out, and a secret beside it, for the run."""

    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        top = Path(self.dir.name)
        self.root, outside = top / "root", top / "outside"
        self.root.mkdir()
        outside.mkdir()
        (outside / "secret.glsl").write_text("SECRET\n")
        (self.root / "inside.glsl").write_text("INSIDE\n")
        os.mkfifo(self.root / "pipe")
        (self.root / "link").symlink_to(outside / "secret.glsl")
        os.environ.setdefault("SPVLS_CACHE_DIR", str(top / "cache"))

    def close(self) -> None:
        self.dir.cleanup()

    def check(self, rng: random.Random) -> list[str]:
        """A source-file name built from pieces: hover and go-to-source answer (never hang, never
        raise) and never show the secret outside the root."""
        name = "".join(rng.choice(_FILE_PIECES) for _ in range(rng.randint(1, 5)))
        escaped = name.replace("\\", "\\\\").replace('"', '\\"')
        text = (
            _HEAD + f'%file = OpString "{escaped}"\nOpSource GLSL 450 %file\n'
            "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n"
            f"%l = OpLabel\nOpLine %file {rng.choice([0, 1, 2, 99, 4294967295])} 1\nOpReturn\nOpFunctionEnd\n"
        )
        try:
            m = analyze(Document(text, (self.root / "m.spvasm").as_uri())).module
            ret = next(i.line for i in m.insts_in(m.functions[0]) if i.opname == "OpReturn")
            md, _ = hover.hover(m, ret, 2) or ("", None)
            target = source.definition(m, ret, 2)
        except Exception:
            return [f"sourcefiles: hover or definition raised on {name!r}:\n" + traceback.format_exc()]
        found = []
        if "SECRET" in md:
            found.append(f"sourcefiles: hover showed a file outside the roots for {name!r}")
        if target is not None and not str(target[0]).startswith((str(self.root), os.environ["SPVLS_CACHE_DIR"])):
            found.append(f"sourcefiles: go-to-source led outside the roots for {name!r}: {target[0]}")
        return found
