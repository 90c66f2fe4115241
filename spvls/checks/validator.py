"""SPIRV-Tools' assembler and validator as a rule family: the assembler's first error, and the
validator's errors (its first, then those keep-going validation finds: binding/keepgoing.py), each
on the line of the instruction it names and on the operand the message names, in the document's
own names.

The validator reports an instruction number (blank and comment lines not counted) and ids as
the assembler numbered them ('30[%30]'); both are mapped back through the parsed lines. Runs on
a snapshot (the text and its parsed lines), so the server can run it off the main thread.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import cache
from types import ModuleType
from typing import Any

from ..binding import cli_tools, refused
from ..binding import options as options_by_name
from ..binding import spirv_tools as tools
from ..binding import worker as workers
from ..binding.keepgoing import UNDEFINED, KeepOps
from ..binding.renaming import NameOps
from ..binding.text import code_points
from ..model.module import TERMINATORS, Module
from ..spec import env as envs
from ..spec.grammar import Instruction, is_type, load
from ..spec.sections import before
from ..syntax.parser import Line, Token
from .codes import ASSEMBLER, VALIDATOR
from .diagnostic import ERROR, INFO, Diagnostic, Related
from .origin import attach_sources

SOURCE = VALIDATOR
_NOTES = frozenset(SOURCE + "." + n for n in ("unavailable", "timeout", "crashed"))

_ID = re.compile(r"(\d+)\[%([^\]\s]*)\]")
_VUID = re.compile(r"\[?(VUID-[A-Za-z0-9_]+-[A-Za-z0-9_]+-\d+)\]?\s*")
_OPERAND_INDEX = re.compile(r"operand index (\d+)")


SETTINGS = options_by_name.SETTINGS


def options(
    flags: Mapping[str, Any], *, timeout: float = tools.DEFAULT_TIMEOUT, limits: Mapping[str, int] | None = None
) -> tools.ValidatorOptions:
    """spirv-val's options: each of its flags (by ValidatorOptions' field name) true when `flags`
    says so, the CPU-time budget and the --max-* limits; the one way the settings and the command
    line make them."""
    chosen: dict[str, Any] = {name: flags.get(name) is True for name in tools.FLAGS}
    return tools.ValidatorOptions(**chosen, limits=dict(limits or {}), timeout=timeout)


def backend() -> ModuleType | None:
    """The library, else spirv-as/spirv-val on PATH, else None."""
    if tools.available():
        return tools
    if cli_tools.available():
        return cli_tools
    return None


def env_for(target_env: str | None, version: tuple[int, int]) -> str:
    """The env to assemble and validate with: the explicit one, else the module's version."""
    return envs.tools_name(target_env) if target_env else f"spv{version[0]}.{version[1]}"


def is_note(d: Diagnostic) -> bool:
    """A word about the validator's run (not run, stopped, crashed) rather than about the module:
    a list cut to its worst problems must still say why spirv-val's verdict is missing."""
    return d.code in _NOTES


def unavailable() -> Diagnostic:
    return Diagnostic(
        0,
        0,
        0,
        INFO,
        SOURCE + ".unavailable",
        "spirv-val is not available, so only spvls' own checks ran: " + tools.HOW_TO_GET,
    )


def stopped(why: workers.Stopped) -> Diagnostic:
    """Where the validator gave no verdict: said at the top of the module."""
    if why.reason == "timeout":
        message = (
            f"spirv-val was stopped after {why.seconds:g} s of CPU time, so this module was not validated "
            "by SPIRV-Tools; spvls' own checks still ran (raise the limit: `spvls check --spirv-val-timeout`, "
            "or the `validatorTimeout` setting)"
        )
    else:
        message = (
            f"spirv-val's process died twice on this module ({why.detail}), so it was not validated by "
            "SPIRV-Tools; spvls' own checks still ran"
        )
    return Diagnostic(0, 0, 0, INFO, f"{SOURCE}.{why.reason}", message)


def run(
    text: str | Iterable[str],
    lines: Sequence[Line],
    env: str,
    options: tools.ValidatorOptions | None = None,
    worker: workers.Worker | None = None,
    tag: object = None,
) -> list[Diagnostic]:
    """Assemble and validate the text (or its parts, in order) in the worker process (else in
    process): the assembler's first error, or the validator's errors (keep-going). tag: the job's name, for
    cancelling it."""
    be = backend()
    if be is None:
        return [unavailable()]
    opts = replace(options or tools.ValidatorOptions(), friendly_names=False, names=name_ops(), keep_going=keep_ops())
    if be is tools:
        got = (worker or workers.shared()).check(text, env, opts, opts.timeout, tag)
        if isinstance(got, workers.Stopped):
            # A cancelled job's result is for an older text, and dropped by whoever cancelled it.
            return [] if got.reason == "cancelled" else [stopped(got)]
        stage, fail = got
    else:
        words = be.assemble(text if isinstance(text, str) else "".join(text), env, preserve_numeric_ids=False)
        stage, fail = ("as", words) if isinstance(words, tools.Failure) else ("val", be.validate(words, env, opts))
    if fail is None:
        return []
    if stage == "as":  # then the errors keep-going found past it: the assembler's, the validator's
        later = [assembler_error(f, lines) if f.line is not None else validator_error(f, lines) for f in fail.later]
        return [assembler_error(fail, lines), *later]
    return [validator_error(f, lines) for f in (fail, *fail.later)]


