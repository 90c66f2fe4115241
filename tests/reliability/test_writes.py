"""No write loses data (spvls/fileio.py): every writer (format, check --fix, as, dis -o, cfg -o, the
LSP's spvls.assemble, the embedded-source cache) replaces a file whole or not at all, keeps its mode,
refuses a read-only file, and says when nothing was written. A full disk is a real one: the child
process runs under a file-size limit (RLIMIT_FSIZE), so its write fails with EFBIG midway, as on a
full disk or an exhausted quota."""

import errno
import os
import random
import resource
import signal
import stat
import subprocess
import sys

import pytest
from test_cli import VALID, run

from spvls import fileio
from spvls.checks import analyze
from spvls.cli import fixing
from spvls.features import sourcefiles
from spvls.model import sourcemap
from spvls.syntax.document import Document

SEED = int(os.environ.get("SPVLS_SEED") or 0)  # tests/conftest.py chooses and prints it
# A module that `spvls format` rewrites: every line indented oddly, so the new text is all new bytes.
# A module `check --fix` makes valid: its header is updated to the version OpCopyLogical needs.
FIXABLE = "; SPIR-V\n; Version: 1.0\n" + VALID.replace("OpReturn", "%c = OpCopyLogical %void %l\nOpReturn")
UNFORMATTED = "".join(f"   {line}\n" if line else "\n" for line in (VALID * 1).splitlines())


def _limited(max_bytes: int, umask: int | None = None):
    def setup() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write(), not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
        if umask is not None:
            os.umask(umask)

    return setup


