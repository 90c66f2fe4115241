"""`spvls check -j N` (a process pool, output in the files' order) and its progress bar on a terminal."""
import shutil
from pathlib import Path

from test_cli import run
from test_cli_ux import on_terminal

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "tests" / "data" / "rules"


def _tree(tmp_path: Path) -> Path:
    """Passing and failing files over two directories, named so the order is not the pool's."""
    files = sorted(RULES.glob("*.spvasm"))[:12]
    for i, f in enumerate(files):
        sub = tmp_path / ("a" if i % 2 else "b")
        sub.mkdir(exist_ok=True)
        shutil.copy(f, sub / f"{len(files) - i:02d}-{f.name}")
    return tmp_path


def test_jobs_give_the_same_output_in_the_same_order(tmp_path):
    tree = _tree(tmp_path)
    for fmt in ("text", "json"):
        one = run("check", "-j", "1", "--format", fmt, tree)
        two = run("check", "-j", "2", "--format", fmt, tree)
        every = run("check", "-j", "0", "--format", fmt, tree)
        assert one.stdout and one.returncode == 1  # the failing rule files fail
        assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
        assert (every.returncode, every.stdout) == (one.returncode, one.stdout)


def test_progress_bar_on_a_terminal_only(tmp_path):
    tree = _tree(tmp_path)
    code, out = on_terminal("check", "-j", "2", tree)
    assert code == 1
    assert "] 0/12 files" in out and "] 12/12 files" in out and "\r[" + "#" * 30 + "] 12/12 files" in out
    last = out.rstrip().split("\n")[-1]
    assert last.endswith("\r\x1b[K" + last.split("\x1b[K")[-1])  # the bar is cleared before the summary
    assert last.split("\x1b[K")[-1].startswith("checked 12 files:")
    piped = run("check", tree)
    assert "files\r" not in piped.stderr and "/12 files" not in piped.stderr + piped.stdout
    code, out = on_terminal("check", sorted(RULES.glob("*.spvasm"))[0])
    assert " files" not in out.replace("checked 1 file", "")  # one file: no bar