def _op(name: str) -> int:
    """The opcode of an instruction the grammar has."""
    inst = load().instruction(name)
    assert inst is not None, name
    return inst.opcode


@cache
def name_ops() -> NameOps:
    """The opcodes the binding's renaming reads (it reads no grammar): see binding/renaming.py."""
    insts = load().by_opcode.values()
    results = tuple(sorted((i.opcode, 2 if i.has_result_type else 1) for i in insts if i.has_result))
    by_content = tuple(sorted(i.opcode for i in insts if i.is_type or i.cls == "Constant-Creation"))
    builtin = load().kinds["Decoration"].enumerants["BuiltIn"].value
    early = tuple(_op(n) for n in before("debug names"))
    before_model = tuple(_op(n) for n in before("the memory model"))
    return NameOps(
        name=_op("OpName"),
        decorate=_op("OpDecorate"),
        builtin=builtin,
        memory_model=_op("OpMemoryModel"),
        early=early,
        before_model=before_model,
        results=results,
        by_content=by_content,
        opaque=_op("OpTypeOpaque"),
    )


@cache
def keep_ops() -> KeepOps:
    """The opcodes and operand shapes keep-going validation reads (it reads no grammar): see
    binding/keepgoing.py."""
    insts = load().by_opcode.values()
    module_wide = ("OpCapability", "OpExtension", "OpExtInstImport", "OpMemoryModel", "OpTypeForwardPointer")
    function = ("OpFunction", "OpFunctionParameter", "OpFunctionEnd")
    fixed = {i.opcode for i in insts if i.cls == "Control-Flow"}
    fixed |= {_op(n) for n in (*TERMINATORS, *module_wide, *function)}
    return KeepOps(
        nop=_op("OpNop"),
        undef=_op("OpUndef"),
        function=_op("OpFunction"),
        function_end=_op("OpFunctionEnd"),
        type_void=_op("OpTypeVoid"),
        type_struct=_op("OpTypeStruct"),
        types=tuple(sorted(i.opcode for i in insts if is_type(i, i.name))),
        variable=_op("OpVariable"),
        entry_point=_op("OpEntryPoint"),
        fixed=tuple(sorted(fixed)),
        results=name_ops().results,
        shapes=tuple(sorted((i.opcode, _shape(i)) for i in insts)),
        names=tuple(sorted((i.name, i.opcode) for i in insts)),
        source_extension=_op("OpSourceExtension"),
    )


# "OpDecorate: ... Decorations that take <id> operands use OpDecorateId" (so for the others):
# their enumerants' parameters are literals here.
_LITERAL_PARAMETERS = (
    "OpDecorate",
    "OpMemberDecorate",
    "OpExecutionMode",
    "OpDecorateString",
    "OpMemberDecorateString",
)
_ID_PAIRS = {"PairIdRefIdRef": "ii", "PairLiteralIntegerIdRef": "wi", "PairIdRefLiteralInteger": "iw"}
_ONE_WORD = ("LiteralInteger", "LiteralExtInstInteger", "LiteralSpecConstantOpInteger")


def _shape(inst: Instruction) -> str:
    """The instruction's operands after its result, as keepgoing._ids reads them."""
    kinds = load().kinds
    out = ""
    last = len(inst.operands) - 1
    for k, o in enumerate(inst.operands):
        if o.kind in ("IdResultType", "IdResult"):
            continue
        kind = kinds.get(o.kind)
        params = [p.kind for e in (kind.enumerants.values() if kind else ()) for p in e.parameters]
        if params and (inst.name in _LITERAL_PARAMETERS or not any(kinds[p].category == "Id" for p in params)):
            return out + "w*w"  # the enumerant, then literal parameters to the end
        plain = not params
        if kind is not None and kind.category == "Id":
            one = "i"
        elif o.kind in _ID_PAIRS:
            one = _ID_PAIRS[o.kind]
        elif o.kind == "LiteralString":
            one = "s"
        elif o.kind == "LiteralContextDependentNumber":
            return out + "*w"  # a constant's value: literal words to the end
        elif o.kind in _ONE_WORD or (kind is not None and kind.category in ("ValueEnum", "BitEnum") and plain):
            one = "w"
        else:
            return out + "."
        if o.quantifier == "*" or (o.quantifier == "?" and one == "i" and k == last):
            return out + "*" + one
        if o.quantifier == "?":
            return out + "."
        out += one
    return out


