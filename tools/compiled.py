"""The optional compiled build: which modules mypyc compiles, and the suite run against it.

    SPVLS_COMPILE=1 pip install .            # a compiled install (setup.py reads MODULES)
    python -m tools.compiled test [ARGS]     # the suite (pytest ARGS) against a compiled copy

The modules are those an open spends its CPU in: the parser and Document, the model, the rule
families and the helpers they call. Left as Python: the workbench's model/shapes.py and
model/resources.py (not on an open's path), the grammar's classes (pickled by the built cache), what
tests replace by monkeypatching (`checks/__init__.py`, `checks/parallel.py`), the diagnostics (`check
-j` pickles them), and every front end (not on the hot path).
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = (
    "spvls/syntax/parser.py",
    "spvls/syntax/document.py",
    "spvls/syntax/heap.py",
    "spvls/model/__init__.py",
    "spvls/model/blocks.py",
    "spvls/model/cfg.py",
    "spvls/model/enablement.py",
    "spvls/model/facts.py",
    "spvls/model/module.py",
    "spvls/model/operands.py",
    "spvls/model/sourcemap.py",
    "spvls/model/target.py",
    "spvls/model/typeinfo.py",
    "spvls/model/uniformity.py",
    "spvls/checks/families/*.py",
    "spvls/checks/fixes.py",
    "spvls/checks/idkinds.py",
    "spvls/checks/origin.py",
    "spvls/checks/scope.py",
    "spvls/spec/env.py",
    "spvls/spec/sections.py",
    "spvls/spec/execution_models.py",
    "spvls/spec/did_you_mean.py",
)
MEMORY = 6 << 30  # mypyc's address space: a compiler bug that recurses stops here, not at the machine's


def files(root: Path = ROOT) -> list[str]:
    """MODULES expanded, relative to `root`, in a stable order."""
    return [str(p.relative_to(root)) for pattern in MODULES for p in sorted(root.glob(pattern))]


def _checkout() -> list[str]:
    """The checkout's files: tracked and untracked, not those .gitignore names."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    return [name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


def key() -> str:
    """The compiled modules' cache key: every spvls source (a compiled module reads the classes of
    the modules it imports), this list, the compiler's and the interpreter's versions."""
    from mypy.version import __version__ as mypy_version

    h = hashlib.sha256(f"{sys.version} {mypy_version}".encode())
    for name in sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("spvls/**/*.py")):
        h.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    h.update((ROOT / "tools" / "compiled.py").read_bytes())
    return h.hexdigest()[:32]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spvls-compiled" / key()


def _limit() -> None:
    os.nice(10)  # the machine's other work first
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def compile_copy(dest: Path) -> None:
    """A copy of this checkout in `dest` with MODULES compiled in place beside their sources (an
    extension module is imported before a .py of the same name), the extension modules taken from
    the cache when these sources were compiled before."""
    for name in _checkout():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    cached = cache_dir()
    if not cached.is_dir():
        mypyc = Path(sys.executable).with_name("mypyc")
        print(f"compiling {len(files(dest))} modules with mypyc (cached in {cached})", file=sys.stderr)
        made = subprocess.run([str(mypyc), *files(dest)], cwd=dest, capture_output=True, text=True, preexec_fn=_limit)
        if made.returncode != 0:  # mypyc says what it cannot compile on its standard output
            raise SystemExit(f"mypyc failed ({made.returncode}):\n{made.stdout[-4000:]}{made.stderr[-4000:]}")
        cached.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cached.parent))
        built = [p for p in dest.rglob("*.so") if "build" not in p.relative_to(dest).parts]
        for so in built:
            (staging / so.relative_to(dest)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(so, staging / so.relative_to(dest))
        try:
            staging.rename(cached)
        except OSError:  # another run cached the same sources meanwhile
            shutil.rmtree(staging, ignore_errors=True)
        return
    for so in cached.rglob("*.so"):
        shutil.copy2(so, dest / so.relative_to(cached))


def _as_clone(dest: Path) -> None:
    """The copy's checkout files committed in a repository of its own, as a clone of this checkout
    would hold them: the pre-commit tests try the hooks from the repository they run in."""
    git = ["git", "-c", "user.name=spvls", "-c", "user.email=spvls@localhost", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*git, "add", "--", *_checkout()], cwd=dest, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the checkout, compiled beside"], cwd=dest, check=True)


def test(args: list[str]) -> int:
    """pytest ARGS in a compiled copy of this checkout, its spvls first on every process' path."""
    with tempfile.TemporaryDirectory(prefix="spvls-compiled-") as tmp:
        dest = Path(tmp)
        compile_copy(dest)
        _as_clone(dest)
        env = {**os.environ, "PYTHONPATH": str(dest)}
        probe = "import spvls.syntax.parser as p, spvls.checks.families.ids as i; print(p.__file__, i.__file__)"
        where = subprocess.run([sys.executable, "-c", probe], cwd=dest, env=env, check=True, capture_output=True)
        if not all(name.endswith(".so") for name in where.stdout.decode().split()):
            print(f"not compiled: {where.stdout.decode()}", file=sys.stderr)
            return 1
        return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=dest, env=env, check=False).returncode


if __name__ == "__main__":
    if sys.argv[1:2] != ["test"]:
        sys.exit(__doc__)
    sys.exit(test(sys.argv[2:]))
