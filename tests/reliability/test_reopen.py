"""What is saved can be reopened: whatever `spvls as` / spvls.assemble writes, `spvls dis` reads;
what it cannot write so, it refuses at the line that says why. And a disassembly saved unchanged is
the same bytes, strings included (bytes that are not UTF-8, bytes after the terminating NUL).
Inputs are generated from the seed tests/conftest.py prints."""

import os
import random
from pathlib import Path

import pytest
from test_cli import VALID, run

from spvls.binary import convert, words

SEED = int(os.environ.get("SPVLS_SEED") or 0)
EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.spvasm"))


def _assembles(path: Path) -> bool:
    try:
        convert.assemble(path.read_text())
    except convert.AssembleError:
        return False  # mistakes.spvasm: errors on purpose
    return True


MODULES = [p for p in EXAMPLES if _assembles(p)]


def _reopens_or_refused(text: str) -> str:
    """'saved' when the text assembles to words `disassemble` reads, 'refused' when assemble says
    why at a line; anything else fails the test."""
    try:
        result = convert.assemble(text)
    except convert.AssembleError as e:
        assert e.message, text
        return "refused"
    convert.disassemble(words.to_bytes(result))  # raises BinaryError: a saved module that cannot be reopened
    return "saved"


def test_generated_header_comments_save_only_what_reopens():
    rng = random.Random(SEED)
    seen = {"saved": 0, "refused": 0}
    for _ in range(150):
        fields = []
        for key in rng.sample(["Version", "Bound", "Schema", "Generator"], rng.randint(1, 4)):
            if key == "Version":
                value = f"{rng.choice([0, 1, 1, 1, 2, 255])}.{rng.choice([0, 3, 6, 7, 44, 300, rng.randrange(1000)])}"
            elif key == "Generator":
                value = f"Unknown({rng.choice([0, 8, 65535, 65536, 1 << 40])}); {rng.choice([0, 1, 65536])}"
            else:
                value = str(rng.choice([0, 1, 5, 4294967295, 4294967296, 99999999999, rng.randrange(1 << 40)]))
            fields.append(f"; {key}: {value}")
        text = "; SPIR-V\n" + "\n".join(fields) + "\n" + VALID
        seen[_reopens_or_refused(text)] += 1
    assert seen["saved"] and seen["refused"], seen


def test_generated_raw_words_and_duplicate_definitions_save_only_what_reopens():
    rng = random.Random(SEED + 1)
    texts = [VALID] + [p.read_text() for p in EXAMPLES]
    seen = {"saved": 0, "refused": 0}
    for _ in range(80):
        lines = rng.choice(texts).split("\n")
        at = rng.randrange(len(lines))
        if rng.random() < 0.5:
            word = rng.choice(
                [0, 1, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x00020000 | rng.randrange(400), rng.randrange(1 << 32)]
            )
            lines.insert(at, f"!{word}" if rng.random() < 0.5 else f"!0x{word:x}")
        else:
            defining = [line for line in lines if "= Op" in line]
            lines.insert(at, rng.choice(defining))  # the same id defined twice
        seen[_reopens_or_refused("\n".join(lines))] += 1
    assert seen["refused"], seen


def test_as_refuses_what_dis_would_refuse_with_its_line(tmp_path):
    cases = {
        "; Version: 1.7": "2:12: error: '; Version: 1.7' is no SPIR-V version spvls can reopen (1.0 to 1.6)",
        "; Version: 1.300": "2:12: error: '; Version: 1.300' is no SPIR-V version spvls can reopen (1.0 to 1.6)",
        "; Bound: 99999999999": "2:10: error: '; Bound: 99999999999': a header word is a number from 0 to 4294967295",
    }
    for header, expected in cases.items():
        f = tmp_path / "m.spvasm"
        f.write_text(f"; SPIR-V\n{header}\n{VALID}")
        r = run("as", f, "-o", tmp_path / "m.spv")
        assert (r.returncode, r.stderr.split(": the saved")[0].split("\n")[0]) == (1, f"{f}:{expected}")
    f.write_text(VALID.replace("%l = OpLabel", "%l = OpLabel\n%l = OpLabel"))
    r = run("as", f, "-o", tmp_path / "m.spv")
    assert r.stderr == (
        f"{f}:9:1: error: `spvls dis` could not reopen the saved module: the disassembler refuses it: "
        "Id 4 is defined more than once\n"
    )
    f.write_text(VALID + "!4294967295\n")
    r = run("as", f, "-o", tmp_path / "m.spv")
    assert r.stderr == (
        f"{f}:11:1: error: `spvls dis` could not reopen the saved module: truncated: opcode 65535 needs 65535 "
        "words, only 1 are left\n"
    )
    assert not (tmp_path / "m.spv").exists()


def _strings(data: bytearray) -> list[tuple[int, int]]:
    """(first byte, end byte) of each literal string of OpName, OpString, OpMemberName, OpSource."""
    mod = words.read(bytes(data))
    out = []
    for off in mod.offsets:
        w = mod.words[off]
        count, op = w >> 16, w & 0xFFFF
        first = {5: 2, 7: 2, 6: 3, 3: 4}.get(op)  # OpName, OpString, OpMemberName, OpSource: the string's word
        if first is not None and first < count:
            out.append((4 * (off + first), 4 * (off + count)))
    return out