def assembler_error(fail: tools.Failure, lines: Sequence[Line]) -> Diagnostic:
    """The assembler's error at its place. spirv-as counts a line only at a break outside a string
    (a string may run over several lines: glslang -g embeds the shader's source in OpSource), and
    counts the columns of a string's later lines on from its first; a group of lines joined by a
    string is one Line here, its text joined by '\\n', so the assembler's lines are our groups. An
    error that found the next instruction where it wanted an operand is put on the instruction
    that lacks it."""
    if not lines:
        return Diagnostic(0, 0, 0, ERROR, ASSEMBLER, fail.message.strip())
    n = _assembler_line(lines, fail.line or 0)
    col = code_points(lines[n].text, fail.column or 0)
    if refused.about_previous(fail.message, col <= len(lines[n].text) - len(lines[n].text.lstrip())):
        before = next((k for k in range(n - 1, -1, -1) if lines[k].opcode is not None), None)
        if before is not None:
            n, col = before, len(lines[before].text.rstrip())
    line = lines[n]
    text = line.text
    tok = line.token_at(col)
    start, end = (tok.start, tok.end) if tok and tok.kind != "COMMENT" else (col, max(col, len(text.rstrip())))
    return Diagnostic(n, start, end, ERROR, ASSEMBLER, fail.message.strip())


def _assembler_line(lines: Sequence[Line], wanted: int) -> int:
    """The line that starts the assembler's line `wanted` (0-based): lines a string joined to an
    earlier one do not count."""
    counted = 0
    n = 0
    while n < len(lines):
        if counted >= wanted:
            return n
        n += lines[n].text.count("\n") + 1
        counted += 1
    return len(lines) - 1


def instruction_lines(lines: Sequence[Line]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.opcode is not None]


def validator_error(fail: tools.Failure, lines: Sequence[Line]) -> Diagnostic:
    at = instruction_lines(lines)
    message = _drop_instruction(fail.message)
    names = IdNames(lines)
    vuid = _VUID.search(message)
    code = f"{SOURCE}.{vuid.group(1)}" if vuid else SOURCE
    if vuid:
        message = (message[: vuid.start()] + message[vuid.end() :]).strip()
    if not at:
        return Diagnostic(0, 0, 0, ERROR, code, _rename(message, names))
    index = fail.index or 0
    if not 1 <= index <= len(at):
        # No instruction named (e.g. forward references never defined): the first use of an
        # id the message names, else the first instruction.
        found = _first_use(fail.message, lines, names)
        if found is not None:
            return Diagnostic(found[0], found[1].start, found[1].end, ERROR, code, _rename(message, names))
    n = at[min(max(index, 1), len(at)) - 1]
    line = lines[n]
    tok = _operand(fail.message, line, names) if 1 <= index <= len(at) else None
    first = line.result or line.opcode
    last = line.operands[-1] if line.operands else line.opcode
    if tok:
        start, end = tok.start, tok.end
    else:
        start, end = (first.start, last.end) if first and last else (0, len(line.text))
    return Diagnostic(n, start, end, ERROR, code, _rename(message, names))


def _drop_instruction(message: str) -> str:
    """The validator appends the instruction, disassembled, on an indented last line."""
    text = message.rstrip()
    head, sep, tail = text.rpartition("\n")
    if sep and tail.startswith("  ") and "\n" not in tail:
        return head.rstrip()
    return text


# An id as the validator names it ('30[%30]'), or in a disassembled instruction quoted in the
# message (`%30`: an id renaming.py named by its number, or one the friendly names left numbered).
# Also 'id '40'' ("StorageBuffer id '40' is missing DescriptorSet"): the number alone, quoted.
_ANY_ID = re.compile(r"(\d+)\[%[^\]\s]*\]|%(\d+)\b|(?<=\bid ')(\d+)(?=')", re.I)
_UNDEFINED = UNDEFINED


def _rename(message: str, names: IdNames) -> str:
    if message.startswith(_UNDEFINED):  # listed as a hash set holds them: in order of number here
        head, _, ids = message.partition("\n")
        message = head + _ + " ".join(sorted(ids.split(), key=lambda w: int(re.sub(r"\D.*", "", w.strip("'")) or 0)))
    return _ANY_ID.sub(lambda m: names.name(int(m.group(1) or m.group(2) or m.group(3))), message)


