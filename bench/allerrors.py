"""Every error at once: how many of a module's independent mistakes spvls flags in one check, and how
long the complete error set takes to reach an editor after a keystroke.

    python bench/allerrors.py [--quick] [--seed N] [--modules N] [--misses]

1. Mutations of the valid modules of ../shared/corpus (spirv-val accepts them), each a hand-edit
   mistake that keeps the line count: an id operand swapped for another id, a result type swapped
   for another type, an opcode swapped for a look-alike, an instruction line emptied, an enumerant
   swapped for another of its kind. A mistake counts only if SPIRV-Tools (the library spvls binds:
   spirv-as, then spirv-val, under the manifest's env) rejects the module holding it alone; the
   lines it is expected on are its own and the one SPIRV-Tools names for it alone. Modules with 2-4
   such mistakes on distinct instructions are checked by `spvls check` (native rules + spirv-as +
   keep-going spirv-val); a mistake is flagged when an error lies on one of its lines. Printed: the
   share of mistakes flagged, of modules with all flagged, the errors on the untouched modules, and
   for the single mistakes the share the native rules alone flag (--no-spirv-val).
2. Keystroke to the complete error set: a generated module of 10k and 100k lines holding two
   mistakes is opened in the server (validation on); a keystroke adds a third; the time until a
   publication holds an error on each of the three lines.

--misses: instead of the timings, every mistake not flagged (by the native rules alone when it is
alone; by `spvls check` among the others), grouped by SPIRV-Tools' message for it alone with ids and
numbers stripped, largest group first: what a new native rule would gain.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from common import validations  # noqa: E402
from generate import module  # noqa: E402

from spvls.binding import spirv_tools as st  # noqa: E402
from spvls.checks import validator  # noqa: E402
from spvls.cli.check import check_text  # noqa: E402
from spvls.spec.grammar import load  # noqa: E402
from spvls.syntax.document import Document  # noqa: E402

SHARED = Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
# Opcodes a hand edit confuses (same operands, different rules).
LOOK_ALIKES = [
    ("OpIAdd", "OpFAdd"),
    ("OpISub", "OpFSub"),
    ("OpIMul", "OpFMul"),
    ("OpSDiv", "OpFDiv"),
    ("OpUDiv", "OpSDiv"),
    ("OpSLessThan", "OpFOrdLessThan"),
    ("OpIEqual", "OpFOrdEqual"),
    ("OpLogicalAnd", "OpBitwiseAnd"),
    ("OpConvertFToS", "OpConvertSToF"),
    ("OpConvertUToF", "OpConvertFToU"),
    ("OpBitcast", "OpCopyObject"),
    ("OpVectorTimesScalar", "OpFMul"),
    ("OpMatrixTimesVector", "OpVectorTimesMatrix"),
    ("OpCompositeExtract", "OpCompositeInsert"),
    ("OpDot", "OpFMul"),
]
ENUM_OPERANDS = {"StorageClass", "Decoration", "BuiltIn", "ExecutionMode", "Dim", "ImageFormat"}
EMPTIED = (
    "OpDecorate",
    "OpMemberDecorate",
    "OpStore",
    "OpSelectionMerge",
    "OpLoopMerge",
    "OpExecutionMode",
    "OpCapability",
    "OpBranch",
    "OpReturn",
    "OpLabel",
)


@dataclass(frozen=True)
class Mistake:
    line: int
    text: str  # the line as the mistake leaves it
    kind: str


def _ids(line: str) -> list[re.Match]:
    return list(re.finditer(r"%[A-Za-z0-9_.]+", line))


def mistakes(text: str, rng: random.Random, wanted: int) -> list[Mistake]:
    """Up to `wanted` candidate mistakes (unchecked), each on its own line."""
    lines = text.split("\n")
    g = load()
    types = [ln.split("=")[0].strip() for ln in lines if re.search(r"= OpType", ln)]
    ids = [ln.split("=")[0].strip() for ln in lines if re.match(r"\s*%\S+ = Op", ln)]
    out: list[Mistake] = []
    used: set[int] = set()
    for _ in range(wanted * 20):
        if len(out) >= wanted:
            break
        n = rng.randrange(len(lines))
        line = lines[n]
        if n in used or not line.strip() or line.lstrip().startswith(";") or "OpLine" in line:
            continue
        m = re.match(r"(\s*(?:%\S+ = )?)(Op\w+)(.*)$", line)
        if not m or m.group(2) in ("OpName", "OpMemberName", "OpSource", "OpString", "OpModuleProcessed"):
            continue
        head, op, rest = m.groups()
        kind = rng.choice(["operand", "type", "opcode", "empty", "enum"])
        new = None
        if kind == "operand":
            found = _ids(rest)
            if found and ids:
                t = rng.choice(found)
                new = head + op + rest[: t.start()] + rng.choice(ids) + rest[t.end() :]
        elif kind == "type" and "=" in head:
            found = _ids(rest)
            if found and types and not op.startswith("OpType"):
                t = found[0]
                new = head + op + rest[: t.start()] + rng.choice(types) + rest[t.end() :]
        elif kind == "opcode":
            swaps = [b for a, b in LOOK_ALIKES if a == op] + [a for a, b in LOOK_ALIKES if b == op]
            if swaps:
                new = head + rng.choice(swaps) + rest
        elif kind == "empty" and op in EMPTIED:
            new = ""
        elif kind == "enum":
            inst = g.instruction(op)
            words = rest.split()
            if inst is not None:
                kinds = [o.kind for o in inst.operands if o.kind not in ("IdResult", "IdResultType")]
                for i, k in enumerate(kinds[: len(words)]):
                    if k in ENUM_OPERANDS and not words[i].startswith("%"):
                        names = [e.name for e in g.kinds[k].canonical() if e.name != words[i]]
                        words[i] = rng.choice(names)
                        new = head + op + " " + " ".join(words)
                        break
        if new is not None and new != line:
            out.append(Mistake(n, new, kind))
            used.update((n - 1, n, n + 1))
    return out


def with_mistakes(text: str, ms: list[Mistake]) -> str:
    lines = text.split("\n")
    for m in ms:
        lines[m.line] = m.text
    return "\n".join(lines)


def tools_error(text: str, env: str) -> tuple[int, str] | None:
    """The line SPIRV-Tools' first error names and its message (None: it accepts the module)."""
    doc = Document(text)
    found = validator.run(text, doc.lines, env, st.ValidatorOptions())
    errors = [d for d in found if d.severity == "error"]
    return (errors[0].line, errors[0].message) if errors else None


