"""`spvls check`: diagnostics for files, for people at a terminal and for CI."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ..binary.files import read_bytes, starts_binary
from ..binding import spirv_tools as tools
from ..binding import worker as workers
from ..binding.spirv_tools import Unavailable
from ..checks import analyze, suppress, target, validator
from ..checks.diagnostic import ERROR, WARNING, Diagnostic
from ..spec import env as envs
from ..syntax.document import Document
from . import jobs, output
from .inputs import collect, read_source, terminated_lines


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--target-env",
        choices=envs.NAMES,
        metavar="ENV",
        help="spirv-val's target env (" + ", ".join(envs.NAMES) + "); "
        "default: the file's '; Version:' header, else spv1.6",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "github", "sarif"),
        default="text",
        help="text (default), json, github (workflow annotations), sarif (code scanning)",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour and source lines with carets: auto (on a terminal, unless NO_COLOR is set), always, never",
    )
    p.add_argument(
        "--fix",
        action="store_true",
        help="apply the quick fixes that are safe (the one way to meet the rule) and say which",
    )
    p.add_argument(
        "--select",
        action="append",
        metavar="CODES",
        help="report only these comma-separated codes or families (e.g. rotate,id.undefined)",
    )
    p.add_argument(
        "--ignore", action="append", metavar="CODES", help="do not report these comma-separated codes or families"
    )
    p.add_argument(
        "--no-spirv-val",
        dest="spirv_val",
        action="store_false",
        help="run spvls' own checks only, without SPIRV-Tools' assembler and validator",
    )
    p.add_argument(
        "--spirv-val-timeout",
        type=float,
        default=tools.DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="stop spirv-val after this much CPU time on one file and say so (it runs in a worker "
        f"process; 0: no limit; default {tools.DEFAULT_TIMEOUT:g})",
    )
    val = p.add_argument_group("spirv-val options (same meaning as spirv-val's flags)")
    for name, flag in tools.FLAGS.items():
        val.add_argument(flag, dest=name, action="store_true")
    for name in tools.LIMITS:
        val.add_argument("--" + name, dest=name.replace("-", "_"), type=int, metavar="N")
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="check files on N processes (0: one per core); output stays in the files' order",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="files (binary modules too), directories to search, or - for standard input",
    )
    p.set_defaults(run=run)


# The last file's analysis is left for the process exit to drop (entry() skips interpreter
# teardown): freeing a 100k-line module one object at a time takes a tenth of a second.
_last_analysis = None
# Set by the console script for a single-process check. Its validator's process is then forked
# from this one when the first file is validated: on the main thread, before any other thread
# starts (a fork copies none, nor what they hold), and after the imports, whose writes to the pages
# the two would share are what a fork costs (a new interpreter would spend more importing the binding).
fork_validator = False


def validator_options(args: argparse.Namespace) -> tools.ValidatorOptions:
    limits = {
        n: getattr(args, n.replace("-", "_"))
        for n in tools.LIMITS
        if getattr(args, n.replace("-", "_"), None) is not None
    }
    return validator.options(
        vars(args), timeout=getattr(args, "spirv_val_timeout", tools.DEFAULT_TIMEOUT), limits=limits
    )


def check_text(
    text: str, name: str, target_env: str | None, spirv_val: bool = True, options: tools.ValidatorOptions | None = None
) -> list[Diagnostic]:
    """Native diagnostics, merged with spirv-as/spirv-val's first error unless spirv_val is off."""
    global _last_analysis
    _last_analysis = None
    if not text:
        return []
    if spirv_val:
        _fork_once()  # before the parse: a child forked after it would keep the Document's pages
    doc = Document(text, uri=name)
    tools_run = None
    if spirv_val:
        # The validator's process works on the other core while this one checks: the file's
        # time is the longer of the two, not their sum. (This thread mostly waits on its pipe.)
        version, env, _said = target(doc, target_env)
        tools_run = _Background(validator.run, text, doc.lines, validator.env_for(env, version), options)
    _last_analysis = analyze(doc, target_env)
    diags = list(_last_analysis.diagnostics)
    if tools_run is not None:
        diags = validator.merge(diags, tools_run.result(), _last_analysis.module)
    return diags


def _fork_once() -> None:
    global fork_validator
    if fork_validator:
        fork_validator = False
        workers.shared().prestart(fork=True)


