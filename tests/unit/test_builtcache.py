"""The built cache: the grammar and parser a new process loads are the ones it would build, and an
entry it cannot trust (foreign, stale, torn, altered, not a regular file) is never used."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from spvls.spec import builtcache, grammar
from spvls.syntax import parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPVLS_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("SPVLS_NO_BUILT_CACHE", raising=False)
    return tmp_path / "c" / "built"


def counting(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def build() -> object:
        calls.append(1)
        return value

    return calls, build


def test_a_value_is_built_once_then_loaded(cache: Path) -> None:
    calls, build = counting({"a": (1, 2)})
    assert builtcache.built("v", b"k1", build) == {"a": (1, 2)}
    assert builtcache.built("v", b"k1", build) == {"a": (1, 2)}
    assert len(calls) == 1
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert oct(builtcache.entry(cache, "v", b"k1").stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in cache.iterdir()] == [builtcache.entry(cache, "v", b"k1").name]  # no temporary file left


def test_other_inputs_build_again(cache: Path) -> None:
    calls, build = counting([1])
    builtcache.built("v", b"k1", build)
    builtcache.built("v", b"k2", build)
    assert len(calls) == 2


def test_installs_that_differ_keep_an_entry_each(cache: Path) -> None:
    """Two sets of inputs in turn (a compiled build beside a pure one) each load their own entry; past
    KEPT, the least recently written go."""
    calls, build = counting([1])
    for _ in range(3):
        builtcache.built("v", b"pure", build)
        builtcache.built("v", b"compiled", build)
    assert len(calls) == 2
    for key in (b"pure", b"compiled"):
        os.utime(builtcache.entry(cache, "v", key), ns=(0, 0))
    keys = [b"k%d" % i for i in range(builtcache.KEPT + 2)]
    for i, key in enumerate(keys):
        builtcache.built("v", key, build)
        os.utime(builtcache.entry(cache, "v", key), ns=(i * 10**9, i * 10**9))  # written in this order
    builtcache.built("v", b"last", build)
    left = sorted(p.name for p in cache.iterdir())
    newest = [b"last", *keys[-(builtcache.KEPT - 1) :]]
    assert left == sorted(builtcache.entry(cache, "v", k).name for k in newest)


def test_a_directory_others_could_reach_is_closed_and_their_entries_not_read(cache: Path) -> None:
    cache.mkdir(parents=True)
    cache.chmod(0o777)
    calls, build = counting([1])
    assert builtcache.built("v", b"k", build) == [1]
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    if os.geteuid() == 0:  # an entry another user left there while it was open
        os.chown(builtcache.entry(cache, "v", b"k"), 12345, 12345)
        assert builtcache.built("v", b"k", build) == [1]
        assert len(calls) == 2


def test_an_altered_or_torn_entry_is_built_again(cache: Path) -> None:
    """Seeded: every single-byte change and every truncation of an entry is caught by its digest,
    never unpickled into a wrong value."""
    seed = int(os.environ.get("SPVLS_SEED", random.randrange(1 << 30)))
    print(f"seed {seed}")
    rng = random.Random(seed)
    value = {"names": [f"Op{i}" for i in range(50)], "n": 7}
    builtcache.built("v", b"k", lambda: value)
    good = builtcache.entry(cache, "v", b"k").read_bytes()
    for _ in range(60):
        data = bytearray(good)
        if rng.random() < 0.5:
            i = rng.randrange(len(data))
            data[i] ^= rng.randrange(1, 256)
        else:
            del data[rng.randrange(len(data)) :]
        builtcache.entry(cache, "v", b"k").write_bytes(bytes(data))
        calls, build = counting(value)
        assert builtcache.built("v", b"k", build) == value
        assert len(calls) == 1, bytes(data)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_an_entry_that_is_not_a_regular_file_is_not_read(cache: Path, tmp_path: Path, kind: str) -> None:
    builtcache.built("v", b"k", lambda: 1)
    entry = builtcache.entry(cache, "v", b"k")
    target = tmp_path / "elsewhere"
    target.write_bytes(entry.read_bytes())  # a valid entry, reached through a link
    entry.unlink()
    if kind == "symlink":
        entry.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(entry)  # opened without blocking and refused: no writer would ever come
    else:
        entry.mkdir()
    calls, build = counting(2)
    assert builtcache.built("v", b"k", build) == 2
    assert calls == [1]


def test_a_foreign_pickle_with_a_valid_header_and_digest_is_rebuilt(cache: Path) -> None:
    """A pickle this Python cannot load (here: a class that no longer exists) builds again."""
    builtcache.built("v", b"k", lambda: 1)
    entry = builtcache.entry(cache, "v", b"k")
    data = entry.read_bytes()
    head = data.index(b"\n", len(b"spvls-built-1\n")) + 1
    body = b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x03nope\x94\x8c\x01X\x94\x93\x94."
    entry.write_bytes(data[:head] + builtcache._digest(body) + body)
    assert builtcache.built("v", b"k", lambda: 3) == 3


def test_the_cached_grammar_is_the_built_one(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grammar.load.cache_clear()
    try:
        first = grammar.load()  # built and saved
        grammar.load.cache_clear()
        cached = grammar.load()  # loaded
        assert cached is not first
        monkeypatch.setenv("SPVLS_NO_BUILT_CACHE", "1")
        grammar.load.cache_clear()
        built = grammar.load()
    finally:
        grammar.load.cache_clear()
    assert vars(cached) == vars(built)  # every index, by value (dataclasses, dicts, sets)
    assert cached.instruction("OpGroupNonUniformRotateKHR") == built.instruction("OpGroupNonUniformRotateKHR")


def test_the_cached_parser_parses_as_the_built_one(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        line
        for path in sorted((ROOT / "examples").glob("*.spvasm"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert len(lines) > 50
    parser._parser.cache_clear()
    try:
        parser._parser()
        parser._parser.cache_clear()
        cached = parser._parser()
        monkeypatch.setenv("SPVLS_NO_BUILT_CACHE", "1")
        parser._parser.cache_clear()
        built = parser._parser()
    finally:
        parser._parser.cache_clear()
    assert cached is not built
    for line in lines:
        if line.strip() and not line.lstrip().startswith(";"):
            assert cached.parse(line) == built.parse(line), line


def test_what_a_process_builds_it_loads_back(cache: Path) -> None:
    """Each entry a process writes unpickles in a new one (in the compiled build too, where a class
    mypyc compiles natively would be built again by every process: its entry never loads)."""
    probe = "from spvls.spec.grammar import load; from spvls.syntax.parser import _parser; load(); _parser()"
    env = {**os.environ, "SPVLS_CACHE_DIR": str(cache.parent)}
    subprocess.run([sys.executable, "-c", probe], env=env, check=True, cwd=ROOT)
    names = sorted(p.name.split("-", 1)[1] for p in cache.iterdir())
    assert names == ["grammar.pickle", "parser.pickle"]
    for path in cache.iterdir():
        data = path.read_bytes()
        body = data[data.index(b"\n", len(builtcache._MAGIC)) + 1 + builtcache._DIGEST :]
        loaded = pickle.loads(body)
        if path.name.endswith("parser.pickle"):
            assert loaded.lark.parse("%x = OpIAdd %int %a %b") == parser._parser().parse("%x = OpIAdd %int %a %b")
        else:
            assert vars(loaded) == vars(grammar.load())


def test_a_read_only_cache_still_answers(tmp_path: Path) -> None:
    """A cache directory that cannot be made: the facts are built in memory, the check works."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env = {**os.environ, "SPVLS_CACHE_DIR": str(blocker / "spvls")}
    out = subprocess.run(
        [sys.executable, "-m", "spvls", "check", "--no-spirv-val", str(ROOT / "examples" / "matmul.spvasm")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "checked 1 file: 0 errors, 0 warnings\n"  # the summary alone: no word about the cache