def spvls(*args, limit: int = resource.RLIM_INFINITY, umask: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spvls", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited(limit, umask),
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def _padded(rng: random.Random) -> str:
    """An unformatted module of random size (a comment block pads it) in a random line ending."""
    pad = "".join(f"; {'x' * rng.randrange(0, 120)}\n" for _ in range(rng.randrange(0, 400)))
    return (pad + UNFORMATTED).replace("\n", rng.choice(["\n", "\r\n"]))


@pytest.mark.parametrize("case", range(4))
def test_a_failed_format_leaves_the_file_byte_identical(tmp_path, case):
    rng = random.Random(SEED * 10 + case)
    f = tmp_path / "m.spvasm"
    f.write_bytes(_padded(rng).encode())
    f.chmod(rng.choice([0o644, 0o600, 0o664]))
    before, mode = f.read_bytes(), stat.S_IMODE(f.stat().st_mode)
    r = spvls("format", f, limit=rng.randrange(1, len(before)))
    assert r.returncode == 1, r.stderr
    assert f.read_bytes() == before and stat.S_IMODE(f.stat().st_mode) == mode
    assert r.stderr == f"{f}: error: not written: File too large; the file is unchanged\n"
    assert os.listdir(tmp_path) == ["m.spvasm"]  # no temporary file left behind
    r = spvls("format", f)  # with room, the same command writes, keeping the mode
    assert r.returncode == 0 and f.read_bytes() != before and stat.S_IMODE(f.stat().st_mode) == mode


def test_a_failed_fix_leaves_the_file_byte_identical_and_says_so(tmp_path):
    f = tmp_path / "fix.spvasm"
    f.write_text(FIXABLE)
    before = f.read_bytes()
    r = spvls("check", "--fix", f, limit=len(before) // 2)
    assert f.read_bytes() == before
    assert f"spvls: {f}: fixes not written: File too large; the file is unchanged" in r.stderr.splitlines()
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("cmd", ["as", "dis", "cfg"])
def test_a_failed_conversion_leaves_the_output_byte_identical(tmp_path, cmd):
    src = tmp_path / "m.spvasm"
    src.write_text(VALID)
    spv = tmp_path / "m.spv"
    assert spvls("as", src, "-o", spv).returncode == 0
    inp = {"as": src, "dis": spv, "cfg": src}[cmd]
    out = tmp_path / "out"
    out.write_bytes(b"the old output\n")
    r = spvls(cmd, inp, "-o", out, limit=8)
    assert r.returncode == 1 and "not written: File too large; the file is unchanged" in r.stderr
    assert out.read_bytes() == b"the old output\n" and "Traceback" not in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["m.spv", "m.spvasm", "out"]


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path, umask):
    src = tmp_path / "m.spvasm"
    src.write_text(VALID)
    for args, out in (("as", tmp_path / "new.spv"), ("dis", tmp_path / "new.spvasm")):
        inp = src if args == "as" else tmp_path / "new.spv"
        assert spvls(args, inp, "-o", out, umask=umask).returncode == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_read_only_files_are_refused_with_a_clear_message(tmp_path):
    f = tmp_path / "ro.spvasm"
    f.write_text(UNFORMATTED)
    f.chmod(0o444)
    before = f.read_bytes()
    r = run("format", f)
    assert (r.returncode, r.stderr) == (1, f"{f}: error: not written: the file is read-only; the file is unchanged\n")
    spv = tmp_path / "ro.spv"
    spv.write_bytes(b"old")
    spv.chmod(0o444)
    r = run("as", f, "-o", spv)
    assert r.stderr == f"{spv}: error: not written: the file is read-only; the file is unchanged\n"
    assert f.read_bytes() == before and spv.read_bytes() == b"old"


def test_fix_does_not_overwrite_an_edit_made_while_it_ran(tmp_path):
    """Another program writes the file between spvls's read and its write: its edit stays."""
    f = tmp_path / "fix.spvasm"
    f.write_text(FIXABLE)
    text = f.read_text()
    diags = check(text)
    assert any(d.fixes for d in diags)

    def recheck(t: str):
        f.write_text(text + "; edited by someone else\n")  # the other program, while the fixes are made
        return check(t)

    result = fixing.fix_file(f, text, diags, recheck)
    assert result.refused == "it changed on disk since it was read; the file is unchanged"
    assert f.read_text() == text + "; edited by someone else\n"
    f.write_text(text + "; changed before the fixes began\n")
    result = fixing.fix_file(f, text, diags, check)
    assert result.refused == "the file changed on disk since it was checked; the file is unchanged"


def check(text: str) -> list:
    return analyze(Document(text)).diagnostics


def test_the_embedded_source_cache_is_bounded(tmp_path, monkeypatch):
    """Each keystroke in an embedded text names a new copy; the cache keeps the newest MAX_EMBEDDED."""
    monkeypatch.setenv("SPVLS_CACHE_DIR", str(tmp_path / "cache"))
    rng = random.Random(SEED)
    body = "void main() {}\n"
    for _ in range(3 * sourcefiles.MAX_EMBEDDED):
        at = rng.randrange(len(body) + 1)
        body = body[:at] + rng.choice("abc;{} \n") + body[at:]
        m = analyze(
            Document(
                'OpCapability Shader\nOpMemoryModel Logical GLSL450\n%s = OpString "a.comp"\n'
                f'OpSource GLSL 450 %s "{body}"\n',
                (tmp_path / "elsewhere" / "x.spvasm").as_uri(),
            )
        ).module
        path = sourcefiles.embedded_file(m, "a.comp")
        assert path is not None and path.read_text() == sourcemap.embedded_texts(m)["a.comp"]
    copies = list((tmp_path / "cache" / "embedded").iterdir())
    assert len(copies) == sourcefiles.MAX_EMBEDDED and path.parent in copies


def test_write_atomic_under_generated_failures(tmp_path, monkeypatch):
    """Random contents, modes and a write that fails after a random number of bytes: the target is
    the old bytes or the whole new ones, never a mix, and no temporary file is left."""
    rng = random.Random(SEED)
    real_write = os.write
    for i in range(60):
        target = tmp_path / f"t{i}"
        old = rng.randbytes(rng.randrange(0, 5000))
        new = rng.randbytes(rng.randrange(0, 3 << 20))
        target.write_bytes(old)
        mode = rng.choice([0o600, 0o644, 0o640, 0o755])
        target.chmod(mode)
        budget = rng.choice([None, rng.randrange(0, len(new) + 1)])
        written = [0]

        def failing_write(fd, data, budget=budget, written=written):
            if budget is not None and written[0] + len(data) > budget:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written[0] += len(data)
            return real_write(fd, data)

        monkeypatch.setattr(fileio.os, "write", failing_write)
        try:
            fileio.write_atomic(target, new)
            ok = True
        except fileio.WriteError as e:
            ok = False
            assert e.strerror == "not written: No space left on device; the file is unchanged"
        monkeypatch.setattr(fileio.os, "write", real_write)
        assert ok == (budget is None or budget >= len(new))
        assert target.read_bytes() == (new if ok else old)
        assert stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(os.listdir(tmp_path)) == sorted(f"t{i}" for i in range(60))


def test_write_atomic_refuses_what_is_not_a_regular_file_and_writes_through_a_link(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(fileio.WriteError, match="not a regular file"):
        fileio.write_atomic(fifo, b"x")
    real = tmp_path / "real"
    real.write_bytes(b"old")
    (tmp_path / "link").symlink_to(real)
    fileio.write_atomic(tmp_path / "link", b"new")
    assert real.read_bytes() == b"new" and (tmp_path / "link").is_symlink()