class _Background(threading.Thread):
    """fn(*args) on a thread of its own; `result()` waits for it and returns what it returned or
    raises what it raised."""

    def __init__(self, fn: Callable[..., list[Diagnostic]], *args: object) -> None:
        super().__init__(name="spvls-validate", daemon=True)
        self._call = (fn, args)
        self._out: list[Diagnostic] | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        fn, args = self._call
        try:
            self._out = fn(*args)
        except BaseException as e:  # raised again on the caller's thread, as a future would
            self._error = e

    def result(self) -> list[Diagnostic]:
        self.join()
        if self._error is not None:
            raise self._error
        assert self._out is not None
        return self._out


WordOffset = Callable[[int], "int | None"]


def check_binary(
    name: str, target_env: str | None, spirv_val: bool = True, options: tools.ValidatorOptions | None = None
) -> tuple[str, list[Diagnostic], WordOffset] | None:
    """For a binary module (by its magic number, whatever its name): the text `spvls dis` prints,
    its diagnostics at that text's lines, and the word offset of each line's instruction.
    None for any other file."""
    if not starts_binary(name):
        return None
    from ..binary import convert, words  # here: a text file's check never needs the binary reader

    try:
        dis = convert.disassemble(read_bytes(name))
    except Unavailable as e:
        return "", [Diagnostic(0, 0, 0, ERROR, "io.unreadable", f"cannot disassemble {name}: {e}")], lambda _line: None
    except (OSError, words.BinaryError) as e:
        word = getattr(e, "word", None)
        return "", [Diagnostic(0, 0, 0, ERROR, "binary.malformed", str(e))], lambda _line: word
    diags = check_text(dis.text, name, target_env, spirv_val, options)
    if _last_analysis is None:  # an empty text: nothing was analyzed, so no lines to map
        return dis.text, diags, dis.word_offset
    doc = _last_analysis.module.doc
    out = []
    for d in diags:  # instruction-relative -> the printed text's lines
        line, start = doc.position(d.line, d.start)
        out.append(dataclasses.replace(d, line=line, start=start, end=start + d.end - d.start))
    return dis.text, sorted(out, key=lambda d: (d.line, d.start)), dis.word_offset


def check_file(
    path: Path, target_env: str | None, spirv_val: bool = True, options: tools.ValidatorOptions | None = None
) -> list[Diagnostic]:
    binary = check_binary(str(path), target_env, spirv_val, options)
    if binary is not None:
        return binary[1]
    text, problems = read_source(path)
    if any(d.severity == ERROR for d in problems) and not text:
        return problems
    return sorted(
        problems + check_text(text, str(path), target_env, spirv_val, options), key=lambda d: (d.line, d.start)
    )


class Chooser:
    """Suppression comments, then --select and --ignore."""

    def __init__(self, select: list[str] | None, ignore: list[str] | None):
        self.select = suppress.split_names(select)
        self.ignore = suppress.split_names(ignore)

    def __call__(self, text: str, diags: list[Diagnostic]) -> list[Diagnostic]:
        diags = suppress.apply(terminated_lines(text) if text else [], diags)
        return [
            d
            for d in diags
            if (not self.select or suppress.matches(d.code, self.select)) and not suppress.matches(d.code, self.ignore)
        ]


class _Work:
    """One file's check, as a picklable callable for the process pool: (its text, what reading it
    found, its chosen diagnostics, for a binary the word offset of each diagnostic's line, whether it is one)."""

    def __init__(self, choose: Chooser, target_env: str | None, tools_args: tuple):
        self.choose, self.target_env, self.tools_args = choose, target_env, tools_args

    def __call__(self, name: str) -> tuple[str, list[Diagnostic], list[Diagnostic], dict[int, int | None] | None, bool]:
        binary = check_binary(name, self.target_env, *self.tools_args)
        if binary is not None:  # its disassembly stands for the text (no --fix: that writes text)
            text, diags, word_offset = binary
            diags = self.choose(text, diags)
            return text, [], diags, {d.line: word_offset(d.line) for d in diags}, True
        text, problems = read_source(Path(name))
        if any(d.severity == ERROR for d in problems) and not text:
            return text, problems, problems, None, False
        diags = self.choose(
            text,
            sorted(
                problems + check_text(text, name, self.target_env, *self.tools_args), key=lambda d: (d.line, d.start)
            ),
        )
        return text, problems, diags, None, False


def _colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def unknown_names(names: list[str]) -> list[str]:
    """What names no code nor family: a mistyped --select would silently check nothing."""
    from ..checks import codes

    known = codes.rules()
    families = {c.rsplit(".", i)[0] for c in known for i in range(1, c.count(".") + 1)}
    return [n for n in names if n not in known and n not in families and codes.rule(n) is None]


