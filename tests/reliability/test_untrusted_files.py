"""Files a request or a module names are data: never a FIFO or a device, never unbounded. Every
one of these would hang or exhaust memory if read as a file."""

import os
import subprocess
import sys

import pytest
from test_cli import VALID

from spvls.binary import commands, files

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
