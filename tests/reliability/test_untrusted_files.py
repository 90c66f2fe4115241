"""Files a request or a module names are data: never a FIFO or a device, never unbounded. Every
one of these would hang or exhaust memory if read as a file."""

import os
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_cli import VALID

from spvls.binary import commands, files
from spvls.checks import analyze
from spvls.features import hover, source
from spvls.features.docs import code
from spvls.syntax.document import Document

SEED = int(os.environ.get("SPVLS_SEED") or 0)  # tests/conftest.py chooses and prints it

TEXT = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n"


def _not_files(tmp_path):
    fifo = tmp_path / "pipe.spv"
    os.mkfifo(fifo)
    return {
        "FIFO": (fifo, "a FIFO (named pipe), not a file: not read"),
        "device": ("/dev/zero", "a device, not a file: not read"),
        "directory": (tmp_path, "a directory, not a file"),
    }


@pytest.mark.parametrize("command", ["disassemble", "assemble"])
def test_the_binary_commands_refuse_what_is_not_a_file(tmp_path, command):
    for kind, (path, reason) in _not_files(tmp_path).items():
        arg = {"uri": f"file://{path}", "text": TEXT}
        with pytest.raises(commands.CommandError) as e:
            commands.disassemble((arg,)) if command == "disassemble" else commands.assemble((arg,), None)
        assert e.value.message == f"{path}: {reason}", kind


def test_the_binary_commands_refuse_a_file_over_the_limit(tmp_path, monkeypatch):
    big = tmp_path / "big.spv"
    big.write_bytes(b"\x03\x02\x23\x07" + bytes(4096))
    monkeypatch.setattr(files, "MAX_BYTES", 1024)
    with pytest.raises(commands.CommandError) as e:
        commands.disassemble(({"uri": big.as_uri()},))
    assert e.value.message == f"{big}: 4100 bytes, over the 1024-byte limit: not read"


