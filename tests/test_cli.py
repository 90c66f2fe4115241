"""`spvls check`: output format, exit codes, and hostile files."""
import json
import subprocess
import sys

import pytest

from spvls.cli import main

VALID = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
"""


def run(*args):
    return subprocess.run([sys.executable, "-m", "spvls", *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def test_valid_file_exits_0(tmp_path):
    f = tmp_path / "ok.spvasm"
    f.write_text(VALID)
    r = run("check", f)
    assert r.returncode == 0 and r.stdout == ""


def test_error_line_format_and_exit_1(tmp_path):
    f = tmp_path / "bad.spvasm"
    f.write_text(VALID.replace("OpReturn", "OpRetrun"))
    r = run("check", f)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        f"{f}:9:1: error: unknown instruction 'OpRetrun'; did you mean 'OpReturn'? [operand.unknown-opcode]"]


def test_json_format(tmp_path):
    f = tmp_path / "bad.spvasm"
    f.write_text(VALID.replace("None %fn", "Nonee %fn"))
    r = run("check", "--format", "json", f)
    data = json.loads(r.stdout)
    assert r.returncode == 1
    assert data[0]["code"] == "operand.unknown-enumerant" and data[0]["line"] == 7


def test_target_env_from_header_and_flag(tmp_path):
    f = tmp_path / "v.spvasm"
    f.write_text("; Version: 1.0\n" + VALID.replace("OpReturn", "%x = OpGroupNonUniformElect %b %s\nOpReturn"))
    assert "requires" in run("check", f).stdout  # GroupNonUniform capability missing either way


def test_usage_error_exits_2():
    assert run("check").returncode == 2
    assert run("check", "--target-env", "vulkan9", "x").returncode == 2


@pytest.mark.parametrize("content,code", [
    (None, "io.unreadable"),
    (b"\x03\x02\x23\x07" + b"\x00" * 40, "syntax.binary"),
    (b"", "syntax.empty"),
    (b"OpCapability Shader\n\xff\xfe OpNop\n", "syntax.encoding"),
    (b"\x00\x01garbage\x02" * 100, "syntax.parse"),
])
def test_hostile_files_give_a_diagnostic_not_a_traceback(tmp_path, capsys, content, code):
    f = tmp_path / "f.spvasm"
    if content is not None:
        f.write_bytes(content)
    rc = main(["check", str(f)])
    out = capsys.readouterr().out
    assert f"[{code}]" in out
    assert rc == (0 if code == "syntax.empty" else 1)


def test_200kb_line(tmp_path, capsys):
    f = tmp_path / "long.spvasm"
    f.write_text(VALID + "OpName %main \"" + "x" * 200_000 + "\" %junk\n")
    assert main(["check", str(f)]) == 1
    assert "[operand.extra]" in capsys.readouterr().out