def run(args: argparse.Namespace) -> int:
    choose = Chooser(args.select, args.ignore)
    for option, names in (("--select", choose.select), ("--ignore", choose.ignore)):
        for name in unknown_names(names):
            from ..checks import codes
            from ..spec.did_you_mean import suggest

            near = suggest(name, [*codes.rules(), *{c.split(".")[0] for c in codes.rules()}], 1)
            hint = f"; did you mean '{near[0]}'?" if near else ""
            print(f"spvls check: {option}: no code or family is named '{name}'{hint}", file=sys.stderr)
            return 2
    tools_args = (args.spirv_val, validator_options(args))
    pretty = args.format == "text" and (sys.stdout.isatty() or args.color == "always")
    paint = output.Paint(args.format == "text" and _colour(args.color))
    # Anything that is not the chosen format goes to stderr, so JSON and SARIF stay parseable.
    side = sys.stdout if args.format == "text" else sys.stderr
    files, skipped = collect(args.files, binaries=True)
    for name, why in skipped:
        print(f"spvls: skipped {name}: {why}", file=sys.stderr)
    counts = {ERROR: 0, WARNING: 0}
    records: list = []
    fixed_total = 0
    unsafe = 0  # diagnostics whose fixes all need a person's choice
    work = _Work(choose, args.target_env, tools_args)
    progress = jobs.Progress(len(files))
    results = jobs.run_all(work, files, jobs.workers(args.jobs, len(files)))
    # The bar first: zip asks it for one more result, which draws the end and clears it.
    for (text, problems, diags, word_offset, binary), name in zip(progress.over(results), files, strict=True):
        path = Path(name)
        unsafe += sum(1 for d in diags if d.fixes and not any(f.safe for f in d.fixes))
        if args.fix and text and diags and not binary:

            def recheck(t: str, name: str = name) -> list[Diagnostic]:
                return choose(t, check_text(t, name, args.target_env, *tools_args))

            from . import fixing  # here: only --fix writes

            result = fixing.fix_file(path, text, diags, recheck)
            for d, fix in result.applied:
                print(
                    f"{paint('path', f'{name}:{d.line + 1}:{d.start + 1}:')} {paint('fixed', 'fixed:')} "
                    f"{fix.title} {paint('code', f'[{d.code}]')}",
                    file=side,
                )
            if result.refused:
                print(f"spvls: {name}: fixes not written: {result.refused}", file=sys.stderr)
            fixed_total += len(result.applied)
            if result.applied and not result.refused:
                text = result.text
                diags = sorted(problems + result.diagnostics, key=lambda d: (d.line, d.start))
        lines = terminated_lines(text) if pretty else []
        for d in diags:
            counts[d.severity] = counts.get(d.severity, 0) + 1
            if args.format == "json":
                records.append(output.format_json(name, d))
                if binary:
                    records[-1]["word_offset"] = word_offset[d.line]
            elif args.format == "sarif":
                records.append((name, d))
            elif args.format == "github":
                print(output.format_github(name, d))
            else:
                print(output.format_text(name, d, paint))
                if pretty:
                    for s in output.snippet(
                        lines, d.line, d.start, d.end, paint, d.severity.replace("information", "info")
                    ):
                        print(s)
                for note in output.format_related(name, d, paint):
                    print(note)
                if pretty:
                    print()
    if args.fix and not fixed_total:
        print(f"spvls: --fix: {nothing_fixed(unsafe)}", file=sys.stderr)
    errors = counts[ERROR]
    if args.format == "json":
        print(output.dump_json(records))
    elif args.format == "sarif":
        print(output.dump_json(output.sarif_log(records)))
    # At a terminal the summary closes the report; in a pipe it goes to stderr, so stdout stays the
    # diagnostics alone (one a line, or the chosen format) and a log still shows the counts.
    print(summary(len(files), counts, fixed_total), file=sys.stdout if pretty else sys.stderr)
    return 1 if errors else 0


def nothing_fixed(unsafe: int) -> str:
    if not unsafe:
        return "nothing was fixed: no diagnostic has a fix"
    return (
        f"nothing was safe to apply: the fixes of {unsafe} diagnostic{'' if unsafe == 1 else 's'} are choices "
        "(more than one way to meet the rule); an editor's quick fixes offer them"
    )


def summary(files: int, counts: dict[str, int], fixed: int) -> str:
    def n(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    line = f"checked {n(files, 'file')}: {n(counts[ERROR], 'error')}, {n(counts[WARNING], 'warning')}"
    return line + (f", {fixed} fixed" if fixed else "")