def test_check_passes_over_a_fifo_a_directory_holds(tmp_path):
    (tmp_path / "ok.spvasm").write_text(VALID)
    os.mkfifo(tmp_path / "trap.spvasm")  # nobody writes it: opening it to read would wait forever
    r = subprocess.run([sys.executable, "-m", "spvls", "check", tmp_path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"spvls: skipped {tmp_path / 'trap.spvasm'}: a FIFO (named pipe), not a file: not read" in r.stderr


def test_a_fifo_named_on_the_command_line_is_read(tmp_path):
    """`spvls dis <(spirv-as …)`: the user chose the pipe; it is read once, whole."""
    src = tmp_path / "m.spvasm"
    src.write_text(VALID)
    spv = tmp_path / "m.spv"
    subprocess.run([sys.executable, "-m", "spvls", "as", src, "-o", spv], check=True, timeout=60)
    r = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m spvls dis <(cat {spv})"], capture_output=True, text=True, timeout=60
    )
    direct = subprocess.run([sys.executable, "-m", "spvls", "dis", spv], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, direct.stdout) and "OpFunctionEnd" in r.stdout, r.stderr


MODULE = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "{name}"
OpName %main "{name}"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%l = OpLabel
OpLine %file 1 1
OpReturn
OpFunctionEnd
"""
RETURN = 11  # the line of OpReturn, which OpLine maps to line 1 of the named file


def _answer(fn, *args, seconds: float = 60):
    """fn's answer from a thread, or a failure when it has not answered in `seconds` (a FIFO opened
    for reading would block it forever: the guard against a hang, not a speed test)."""
    out: list = []
    t = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"{fn.__name__} did not answer (hung)"
    return out[0]


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def test_a_module_reads_source_files_only_under_its_roots(tmp_path, monkeypatch):
    """Generated file names: outside the roots (absolute, ../, a link out), not a file (a FIFO, a
    device), a 2 GB file with no line break; only files under the module's folder or a given root are
    read, the others shown by name only, and none hangs."""
    monkeypatch.setenv("SPVLS_CACHE_DIR", str(tmp_path / "cache"))
    root, given, outside = tmp_path / "root", tmp_path / "given", tmp_path / "outside"
    for d in (root, given, outside):
        d.mkdir()
    (outside / "secret.glsl").write_text("SECRET line\n")
    (root / "inside.glsl").write_text("INSIDE line\n")
    (given / "lib.glsl").write_text("GIVEN line\n")
    (root / "link.glsl").symlink_to(outside / "secret.glsl")
    os.mkfifo(root / "pipe.glsl")
    with open(root / "huge.glsl", "wb") as f:  # sparse: 2 GB of NULs, no line break
        f.truncate(2 << 30)
    kinds = {
        "outside": (str(outside / "secret.glsl"), None),
        "dotdot": ("../outside/secret.glsl", None),
        "link": ("link.glsl", None),
        "proc": ("/proc/self/environ", None),
        "fifo": ("pipe.glsl", None),
        "device": ("/dev/zero", None),
        "huge": ("huge.glsl", ""),  # under the root: go-to-source leads there; hover reads 16 MB of it, no line
        "inside": ("inside.glsl", "INSIDE line"),
        "inside-absolute": (str(root / "inside.glsl"), "INSIDE line"),
        "given": ("lib.glsl", "GIVEN line"),
    }
    rng = random.Random(SEED)
    for kind in rng.sample(sorted(kinds), len(kinds)) * 2:
        name, line = kinds[kind]
        if rng.random() < 0.5 and not name.startswith("/"):
            name = "./" + name
        m = analyze(Document(MODULE.format(name=_escaped(name)), (root / "m.spvasm").as_uri())).module
        md, _ = _answer(hover.hover, m, RETURN, 2, [given])
        assert "SECRET" not in md and "INSIDE" not in md.replace("INSIDE line", "") and "\0" not in md, (kind, md)
        assert (line in md) if line else ("```glsl" not in md), (kind, md)
        target = _answer(source.definition, m, RETURN, 2, [given])
        assert (target is not None) == (line is not None), (kind, target)  # the others: the name only


def test_names_from_a_module_are_not_markdown_in_hover(tmp_path):
    """File names and OpName strings with links, images, HTML and backticks show as code, whatever
    they hold (an image in a hover would load from the module's address)."""
    rng = random.Random(SEED)
    pieces = ["![i](http://x/i.png)", "[l](http://x)", "<img src=x>", "`", "``", "*", "_", "\\", '"', "a", " ", "#"]
    for _ in range(40):
        name = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        m = analyze(Document(MODULE.format(name=_escaped(name)), (tmp_path / "m.spvasm").as_uri())).module
        md, _ = hover.hover(m, RETURN, 2)
        assert md.startswith(f"Source: {code(name + ':1:1')}\n"), (name, md)
        md, _ = hover.hover(m, 8, 1)  # on %main's definition: its OpName
        assert f"OpName: {code(name)}" in md, (name, md)
        assert re.fullmatch(r"(`+) ?.*? ?\1", code(name), re.DOTALL), code(name)


def test_the_user_lists_more_roots_in_a_setting_and_on_the_command_line():
    from spvls.cli import parser
    from spvls.state.workspace import Workspace

    ws = Workspace()
    ws.folders = [Path("/ws")]
    ws.given_roots = [Path(p) for p in parser().parse_args(["--source-root", "/a", "--source-root", "/b"]).source_root]
    assert ws.settings.update({"sourceRoots": ["/c"]}) == []
    assert ws.folders == [Path("/ws"), Path("/a"), Path("/b"), Path("/c")]
    assert ws.settings.update({"sourceRoots": ["relative"]}) == [
        "spvls settings: sourceRoots: expected a list of absolute directory paths; kept [PosixPath('/c')]"
    ]



UBO = Path(__file__).resolve().parents[1] / "data" / "features" / "hover" / "resource-ubo-layout.spvasm"


def test_resource_names_stay_code_in_the_hover_table():
    """A resource's OpName and its members' OpMemberNames with pipes, backticks and links: each in
    a code span, a pipe escaped so the member table keeps its four columns."""
    rng = random.Random(SEED)
    pieces = ["|", "`", "``", "[l](http://x)", "![i](http://x/i.png)", "<b>", "a", "*", " "]
    base = UBO.read_text()
    for _ in range(30):
        var, member = ("".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(2))
        text = base.replace('OpName %materials "materials"', f'OpName %materials "{_escaped(var)}"').replace(
            'OpMemberName %Materials 0 "albedo"', f'OpMemberName %Materials 0 "{_escaped(member)}"')
        m = analyze(Document(text)).module
        line = next(n for n, t in enumerate(m.doc.texts) if "%materials = OpVariable" in t)
        md, _ = hover.hover(m, line, m.doc.texts[line].index("%materials") + 1)
        assert code(var) in md, (var, md)
        cell = code(member).replace("|", chr(92) + "|")
        (row,) = [r for r in md.splitlines() if f"| {cell} |" in r]
        assert len(re.findall(r"(?<!\\)\|", row)) == 5, row  # four cells