@dataclass(frozen=True)
class Miss:
    path: Path
    mistake: Mistake
    message: str  # SPIRV-Tools' for the mistake alone


def normalized(message: str) -> str:
    """A message with what varies from module to module stripped: its first line, ids (named or
    numbered), quoted text and numbers."""
    first = message.split("\n")[0]
    first = re.sub(r"\d+\[%[^\]\s]*\]", "%id", first)
    first = re.sub(r"%[\w.\-]+", "%id", first)
    first = re.sub(r"'[^']*'", "'…'", first)
    first = re.sub(r"\b\d+\b", "N", first)
    return first.strip()


def print_misses(title: str, misses: list[Miss]) -> None:
    """The misses grouped by normalized message, largest group first, each with its kind, place and
    SPIRV-Tools' own words."""
    groups: dict[str, list[Miss]] = {}
    for miss in misses:
        groups.setdefault(normalized(miss.message), []).append(miss)
    print(f"\n{title}: {len(misses)}")
    for key, group in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        kinds: dict[str, int] = {}
        for miss in group:
            kinds[miss.mistake.kind] = kinds.get(miss.mistake.kind, 0) + 1
        print(f"{len(group):5d}  {key}  [{', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}]")
        for miss in group:
            where = f"{miss.path.relative_to(SHARED / 'corpus')}:{miss.mistake.line + 1}"
            print(f"         {miss.mistake.kind:8s} {where}: {miss.mistake.text.strip()!r}")
            print(f"                  {miss.message.splitlines()[0]}")