def _named_module(rng: random.Random) -> str:
    """VALID with strings of random lengths (so every padding length occurs) in OpString, OpName,
    OpMemberName and OpSource."""

    def word() -> str:
        return "".join(rng.choice("abcxyz_é") for _ in range(rng.randrange(0, 14)))

    return VALID.replace(
        "%void = OpTypeVoid",
        f'%file = OpString "{word()}"\nOpSource GLSL 450 %file "{word()}"\nOpName %main "{word()}"\n'
        f'OpName %st "{word()}"\nOpMemberName %st 0 "{word()}"\n%void = OpTypeVoid\n'
        "%u = OpTypeInt 32 0\n%st = OpTypeStruct %u",
    )


@pytest.mark.parametrize("case", range(8))
def test_strings_round_trip_byte_exact(case):
    """Bytes that are not UTF-8 in a string, and bytes in the padding after its NUL, survive a
    disassembly saved unchanged; an edit elsewhere keeps them too."""
    rng = random.Random(SEED * 100 + case)
    data = bytearray(words.to_bytes(convert.assemble(_named_module(rng))))
    for start, end in _strings(data):
        nul = data.index(0, start, end)
        for k in range(start, nul):
            if rng.random() < 0.3:
                data[k] = rng.choice([0x80, 0xC0, 0xFF, 0xFE, rng.randrange(0x80, 0x100)])
        for k in range(nul + 1, end):
            data[k] = rng.randrange(256)
    original = words.read(bytes(data))
    text = convert.disassemble(bytes(data)).text
    assert words.to_bytes(convert.assemble(text, None, original)) == bytes(data)
    edited = text.replace("OpFunctionEnd", "OpFunctionEnd\n; an edit", 1).replace("\n", "\n\n", 1)
    assert words.to_bytes(convert.assemble(edited, None, original)) == bytes(data)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_an_unchanged_disassembly_saves_the_same_bytes(path, tmp_path):
    spv, text = tmp_path / "m.spv", tmp_path / "m.spvasm"
    assert run("as", path, "-o", spv).returncode == 0
    assert run("dis", spv, "-o", text).returncode == 0
    again = tmp_path / "again.spv"
    assert run("as", text, "--ids-from", spv, "-o", again).returncode == 0
    assert again.read_bytes() == spv.read_bytes()


def test_a_module_that_does_not_validate_is_saved_and_said_or_refused(tmp_path):
    """Generated breakages that assemble (an undefined type becomes a fresh id, a wrong operand):
    written with a warning at the line by default, refused when asked (--refuse-invalid, the
    refuseInvalidSave setting for spvls.assemble)."""
    from spvls.binary import commands

    rng = random.Random(SEED)
    text_lines = VALID.replace("OpReturn", "%x = OpIAdd %uint %k %k\nOpReturn").replace(
        "%void = OpTypeVoid", "%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%k = OpConstant %uint 1"
    ).split("\n")
    src, out = tmp_path / "m.spvasm", tmp_path / "m.spv"
    for _ in range(6):
        lines = list(text_lines)
        at = next(i for i, line in enumerate(lines) if "OpIAdd" in line)
        lines[at] = rng.choice(["%x = OpIAdd %uintx %k %k", "%x = OpIAdd %uint %k %void", "%x = OpIAdd %uint %l %k"])
        src.write_text("\n".join(lines))
        out.unlink(missing_ok=True)
        r = run("as", src, "-o", out)
        assert r.returncode == 0 and out.exists(), r.stderr
        assert r.stderr.startswith(f"{src}:{at + 1}:1: warning: written, but spirv-val rejects it: "), r.stderr
        out.unlink()
        r = run("as", "--refuse-invalid", src, "-o", out)
        assert r.returncode == 1 and not out.exists()
        assert r.stderr.startswith(f"{src}:{at + 1}:1: error: not written: spirv-val rejects it: "), r.stderr
        arg = {"uri": out.as_uri(), "text": src.read_text()}
        answer = commands.assemble((arg,), None)
        assert answer["invalid"]["line"] == at and answer["message"].startswith("m.spv: saved, but spirv-val rejects it")
        with pytest.raises(commands.CommandError) as e:
            commands.assemble((arg,), None, refuse_invalid=True)
        assert e.value.message.startswith(f"m.spv: not saved: spirv-val rejects it: line {at + 1}: ")
    src.write_text("\n".join(text_lines))
    assert "invalid" not in commands.assemble(({"uri": out.as_uri(), "text": src.read_text()},), None)


def test_mutated_binaries_are_refused_or_saved_unchanged_byte_for_byte():
    """tests/fuzz/surfaces.binary on the run's seed: a mutated module is refused by dis, or its
    unchanged disassembly saves the same bytes (through as --ids-from and spvls.assemble) and an
    edited one reopens (fuzz seed 1258080129: a switch target above the header's bound grew it)."""
    from tests.fuzz import surfaces

    rng = random.Random(SEED)
    texts = [VALID] + [p.read_text() for p in MODULES]
    assert [f for _ in range(150) for f in surfaces.binary(rng, texts)] == []
