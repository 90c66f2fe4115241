"""`spvls check`/`format` as a person at a terminal and a CI job use them (issue 15, points 7–12)."""

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from helpers import build, tool
from test_cli import VALID, run, run_process

from spvls import __version__
from spvls.checks.families import ballot
from spvls.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROTATE = VALID.replace("OpReturn", "%u = OpTypeInt 32 0\nOpReturn")  # any module; rules below need more


def on_terminal(*args, env=None):
    """Run spvls with stdout and stderr on a pseudo-terminal, as a person at a shell does."""
    leader, follower = pty.openpty()
    p = subprocess.Popen(
        [sys.executable, "-m", "spvls", *map(str, args)],
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm", **(env or {})},
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return p.wait(timeout=60), out.decode().replace("\r\n", "\n")


def test_version():
    for r in run("--version"), run_process("--version"):
        assert r.returncode == 0 and r.stdout == f"spvls {__version__}{build()}\n"


def test_a_closed_pipe_is_no_traceback(tmp_path):
    f = tmp_path / "many.spvasm"
    f.write_text(VALID + "OpRetrun\n" * 5000)
    p = subprocess.Popen(
        [sys.executable, "-m", "spvls", "check", str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert p.stdout.readline().startswith(str(f).encode())
    p.stdout.close()  # as `| head -1` does
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_terminal_gets_source_caret_colour_and_summary(tmp_path):
    f = tmp_path / "bad.spvasm"
    f.write_text(VALID.replace("OpReturn", "\tOpRetrun"))
    code, out = on_terminal("check", f)
    assert code == 1
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "\x1b[1;31merror:\x1b[0m" in out
    assert plain.splitlines() == [
        f"{f}:9:2: error: unknown instruction 'OpRetrun'; did you mean 'OpReturn'? [operand.unknown-opcode]",
        "9 | \tOpRetrun",
        "  | \t^^^^^^^^",
        f"{f}:9:2: note: spirv-as: Invalid Opcode name 'OpRetrun'",  # the same mistake, in spirv-as's words
        "",
        "checked 1 file: 1 error, 0 warnings",
    ]
    code, out = on_terminal("check", "--color", "never", f)
    assert "\x1b[" not in out and "  | \t^^^^^^^^" in out
    assert "\x1b[" not in on_terminal("check", f, env={"NO_COLOR": "1"})[1]


def test_color_always_in_a_pipe_and_related_notes(tmp_path):
    path = os.path.join(ROOT, "tests", "data", "rules", "ballot-fail.spvasm")
    records = json.loads(run("check", "--format", "json", path).stdout)
    first = next(r for r in records if r["related"])
    out = run("check", "--color", "always", path).stdout
    assert "\x1b[" in out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out).splitlines()
    sev = {"information": "info"}.get(first["severity"], first["severity"])
    head = f"{path}:{first['line']}:{first['column']}: {sev}: {first['message']} [{first['code']}]"
    i = plain.index(head)
    lines = Path(path).read_text().splitlines()
    assert plain[i + 1] == f"{first['line']} | {lines[first['line'] - 1]}"
    rel = first["related"][0]
    assert plain[i + 3] == f"{path}:{rel['line']}:{rel['column']}: note: {rel['message']}"
    # In a pipe without colour: the one-line form, and the notes as clang prints them.
    piped = run("check", path).stdout.splitlines()
    j = piped.index(head)
    assert piped[j + 1] == f"{path}:{rel['line']}:{rel['column']}: note: {rel['message']}"


def test_fix_applies_the_safe_fixes_and_says_which(tmp_path):
    f = tmp_path / "fix.spvasm"
    f.write_text(VALID.replace("OpReturn", "%s = OpSizeOf %fn %fn\nOpReturn\n").replace("None %fn", "Nonee %fn"))
    r = run("check", "--fix", f)
    assert f"{f}:9:6: fixed: Add 'OpCapability Addresses' [capability.missing]" in r.stdout.splitlines()
    fixed = f.read_text()
    assert fixed.startswith("OpCapability Shader\nOpCapability Addresses\nOpMemoryModel")
    assert "Nonee" in fixed  # a did-you-mean is a guess: not applied
    assert "[operand.unknown-enumerant]" in r.stdout and r.returncode == 1
    assert run("check", "--fix", f).stdout.count("fixed:") == 0  # nothing safe left


def test_fix_says_when_nothing_was_safe_to_apply(tmp_path):
    f = tmp_path / "guess.spvasm"
    f.write_text(VALID.replace("None %fn", "Nonee %fn"))  # a did-you-mean: a guess, never applied
    r = run("check", "--fix", f)
    assert r.returncode == 1 and f.read_text() == VALID.replace("None %fn", "Nonee %fn")
    assert r.stderr.splitlines() == [
        "spvls: --fix: nothing was safe to apply: the fixes of 1 diagnostic are choices (more than one way to "
        "meet the rule); an editor's quick fixes offer them",
        "checked 1 file: 1 error, 0 warnings"]
    f.write_text(VALID.replace("OpReturn", "OpBranch %nowhere"))
    assert run("check", "--fix", f).stderr.splitlines()[0] == "spvls: --fix: nothing was fixed: no diagnostic has a fix"


def test_a_pipe_gets_the_summary_on_stderr(tmp_path):
    """As ruff: the counts always, on stderr, so stdout holds only the diagnostics (or the format's output)."""
    bad, good = tmp_path / "bad.spvasm", tmp_path / "good.spvasm"
    bad.write_text(VALID.replace("OpReturn", "OpRetrun"))
    good.write_text(VALID)
    r = run("check", bad, good)
    assert (r.returncode, r.stderr) == (1, "checked 2 files: 1 error, 0 warnings\n")
    assert r.stdout.splitlines()[0] == (f"{bad}:9:1: error: unknown instruction 'OpRetrun'; did you mean "
                                        "'OpReturn'? [operand.unknown-opcode]")
    r = run("check", "--format", "json", good)
    assert (r.returncode, json.loads(r.stdout), r.stderr) == (0, [], "checked 1 file: 0 errors, 0 warnings\n")


def test_header_version_message_and_fix(tmp_path):
    f = tmp_path / "v.spvasm"
    f.write_text("; SPIR-V\n; Version: 1.0\n" + VALID.replace("OpReturn", "%c = OpCopyLogical %void %l\nOpReturn"))
    records = json.loads(run("check", "--format", "json", f).stdout)
    d = next(r for r in records if r["code"] == "capability.version")
    assert "'; Version: 1.0' header comment" in d["message"] and "--target-env" in d["message"]
    assert d["fixes"][0]["title"] == "Update the header to '; Version: 1.4'"
    assert d["fixes"][0]["edits"] == [{"line": 2, "column": 12, "endColumn": 15, "text": "1.4"}]
    # The flag wins over the header, and then nothing about the header is said.
    assert "header comment" not in run("check", "--target-env", "spv1.4", f).stdout
    run("check", "--fix", f)
    assert f.read_text().startswith("; SPIR-V\n; Version: 1.4\n")


def test_format_diff_changes_nothing(tmp_path, monkeypatch):
    f = tmp_path / "m.spvasm"
    f.write_text(VALID)
    run("format", f)
    messy = re.sub(r"^ *%void = OpTypeVoid", "%void   =  OpTypeVoid", f.read_text(), flags=re.M)
    f.write_text(messy)
    n = messy.split("\n").index("%void   =  OpTypeVoid") + 1
    context = messy.split("\n")[max(n - 4, 0) : n + 3]
    start, count = max(n - 3, 1), len(context)

    def hunk(before, after):
        body = [" " + x if x != "%void   =  OpTypeVoid" else "-" + x for x in context]
        body.insert(body.index("-%void   =  OpTypeVoid") + 1, "+       %void = OpTypeVoid")
        return [f"--- {before}", f"+++ {after}", f"@@ -{start},{count} +{start},{count} @@", *body]

    r = run("format", "--diff", f)  # an absolute path: as it is (not a//tmp/...)
    assert r.returncode == 1 and f.read_text() == messy
    assert r.stdout.splitlines() == hunk(f, f)
    monkeypatch.chdir(tmp_path)  # a relative one: git's a/ and b/, so `git apply` takes it
    r = run("format", "--diff", "m.spvasm")
    assert r.returncode == 1 and r.stdout.splitlines() == hunk("a/m.spvasm", "b/m.spvasm")
    run("format", f)
    r = run("format", "--diff", f)
    assert r.returncode == 0 and r.stdout == ""


def test_select_and_ignore_take_codes_and_families(tmp_path, capsys):
    f = tmp_path / "m.spvasm"
    f.write_text(VALID.replace("OpReturn", "OpRetrun").replace("None %fn", "Nonee %fn"))

    def codes(*args):
        main(["check", "--format", "json", *args, str(f)])
        return sorted(r["code"] for r in json.loads(capsys.readouterr().out))

    both = ["operand.unknown-enumerant", "operand.unknown-opcode"]
    assert codes() == both
    assert codes("--select", "operand.unknown-opcode") == ["operand.unknown-opcode"]
    assert codes("--ignore", "operand") == []
    assert codes("--select", "id,operand", "--ignore", "operand.unknown-opcode") == ["operand.unknown-enumerant"]


def test_a_mistyped_code_or_family_is_a_usage_error(tmp_path, capsys):
    """A typo in --select would otherwise check nothing and pass a CI job."""
    f = tmp_path / "m.spvasm"
    f.write_text(VALID.replace("OpReturn", "OpRetrun"))
    assert main(["check", "--select", "operand,rotat", str(f)]) == 2
    assert capsys.readouterr() == (
        "",
        "spvls check: --select: no code or family is named 'rotat'; did you mean 'rotate'?\n",
    )
    assert main(["check", "--ignore", "bogus.code", str(f)]) == 2
    assert "--ignore: no code or family is named 'bogus.code'" in capsys.readouterr().err
    for known in ("rotate", "rotate.delta", "spirv-val", "spirv-val.VUID-StandaloneSpirv-None-10685"):
        assert main(["check", "--no-spirv-val", "--select", known, str(f)]) == 0, known
        capsys.readouterr()


def test_inline_suppression(tmp_path):
    f = tmp_path / "m.spvasm"
    f.write_text(
        VALID.replace("OpReturn", "OpRetrun ; spvls: ignore[operand.unknown-opcode]")
        .replace("%main = OpFunction", "; spvls: ignore[operand]\n%main = OpFunction")
        .replace("None %fn", "Nonee %fn")
    )
    r = run("check", f)
    assert r.returncode == 0 and r.stdout == ""
    f.write_text("; spvls: ignore-file[operand, rotate]\n" + VALID.replace("OpReturn", "OpRetrun"))
    r = run("check", f)
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        f"{f}:1:31: warning: unused suppression: no 'rotate' diagnostic in this file [suppression.unused]"
    ]
    # A comment two lines above covers nothing; it is said to be unused.
    f.write_text(VALID.replace("OpReturn", "; spvls: ignore[operand]\nOpNop\nOpRetrun"))
    assert [line.split(": ", 2)[1] for line in run("check", f).stdout.splitlines()] == ["warning", "error", "note"]


def test_github_annotations(tmp_path):
    f = tmp_path / "m.spvasm"
    f.write_text(VALID.replace("OpReturn", "OpRetrun"))
    r = run("check", "--format", "github", f)
    assert r.returncode == 1
    assert r.stdout.splitlines() == [
        f"::error file={f},line=9,col=1,endColumn=9,title=spvls operand.unknown-opcode::"
        f"unknown instruction 'OpRetrun'; did you mean 'OpReturn'?%0A{f}:9:1: note: spirv-as: Invalid Opcode name 'OpRetrun'"
    ]


def test_sarif(tmp_path):
    path = os.path.join(ROOT, "tests", "data", "rules", "ballot-fail.spvasm")
    records = json.loads(run("check", "--format", "json", path).stdout)
    log = json.loads(run("check", "--format", "sarif", path).stdout)
    assert log["version"] == "2.1.0"
    (r,) = log["runs"]
    rules = [x["id"] for x in r["tool"]["driver"]["rules"]]
    assert rules == sorted({x["code"] for x in records})
    assert r["tool"]["driver"]["rules"][rules.index("ballot.index")] == {
        "id": "ballot.index",
        "shortDescription": {"text": "OpSubgroupReadInvocationKHR whose Index is not a scalar integer."},
        "fullDescription": {"text": "SPV_KHR_shader_ballot: " + ballot.FAMILY.sentence("ballot.index")},
        "helpUri": "https://github.khronos.org/SPIRV-Registry/extensions/KHR/SPV_KHR_shader_ballot.html",
    }
    assert len(r["results"]) == len(records)
    for res, rec in zip(r["results"], records, strict=True):
        assert rules[res["ruleIndex"]] == res["ruleId"] == rec["code"]
        assert res["level"] == {"error": "error", "warning": "warning"}.get(rec["severity"], "note")
        region = res["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (rec["line"], rec["column"])
        assert len(res.get("relatedLocations", [])) == len(rec["related"])


def test_a_latin1_byte_in_a_comment_is_a_warning(tmp_path):
    f = tmp_path / "l1.spvasm"
    body = VALID.replace("%void = OpTypeVoid", "%void   =  OpTypeVoid ; caf\xe9").encode("latin-1")
    f.write_bytes(body)
    spirv_as = tool("spirv-as")
    assert subprocess.run([spirv_as, f, "-o", tmp_path / "l1.spv"]).returncode == 0  # spirv-as accepts it
    r = run("check", f)
    assert r.returncode == 0
    assert r.stdout.splitlines() == [
        f"{f}:5:28: warning: byte 0xe9 in a comment is not UTF-8 (Latin-1?): spirv-as "
        "skips comments, but editors and other tools read the file as UTF-8 "
        "(shown here as U+FFFD) [syntax.encoding]"
    ]
    # format keeps the byte: it lays out the other lines and leaves that one as it is.
    assert run("format", f).returncode == 0
    out = f.read_bytes().split(b"\n")
    assert out[4] == body.split(b"\n")[4] and out[0] == b"               OpCapability Shader"
    f.write_bytes(b'OpCapability Shader\nOpName %x "caf\xe9"\n')
    assert "error: byte 0xe9 is not UTF-8" in run("check", f).stdout


def test_a_directory_says_what_it_skipped(tmp_path):
    (tmp_path / "a.spvasm").write_text(VALID)
    (tmp_path / "b.spv").write_bytes(b"\x03\x02\x23\x07" + b"\x00" * 16)  # a binary module: checked as one
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "c.asm.vk.comp").write_text(VALID)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.spvasm").write_text("OpRetrun")
    r = run("check", tmp_path)
    assert r.returncode == 1 and r.stdout.splitlines() == [
        f"{tmp_path / 'b.spv'}:1:1: error: word 3: the id bound (header word 3) is 0: every <id> must be below it "
        "[binary.malformed]"
    ]
    assert r.stderr.splitlines()[:-1] == [
        f"spvls: skipped {tmp_path / '.git'}: hidden directory, not searched",
        f"spvls: skipped {tmp_path / 'notes.txt'}: not SPIR-V assembly: neither its name nor a '; SPIR-V' "
        "first line says so",
    ]