def corpus(limit: int | None) -> list[tuple[Path, str]]:
    root = SHARED / "corpus"
    rows = list(csv.DictReader((root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines(), delimiter="\t"))
    valid = [(root / r["path"], r["env"]) for r in rows if r["assembles"] == "yes" and r["validates"] == "yes"]
    return valid[:limit] if limit else valid


def mutations(seed: int, limit: int | None, show_misses: bool = False) -> None:
    rng = random.Random(seed)
    print(f"mutations: seed {seed}")
    counts = dict(modules=0, mistakes=0, flagged=0, all_flagged=0, valid_errors=0, valid=0)
    singles = native_single = native_single_line = 0
    by_kind: dict[str, list[int]] = {}
    native_misses: list[Miss] = []
    misses: list[Miss] = []
    t0 = time.perf_counter()
    for path, env in corpus(limit):
        text = path.read_text(encoding="utf-8")
        counts["valid"] += 1
        counts["valid_errors"] += any(d.severity == "error" for d in check_text(text, str(path), env))
        wanted = rng.randint(2, 4)
        checked: list[tuple[Mistake, set[int], str]] = []
        for m in mistakes(text, rng, wanted * 2):
            if len(checked) >= wanted:
                break
            alone = with_mistakes(text, [m])
            found = tools_error(alone, env)
            if found is None:
                continue  # SPIRV-Tools accepts it: not a mistake
            where, message = found
            checked.append((m, {m.line, where}, message))
            singles += 1
            native = [d for d in check_text(alone, str(path), env, spirv_val=False) if d.severity == "error"]
            native_single += bool(native)
            if not native:
                native_misses.append(Miss(path, m, message))
            native_single_line += any(d.line in (m.line, where) for d in native)
        if len(checked) < 2:
            continue
        both = with_mistakes(text, [m for m, _, _ in checked])
        errors = {d.line for d in check_text(both, str(path), env) if d.severity == "error"}
        flagged = [bool(errors & lines) for _, lines, _ in checked]
        for (m, _, message), f in zip(checked, flagged, strict=True):
            by_kind.setdefault(m.kind, [0, 0])
            by_kind[m.kind][0] += f
            by_kind[m.kind][1] += 1
            if not f:
                misses.append(Miss(path, m, message))
        counts["modules"] += 1
        counts["mistakes"] += len(checked)
        counts["flagged"] += sum(flagged)
        counts["all_flagged"] += all(flagged)
    took = time.perf_counter() - t0

    def share(a: int, b: int) -> str:
        return f"{a}/{b} ({100 * a / b:.1f} %)" if b else "0/0"

    print(f"  {counts['modules']} modules with {counts['mistakes']} mistakes (2-4 each), {took:.0f} s")
    print(f"  mistakes flagged: {share(counts['flagged'], counts['mistakes'])}")
    print(f"  modules with all flagged: {share(counts['all_flagged'], counts['modules'])}")
    print("  by kind: " + ", ".join(f"{k} {share(*v)}" for k, v in sorted(by_kind.items())))
    print(f"  untouched modules with an error: {counts['valid_errors']}/{counts['valid']}")
    print(
        f"  single mistakes: native rules alone flag {share(native_single, singles)} "
        f"(on the mistake's line or SPIRV-Tools': {share(native_single_line, singles)})"
    )
    if show_misses:
        print_misses("single mistakes the native rules alone miss", native_misses)
        print_misses("mistakes `spvls check` misses among a module's others", misses)


def _mistake_lines(text: str) -> tuple[str, list[int], tuple[int, str]]:
    """The generated module with two mistakes only spirv-val finds (a load's Aligned operand not a
    power of two), their lines, and a third as (line, edited text)."""
    lines = text.split("\n")
    loads = [n for n, ln in enumerate(lines) if re.search(r"= OpLoad %i32 %fun\d+_v$", ln)]
    a, b, c = loads[len(loads) // 5], loads[len(loads) // 2], loads[4 * len(loads) // 5]
    for n in (a, b):
        lines[n] += " Aligned 3"
    return "\n".join(lines), [a, b, c], (c, lines[c] + " Aligned 3")


class _Errors:
    """The lines of each version's latest errors (spirv-val's publication follows the native one)."""

    def __init__(self, client: LanguageClient) -> None:
        self.lines: dict[int, set[int]] = {}
        self.changed = asyncio.Event()

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diags(params: T.PublishDiagnosticsParams) -> None:
            errors = {d.range.start.line for d in params.diagnostics if d.severity == T.DiagnosticSeverity.Error}
            self.lines[params.version or 0] = errors
            self.changed.set()

    async def until(self, cond) -> None:
        while not cond():
            self.changed.clear()
            await self.changed.wait()


async def complete_set(lines_wanted: int) -> float:
    text, targets, (n, edited) = _mistake_lines(module(lines_wanted))
    client = LanguageClient("spvls-bench", "1")
    published = _Errors(client)
    done = validations(client, published)  # type: ignore[arg-type]  # it needs only `changed`
    latest = published.lines

    await client.start_io(sys.executable, "-m", "spvls")
    await client.initialize_async(
        T.InitializeParams(capabilities=T.ClientCapabilities(), initialization_options={"validate": "onType"})
    )
    client.initialized(T.InitializedParams())
    uri = f"file:///tmp/spvls-bench-allerrors-{lines_wanted}.spvasm"
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))
    await published.until(lambda: 1 in done)
    old = text.split("\n")[n]
    t = time.perf_counter()
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [T.TextDocumentContentChangePartial(range=T.Range(T.Position(n, 0), T.Position(n, len(old))), text=edited)],
        )
    )
    await published.until(lambda: set(targets) <= latest.get(2, set()))
    took = time.perf_counter() - t
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="100 corpus modules")
    ap.add_argument("--modules", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--misses", action="store_true", help="list the mistakes not flagged (no timings)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; SPIRV-Tools {st.version()}")
    mutations(seed, args.modules or (100 if args.quick else None), args.misses)
    if args.misses:
        return
    for n in (10_000, 100_000):
        took = asyncio.run(complete_set(n))
        print(f"keystroke to the complete error set (3 mistakes) at {n:,} lines: {took * 1000:.0f} ms")


if __name__ == "__main__":
    main()