def _first_use(message: str, lines: Sequence[Line], names: IdNames) -> tuple[int, Token] | None:
    wanted = {names.name(int(m.group(1))) for m in _ID.finditer(message)}
    if not wanted:
        return None
    for n, line in enumerate(lines):
        for tok in [line.result, *line.operands]:
            if tok is not None and tok.text in wanted:
                return n, tok
    return None


def _operand(message: str, line: Line, names: IdNames) -> Token | None:
    """The token of the operand the message names: by operand index, by <id>, by operand name."""
    grammar_inst = load().instruction(line.opcode.text) if line.opcode else None
    # The validator counts operands as the binary holds them: Result Type, Result, then the rest.
    words: list[Token | None] = []
    if grammar_inst is not None and grammar_inst.has_result_type:
        words.append(line.operands[0] if line.operands else None)
        words.append(line.result)
        words.extend(line.operands[1:])
    else:
        if grammar_inst is not None and grammar_inst.has_result:
            words.append(line.result)
        words.extend(line.operands)
    m = _OPERAND_INDEX.search(message)
    if m and int(m.group(1)) < len(words) and words[int(m.group(1))] is not None:
        return words[int(m.group(1))]
    for idm in _ID.finditer(message):
        name = names.name(int(idm.group(1)))
        for tok in [line.result, *line.operands]:
            if tok is not None and tok.text == name:
                return tok
    if grammar_inst is not None:
        for i, op in enumerate(grammar_inst.operands):
            label = "Result Type" if op.kind == "IdResultType" else op.name
            if label and i < len(words) and words[i] is not None and re.search(rf"\b{re.escape(label)}\b", message):
                return words[i]
    return None


class IdNames:
    """The text's name of each id number spirv-as gave: it numbers ids in order of first appearance,
    numeric names too (the validator's run does not preserve numeric ids, so that `%0`, which no
    module may hold as a number, is a name as spirv-as takes it)."""

    def __init__(self, lines: Sequence[Line]):
        self._lines = lines
        self._by_number: dict[int, str] | None = None

    def name(self, number: int) -> str:
        if self._by_number is None:
            self._by_number = numbering(self._lines)
        return self._by_number.get(number, f"%{number}")


def _id_tokens(lines: Iterable[Line]) -> Iterable[str]:
    for line in lines:
        if line.result is not None:
            yield line.result.text
        for tok in line.operands:
            if tok.kind == "ID":
                yield tok.text


def numbering(lines: Sequence[Line]) -> dict[int, str]:
    out: dict[int, str] = {}
    seen: set[str] = set()
    for t in _id_tokens(lines):
        if t not in seen:
            seen.add(t)
            out[len(seen)] = t
    return out


def merge(native: list[Diagnostic], found: list[Diagnostic], m: Module | None = None) -> list[Diagnostic]:
    """Native diagnostics plus the tools' — but one mistake is one diagnostic: where a native error
    sits on the same instruction as a tool's error, or a spirv-as error comes on the next one (the
    assembler notices a missing operand there), or a spirv-val error on the next one names the id
    the native error's instruction defines, the native one stays, with the tool's words as related
    information. Given the module, the tools' diagnostics say where in the shader source their
    instruction came from, as the native ones do."""
    if not found:
        return native
    lines = m.doc.lines if m is not None else None
    if m is not None:
        found = attach_sources(m, found)
    out = list(native)
    errors_at: dict[int, int] = {}
    for i, d in enumerate(out):
        if d.severity == ERROR:
            errors_at.setdefault(d.line, i)
    for d in found:
        j = _same_cause(d, errors_at, lines) if d.severity == ERROR else None
        if j is None:
            out.append(d)
        else:
            out[j] = replace(
                out[j], related=out[j].related + (Related(d.line, d.start, d.end, f"{d.code}: {d.message}"),)
            )
    out.sort(key=lambda d: (d.line, d.start, d.code))
    return out


def _same_cause(d: Diagnostic, errors_at: dict[int, int], lines: Sequence[Line] | None) -> int | None:
    """The native error (its index) the tool's error `d` repeats, if any."""
    j = errors_at.get(d.line)
    if j is not None or lines is None or not 0 <= d.line < len(lines):
        return j
    before = next((k for k in range(d.line - 1, -1, -1) if lines[k].opcode is not None), None)
    if before is None or before not in errors_at:
        return None
    if d.code == ASSEMBLER:
        return errors_at[before]
    defined = lines[before].result
    tok = lines[d.line].token_at(d.start)
    if defined is not None and tok is not None and tok.text == defined.text and tok.start == d.start:
        return errors_at[before]
    return None
