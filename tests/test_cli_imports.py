"""A command imports what it needs and nothing else: `--version` no spvls module but the CLI's
entry, no command the server's stack (pygls, lsprotocol, spvls.server, spvls.state), `check` of a
text file not the binary reader. Each run is a fresh interpreter, as a shell's would be."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spvls.cli import COMMANDS, command_of
from tests.helpers import build

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "matmul.spvasm")
SERVER_STACK = ("pygls", "lsprotocol", "spvls.server", "spvls.state", "spvls.features.completion")


def imported(*argv: str) -> set[str]:
    """The modules a run of `spvls ARGV` had loaded when it finished."""
    script = (
        "import json, sys\n"
        "from spvls.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stdout.flush()\n"
        "print('\\n' + json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=ROOT, check=False, timeout=120
    )
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "spvls" or m.startswith("spvls.")}


def test_version_imports_only_the_entry() -> None:
    assert ours(imported("--version")) == {"spvls", "spvls.cli"}


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--no-spirv-val", EXAMPLE),
        ("check", EXAMPLE),
        ("format", "--check", EXAMPLE),
        ("doc", "OpLoopMerge"),
        ("cfg", EXAMPLE),
        ("dis", "--help"),
    ],
)
def test_no_command_imports_the_server_stack(argv: tuple[str, ...]) -> None:
    modules = imported(*argv)
    assert {m for m in modules if m.split(".")[0] in ("pygls", "lsprotocol")} == set()
    assert not [m for m in modules if m.startswith(SERVER_STACK)]


def test_a_text_check_does_not_load_the_binary_reader_or_other_commands() -> None:
    modules = ours(imported("check", "--no-spirv-val", EXAMPLE))
    assert "spvls.binary.convert" not in modules
    others = {f"spvls.cli.{module}" for module, _ in COMMANDS.values()} - {"spvls.cli.check"}
    assert modules & others == set()


def test_command_is_found_before_parsing() -> None:
    assert command_of(["check", "x"]) == "check"
    assert command_of(["--port", "check", "dis"]) == "dis"  # the port's value is not a command
    assert command_of(["--tcp", "--host", "h", "as", "f"]) == "as"
    assert command_of(["--version"]) is None
    assert command_of(["nonsense", "check"]) is None  # argparse reports the bad command
    assert command_of([]) is None


def test_every_command_has_its_help_and_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from spvls.cli import main

    for name in COMMANDS:
        with pytest.raises(SystemExit) as stop:
            main([name, "--help"])
        assert stop.value.code == 0
        text = capsys.readouterr().out
        assert text.startswith(f"usage: spvls {name} ")
        assert COMMANDS[name][1] in " ".join(text.split())


def test_version_fails_where_spvls_cannot_run(tmp_path: Path) -> None:
    """Editors ask `--version` whether an interpreter has a working spvls: in a virtual environment
    without spvls's dependencies it says which are missing and exits 1, though it imports nothing."""
    bare = tmp_path / "bare"
    subprocess.run([sys.base_prefix + "/bin/python3", "-m", "venv", "--without-pip", str(bare)], check=True)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [str(bare / "bin" / "python"), "-m", "spvls", "--version"], capture_output=True, text=True, env=env, check=False
    )
    assert (out.returncode, out.stdout) == (1, "")
    python = bare / "bin" / "python"
    assert out.stderr == (
        f"spvls 0.1.0 cannot run with {python}: lark, pygls, lsprotocol not installed "
        "(install spvls with pip, which brings them)\n"
    )
    ok = subprocess.run([sys.executable, "-m", "spvls", "--version"], capture_output=True, text=True, check=False)
    assert (ok.returncode, ok.stdout) == (0, f"spvls 0.1.0{build()}\n")
