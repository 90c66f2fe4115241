"""Unique OpNames before validation (spvls/binding/renaming.py), against the real library: the
validator's verdict is the same with and without them, and the friendly-name search they avoid is
gone (issue 14: the undefined-ids scale input)."""
from __future__ import annotations

import re
from pathlib import Path

from helpers import FULL_DATA

from spvls.binding import renaming
from spvls.binding import spirv_tools as st
from spvls.checks.validator import _drop_instruction, name_ops

HEAD = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
"""
BODY = """\
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
"""
PLAIN = st.ValidatorOptions(friendly_names=False)
RENAMING = st.ValidatorOptions(friendly_names=False, names=name_ops())


def _constants(n: int, error: str = "") -> str:
    """n equal constants (one friendly name for all: uint_1, uint_1_0, …) and maybe an error after."""
    lines = [HEAD, "OpName %c0 \"c\"\n", "%uint = OpTypeInt 32 0\n"]
    lines += [f"%c{k} = OpConstant %uint 1\n" for k in range(n)]
    return "".join(lines) + error + BODY


def _words(text: str):
    words = st.assemble(text)
    assert not isinstance(words, st.Failure), words
    return words


def _same(a: st.Failure | None, b: st.Failure | None) -> bool:
    if a is None or b is None:
        return a is b
    # The message's last line is the instruction disassembled with friendly names: spvls drops it.
    return (a.index, _drop_instruction(a.message)) == (b.index, _drop_instruction(b.message))


def test_equal_constants_get_their_numbers_as_names_and_the_verdict_stays():
    text = _constants(200, "%bad = OpTypeVector %uint 1\n")  # an error after the constants
    words = _words(text)
    r = renaming.rename(words, name_ops())
    assert r is not None and r.added == 199  # the crowded ones only: %c1… (%c0 has its OpName)
    before, after = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert before is not None and before.index == 4 + 1 + 1 + 200 + 1  # the %bad line
    assert _same(before, after)
    # What the validator's disassembly now names each constant: its number, found at the first try.
    shown = st.disassemble(r.words, raw_ids=False, header=False)
    names = re.findall(r"^\s*%(\S+) = OpConstant ", shown, re.M)
    assert len(names) == 200 and names[0] == "c"  # the module's own name kept
    assert all(n.isdigit() for n in names[1:]), names[:5]
    plain = re.findall(r"^\s*%(\S+) = OpConstant ", st.disassemble(words, raw_ids=False, header=False), re.M)
    assert plain[1:4] == ["uint_1", "uint_1_0", "uint_1_1"]  # without: the suffix search


def test_shared_opname_strings_are_made_distinct_and_the_first_kept():
    names = "".join(f'OpName %x{k} "x"\n' for k in range(100))
    text = HEAD + names + "%uint = OpTypeInt 32 0\n" + "".join(f"%x{k} = OpConstant %uint {k}\n" for k in range(100))
    words = _words(text + BODY)
    r = renaming.rename(words, name_ops())
    assert r is not None
    shown = re.findall(r"^\s*%(\S+) = OpConstant ", st.disassemble(r.words, raw_ids=False, header=False), re.M)
    assert shown[0] == "x" and len(set(shown)) == 100
    assert all(re.fullmatch(r"x_\d+", n) for n in shown[1:]), shown[:5]
    assert st.validate(words, "spv1.6", RENAMING) is None


def test_left_alone_when_few_ids_share_a_name_or_the_names_are_too_long_to_clash():
    assert renaming.rename(_words(_constants(renaming.SHARED_LIMIT - 1)), name_ops()) is None
    # The name mapper takes no string over 256 bytes: those never clash (and a longer one made
    # longer could pass an instruction's 65,535 words).
    long = "x" * 200_000
    names = "".join(f'OpName %x{k} "{long}"\n' for k in range(70))
    text = HEAD + names + "%uint = OpTypeInt 32 0\n" + "".join(f"%x{k} = OpConstant %uint {k}\n" for k in range(70))
    assert renaming.rename(_words(text + BODY), name_ops()) is None


def test_only_the_crowded_ids_are_named():
    """An OpName is a use of its target, and a use of an 8- or 16-bit result is an error without
    Int16 or Float16: the 16-bit result here is not crowded, so it gets no OpName and the module
    stays valid. A message quoting an uncrowded constant still names it as spirv-val does."""
    head = HEAD.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability StorageBuffer16BitAccess\n"
                        'OpExtension "SPV_KHR_16bit_storage"\nOpExtension "SPV_KHR_non_semantic_info"\n'
                        '%ns = OpExtInstImport "NonSemantic.Foo"\n')
    text = head + "%half = OpTypeFloat 16\n%uint = OpTypeInt 32 0\n%x = OpExtInst %half %ns 1\n" + "".join(
        f"%c{k} = OpConstant %uint 1\n" for k in range(100)) + BODY
    words = _words(text)
    assert renaming.rename(words, name_ops()) is not None
    assert st.validate(words, "spv1.6", PLAIN) is None and st.validate(words, "spv1.6", RENAMING) is None
    barrier = _constants(100).replace("%c0 = OpConstant", "%nine = OpConstant %uint 9\n%two = OpConstant %uint 2\n"
                                      "%mask = OpConstant %uint 264\n%c0 = OpConstant").replace(
        "%entry = OpLabel\n", "%entry = OpLabel\nOpControlBarrier %nine %two %mask\n")
    words = _words(barrier)
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert a is not None and "%uint_9 = OpConstant %uint 9" in a.message and a.message == b.message


def test_constants_misplaced_in_a_function_are_named_too():
    inside = _constants(0).replace("%entry = OpLabel\n", "%entry = OpLabel\n" + "".join(
        f"%c{k} = OpConstant %uint 1\n" for k in range(100)))
    words = _words(inside)
    r = renaming.rename(words, name_ops())
    assert r is not None and r.added == 99  # %c0 has its OpName
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert a is not None and "cannot appear" in a.message and _same(a, b)


def test_without_a_memory_model_the_names_go_after_the_first_misplaced_instruction():
    """An OpName before the memory model would be an error of its own: the new names follow the
    instruction the validator reports first (here OpEntryPoint), whose number stays."""
    words = _words(_constants(100).replace("OpMemoryModel Logical GLSL450\n", ""))
    r = renaming.rename(words, name_ops())
    assert r is not None and r.at == 2
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert a is not None and a.index == 2 and "cannot appear before the memory model" in a.message and _same(a, b)
    # A memory model after the types: the first type is the error, the names follow it.
    late = _constants(100).replace("OpMemoryModel Logical GLSL450\n", "").replace("%uint = OpTypeInt 32 0\n", "%uint = OpTypeInt 32 0\nOpMemoryModel Logical GLSL450\n")
    words = _words(late.replace("OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n", ""))
    r = renaming.rename(words, name_ops())
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert r is not None and a is not None and _same(a, b)


def test_an_error_before_the_new_names_keeps_its_number():
    text = _constants(100).replace("OpExecutionMode", "OpCapability Int64\nOpExecutionMode")  # out of order
    words = _words(text)
    r = renaming.rename(words, name_ops())
    assert r is not None and r.at == 5
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert a is not None and a.index == 4 and _same(a, b)
    assert r.original_index(r.at + 1) == 0 and r.original_index(r.at + r.added + 3) == r.at + 3


def _modules(data_root: Path) -> list[Path]:
    tests = Path(__file__).resolve().parents[1]
    found = [p for p in (data_root / "corpus").rglob("*") if p.is_file() and p.suffix not in (".md", ".tsv")]
    ours = [p for p in tests.rglob("*.spvasm") if not p.is_relative_to(tests / "data" / "cases")]
    return sorted(found + list((data_root / "cases").rglob("*.spvasm")) + ours)


def test_every_module_we_have_gets_the_same_verdict_when_renamed(data_root, monkeypatch):
    """Renaming forced on every corpus, case and test module that assembles, as it is and with its
    OpMemoryModel moved to the end of the module: the same first error (or none), at the same
    instruction, with the same message."""
    monkeypatch.setattr(renaming, "SHARED_LIMIT", 0)
    checked = renamed = 0
    for path in _modules(data_root):
        text = path.read_text(encoding="utf-8", errors="replace")
        model = re.search(r"^[ \t]*OpMemoryModel[^\n]*\n", text, re.M)
        moved = text[: model.start()] + text[model.end() :] + model.group(0) if model else text
        for variant in (text, moved):
            words = st.assemble(variant)
            if isinstance(words, st.Failure):
                continue
            checked += 1
            renamed += renaming.rename(words, name_ops()) is not None
            a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
            assert _same(a, b), (path, variant is moved, a, b)
    assert checked > (1200 if FULL_DATA else 500) and renamed > 0.9 * checked


def test_the_options_go_through_json_to_the_worker():
    import json
    from dataclasses import asdict

    back = st.ValidatorOptions.from_dict(json.loads(json.dumps(RENAMING.to_dict())))
    assert st.ValidatorOptions.from_dict(json.loads(json.dumps(asdict(RENAMING)))) == RENAMING
    assert back == RENAMING and back.names == name_ops()


def test_the_undefined_ids_are_listed_in_order_and_in_the_documents_names():
    """spirv-val lists forward references never defined as its hash set holds them, an order the added
    OpNames change: spvls lists them by number, so the message is the same either way."""
    from spvls.checks import validator
    from spvls.syntax.document import Document

    text = HEAD + "".join(f'OpName %u{k} "x"\n' for k in range(70)) + BODY
    words, lines = _words(text), Document(text).lines
    a, b = st.validate(words, "spv1.6", PLAIN), st.validate(words, "spv1.6", RENAMING)
    assert a is not None and b is not None and a.message != b.message  # the raw lists differ in order
    da, db = validator.validator_error(a, lines), validator.validator_error(b, lines)
    assert da == db
    listed = re.findall(r"'(%\w+)'", da.message)
    assert listed == [f"%u{k}" for k in range(70)]
    assert (da.line, da.start, da.end) == (4, 7, 10)  # the first use: `OpName %u0`
