"""The fuzzer: `python -m tests.fuzz --minutes 10 --seed 1 [--out DIR]` from the repository root.

Mutates seed modules (examples/, tests/data/, and the shared corpus when present) and checks, for
each mutant: `check` never raises; `format` keeps what spirv-as makes (or its rejection) and is
idempotent. Every few mutants, an LSP session per position encoding (utf-8, utf-16, utf-32) opens
one in a random line ending, applies random edits, and compares diagnostics, semantic tokens,
symbols and folding with a fresh open of the same text. With each mutant, the other surfaces
(tests/fuzz/surfaces.py): a mutated binary through dis, as --ids-from and the LSP commands, a random
control-flow graph with random names through the CFG view, a random source-file name through hover
and go-to-source. Same seed, same inputs.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from pathlib import Path

from tests.fuzz import surfaces
from tests.fuzz.mutate import Mutator
from tests.fuzz.oracles import Session, check_and_format

ROOT = Path(__file__).resolve().parent.parent.parent
ENCODINGS = ("utf-8", "utf-16", "utf-32")
EOLS = ("\n", "\r\n", "\r")


def seeds(shared: Path | None = None) -> list[str]:
    files = sorted((ROOT / "examples").glob("*.spvasm")) + sorted((ROOT / "tests" / "data").rglob("*.spvasm"))
    shared = shared or Path(os.environ.get("SPVLS_SHARED", ROOT.parent / "shared"))
    # The full corpus when it is beside the repository, else the subset in tests/data.
    corpus = shared / "corpus" if (shared / "corpus").is_dir() else ROOT / "tests" / "data" / "corpus"
    files += sorted(p for p in corpus.rglob("*") if p.is_file() and ".asm" in p.name)
    return [p.read_text(encoding="utf-8", errors="replace") for p in files]


class Stats:
    def __init__(self):
        self.inputs = self.sessions = self.edits = 0
        self.binaries = self.graphs = self.source_names = 0
        self.findings: dict[str, tuple[str, str]] = {}  # first line of a finding -> (details, input)


def run(seed: int, minutes: float | None = None, inputs: int | None = None, session_every: int = 25,
        edits_per_session: int = 12, out: Path | None = None, log=print) -> Stats:
    rng = random.Random(seed)
    corpus = seeds()
    mutator = Mutator(rng)
    sessions = {}
    stats = Stats()
    files = surfaces.SourceFiles()
    deadline = time.monotonic() + minutes * 60 if minutes else None
    try:
        while (inputs is None or stats.inputs < inputs) and (deadline is None or time.monotonic() < deadline):
            base = rng.choice(corpus)
            if len(base) > 60_000:  # keep each input quick: mutate a slice of a big module
                start = rng.randrange(0, len(base) - 30_000)
                base = base[base.index("\n", start) + 1:][:30_000]
            text = mutator.mutate(base)
            stats.inputs += 1
            for f in check_and_format(text):
                _record(stats, f, text, out, log)
            # The other surfaces, one input each per mutant, drawn from the same generator.
            for f in surfaces.binary(rng, corpus[:40]):
                _record(stats, f, "(binary: see the seed)", out, log)
            for f in surfaces.cfg(rng):
                _record(stats, f, f, out, log)
            for f in files.check(rng):
                _record(stats, f, f, out, log)
            stats.binaries, stats.graphs, stats.source_names = (stats.binaries + 1, stats.graphs + 1,
                                                                stats.source_names + 1)
            if stats.inputs % session_every == 0:
                enc = ENCODINGS[stats.sessions % 3]
                eol = EOLS[(stats.sessions // 3) % 3]
                if enc not in sessions:
                    sessions[enc] = Session(enc)
                doc = text[:20_000].replace("\n", eol)
                edits = [mutator.edit(doc) for _ in range(rng.randint(1, edits_per_session))]
                stats.sessions += 1
                stats.edits += len(edits)
                try:
                    found = sessions[enc].run(doc, edits)
                except Exception as e:  # a dead or silent server is a finding too
                    found = [f"LSP session failed ({enc}): {e!r}"]
                    sessions.pop(enc).close()
                for f in found:
                    _record(stats, f, f"{doc!r}\nedits: {edits!r}", out, log)
    finally:
        files.close()
        for s in sessions.values():
            s.close()
    return stats


def _record(stats: Stats, finding: str, text: str, out: Path | None, log) -> None:
    key = finding.splitlines()[0] + (finding.splitlines()[-1] if "raised" in finding else "")
    if key in stats.findings:
        return
    stats.findings[key] = (finding, text)
    log(f"FINDING after {stats.inputs} inputs: {finding}")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha1(key.encode()).hexdigest()[:10]
        (out / f"{name}.txt").write_text(finding + "\n", encoding="utf-8")
        (out / f"{name}.spvasm").write_text(text, encoding="utf-8", errors="surrogatepass")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=1.0)
    p.add_argument("--inputs", type=int, help="stop after this many inputs (instead of minutes)")
    p.add_argument("--seed", type=int, help="default: a fresh one, printed (CI=true: 0)")
    p.add_argument("--session-every", type=int, default=25, help="an LSP session every N inputs")
    p.add_argument("--out", type=Path, help="write each finding and its input here")
    a = p.parse_args(argv)
    if a.seed is None:
        a.seed = 0 if os.environ.get("CI") else random.randrange(1 << 32)
    print(f"seed {a.seed} (--seed {a.seed} replays this run)", flush=True)
    t0 = time.monotonic()
    stats = run(a.seed, None if a.inputs else a.minutes, a.inputs, a.session_every, out=a.out)
    print(f"seed {a.seed}: {stats.inputs} inputs, {stats.sessions} LSP sessions, {stats.edits} edits, "
          f"{stats.binaries} binaries, {stats.graphs} graphs, {stats.source_names} source-file names in "
          f"{(time.monotonic() - t0) / 60:.1f} min; {len(stats.findings)} distinct findings")
    return 1 if stats.findings else 0


if __name__ == "__main__":
    sys.exit(main())
