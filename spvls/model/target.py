"""The target environment a module states about itself.

glslang records how it compiled a module: `OpModuleProcessed "client vulkan100"` (the client API)
and `OpModuleProcessed "target-env vulkan1.2"` (the env), and, in a SPIR-V 1.0 module, which has no
OpModuleProcessed, the same words as `// OpModuleProcessed ...` lines of the source text it embeds
in OpSource (with -g). Without an env given by the user, that statement, read with the
`; Version:` header, picks the env the module is checked under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..spec import env as envs
from ..spec.sections import SECTIONS
from ..syntax.document import Document

# The instructions up to OpModuleProcessed's section (with OpLine, allowed anywhere): the scan
# stops at the first other one.
_EARLY = frozenset(op for _title, ops in SECTIONS for op in ops) | {"OpLine", "OpNoLine"}
_IN_SOURCE = re.compile(r"^// OpModuleProcessed (.+?)\s*$", re.M)
_VULKAN_API = re.compile(r"vulkan(\d)(\d)\d")  # client vulkan100: the Vulkan API version 1.0
_TARGET = re.compile(r"(vulkan|opengl|spirv)(\d\.\d)?$")


@dataclass(frozen=True)
class Stated:
    env: str | None  # the env name, as spirv-val takes it; None: the module states none
    why: str  # what the module says, quoted
    line: int  # where it says it
    end: int  # the first line the scan did not read: an edit below it cannot change the statement


def _vulkan_for(version: tuple[int, int], at_least: str = "vulkan1.0") -> str:
    """The first Vulkan env from `at_least` on whose SPIR-V version holds the module's."""
    order = ["vulkan1.0", "vulkan1.1", "vulkan1.1spv1.4", "vulkan1.2", "vulkan1.3", "vulkan1.4"]
    for name in order[order.index(at_least) if at_least in order else 0 :]:
        if envs.version_of(name) >= version:
            return name
    return order[-1]


def _statements(doc: Document) -> tuple[list[tuple[int, str]], int, set[int]]:
    """What the module says it was processed as, with each statement's line, where the scan ended,
    and the lines that say it inside OpSource's text."""
    out: list[tuple[int, str]] = []
    in_source: set[int] = set()
    for n, line in enumerate(doc.lines):
        op = line.opcode
        if op is None:
            continue
        if op.text not in _EARLY:
            return out, n, in_source
        if op.text == "OpModuleProcessed" and line.operands and line.operands[0].kind == "STRING":
            out.append((n, line.operands[0].text[1:-1]))
        elif op.text in ("OpSource", "OpSourceContinued") and "OpModuleProcessed" in line.text:
            found = [(n, m.group(1)) for m in _IN_SOURCE.finditer(line.text.replace("\\n", "\n"))]
            out += found
            in_source.update(n for n, _ in found)
    return out, len(doc.lines), in_source


def stated(doc: Document, version: tuple[int, int]) -> Stated:
    """The env the module states (its env None: it states none). version: the module's SPIR-V
    version (its header's)."""
    said, end, in_source = _statements(doc)

    def why(n: int, s: str) -> str:
        return f"'// OpModuleProcessed {s}' in its OpSource text" if n in in_source else f'OpModuleProcessed "{s}"'

    client = next(((n, s) for n, s in said if s.startswith("client ")), None)
    targets = [(n, s) for n, s in said if s.startswith("target-env ")]
    for n, s in targets:
        m = _TARGET.match(s[len("target-env ") :])
        if m and m.group(1) == "vulkan" and m.group(2):
            want = f"vulkan{m.group(2)}"
            if want not in envs.NAMES:
                continue
            env = want if envs.version_of(want) >= version else _vulkan_for(version, want)
            return Stated(env, why(n, s), n, end)
    for n, s in targets:
        if s == "target-env opengl" and version <= envs.version_of("opengl4.5"):
            return Stated("opengl4.5", why(n, s), n, end)
    if client is not None:
        n, s = client
        api = _VULKAN_API.search(s)
        if s.startswith("client vulkan") and api:
            env = _vulkan_for(version, f"vulkan{api.group(1)}.{api.group(2)}")
            return Stated(env, why(n, s), n, end)
        if s.startswith("client opengl") and version <= envs.version_of("opengl4.5"):
            return Stated("opengl4.5", why(n, s), n, end)
    return Stated(None, "", 0, end)
