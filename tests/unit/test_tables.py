"""Tables typed by hand because the grammar JSON does not hold their fact, each held to the JSON (and,
where an extension's text names the instructions, to that text): a name the grammar renames or
drops, or an instruction the grammar adds to a class a table stands for, fails here."""

import importlib
import pkgutil
import re
from pathlib import Path

import spvls.spec
from spvls.checks import families, idkinds
from spvls.checks.families import coopmat, glsl
from spvls.features import interface, reflect
from spvls.model import module, uniformity
from spvls.spec.grammar import load

TEXTS = Path(spvls.spec.__file__).parent / "texts"

# Control-Flow instructions that end no block.
NOT_TERMINATORS = {
    "OpLabel",
    "OpPhi",
    "OpLoopMerge",
    "OpSelectionMerge",
    "OpLifetimeStart",
    "OpLifetimeStop",
    "OpDemoteToHelperInvocation",
}


def _classes() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for i in load().instructions.values():
        out.setdefault(i.cls, set()).add(i.name)
    return out


def test_the_terminators_are_the_grammars_control_flow_and_the_extensions_that_end_an_invocation():
    """The grammar has no class for block termination instructions (SPIR-V 2.2.4): its Control-Flow
    class less those that end no block, and the three extension instructions that end an invocation
    (classed elsewhere: ray tracing, mesh shading)."""
    g = load()
    control_flow = _classes()["Control-Flow"]
    assert module.TERMINATORS - control_flow == {"OpIgnoreIntersectionKHR", "OpTerminateRayKHR", "OpEmitMeshTasksEXT"}
    assert control_flow - module.TERMINATORS == NOT_TERMINATORS
    for name in module.TERMINATORS:
        inst = g.instruction(name)
        assert inst is not None and inst.name == name and not inst.has_result, name


def test_what_structural_leaves_out_the_grammars_classes_cover():
    """STRUCTURAL names function and block structure; a module header, name or decoration instruction
    rebuilds the model by its grammar class, every one of them."""
    g = load()
    classes = _classes()
    assert {g.instruction(n).name for n in module.STRUCTURAL} == module.STRUCTURAL
    assert classes["Function"] | classes["Control-Flow"] | {"OpVariable"} >= module.STRUCTURAL - module.TERMINATORS
    header = classes["Mode-Setting"] | classes["Extension"] | classes["Debug"] | classes["Annotation"]
    for name in header - {"OpLine", "OpNoLine", "OpExtInst", "OpExtInstWithForwardRefsKHR"}:
        assert module._declares(name, g.instruction(name)), name


def test_the_indexed_instructions_have_the_operands_the_index_reads():
    """Module._index_module reads these operands by position: the grammar's operands there."""
    g = load()
    reads = {
        "OpCapability": ["Capability"],
        "OpExtension": ["LiteralString"],
        "OpName": ["IdRef", "LiteralString"],
        "OpDecorate": ["IdRef"],
        "OpMemberDecorate": ["IdRef"],
        "OpDecorateId": ["IdRef"],
        "OpDecorateString": ["IdRef"],
        "OpMemberDecorateString": ["IdRef"],
        "OpEntryPoint": ["ExecutionModel", "IdRef", "LiteralString"],
        "OpExecutionMode": ["IdRef"],
        "OpExecutionModeId": ["IdRef"],
    }
    assert set(reads) == module._INDEXED
    for name, kinds in reads.items():
        operands = [o.kind for o in g.instruction(name).operands]
        assert operands[: len(kinds)] == kinds, name


def _listed(text: str, after: str) -> list[str]:
    """The opcodes named in the extension text's sentence or bullet that starts with `after`."""
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(after))
    return re.findall(r"\bOp[A-Za-z]+", line.split(":", 1)[-1] if ":" in line else line)


def test_coopmat_judges_the_instructions_its_extension_names():
    """SPV_KHR_cooperative_matrix allows its matrix types for conversions, unary and binary
    arithmetic and OpMatrixTimesScalar, each named in its text; the family judges exactly those, and
    every instruction the extension adds."""
    g = load()
    text = (TEXTS / "SPV_KHR_cooperative_matrix.txt").read_text(encoding="utf-8")
    conversions = _listed(text, "Allow values of cooperative matrix type for the following conversion")
    assert "Allow the use of OpBitcast on objects of cooperative matrix type" in text
    assert {*conversions, "OpBitcast"} == coopmat._CONVERSIONS
    assert set(_listed(text, "• OpSNegate")) == coopmat._UNARY
    assert set(_listed(text, "• OpIAdd")) == coopmat._BINARY
    assert "Allow cooperative matrix types for OpMatrixTimesScalar." in text
    own = {i.name for i in g.instructions.values() if "CooperativeMatrixKHR" in i.capabilities}
    assert own <= set(coopmat._VALUE_JUDGES)
    assert set(coopmat._OWN_JUDGES) - own == {"OpSpecConstantOp"}  # OpCooperativeMatrixLengthKHR's constant form
    for name in coopmat._VALUE_JUDGES:
        assert g.instruction(name) is not None and g.instruction(name).name == name, name


def test_glsl_judges_instructions_of_the_sets_grammar_whose_operands_are_all_values():
    """glsl.* groups GLSL.std.450's instructions as spirv-val does; each is the set's own name, and
    takes only <id> operands (values of the types the group judges)."""
    from spvls.model.operands import ext_set

    s = ext_set(load(), glsl.SET)
    assert s is not None
    assert not glsl.FLOAT_SAME & glsl.INT_LIKE
    for name in glsl.FLOAT_SAME | glsl.INT_LIKE:
        inst = s.by_name.get(name)
        assert inst is not None, name
        assert inst.operands and all(o.kind == "IdRef" for o in inst.operands), name


def test_every_opcode_a_family_types_by_hand_is_the_grammars_own_name():
    """Every opcode name in a rule family's module-level tables (and in idkinds', the model's, the
    uniformity analysis' and reflection's) is
    an instruction's name in the grammar: not an alias, not a name the grammar dropped."""
    g = load()
    modules = [importlib.import_module(f"{families.__name__}.{m.name}") for m in pkgutil.iter_modules(families.__path__)]
    wrong, seen = [], 0
    for mod in [*modules, idkinds, module, uniformity, reflect, interface]:
        for table, value in vars(mod).items():
            if table.startswith("__") or not isinstance(value, (set, frozenset, tuple, list, dict)):
                continue
            for name in value:
                if isinstance(name, str) and re.fullmatch(r"Op[A-Z]\w+", name):
                    seen += 1
                    inst = g.instruction(name)
                    if inst is None or inst.name != name:
                        wrong.append(f"{mod.__name__}.{table}: {name}")
    assert seen > 300
    assert wrong == []


def test_the_reflection_tables_name_the_grammars_enumerants():
    """`spvls reflect`'s and the interface's names by enumerant (SPIRV-Cross' stage names, GLSL's image
    format qualifiers and sampler dimensions): each key is an enumerant's own name in the grammar, a
    format's qualifier spells its enumerant, and what each table leaves out is what GLSL and
    SPIRV-Cross' reflection have no name for, so an enumerant the grammar adds fails here."""
    g = load()
    left_out = {
        "ExecutionModel": (reflect._MODES, {"Kernel"}),  # OpenCL's: no GLSL stage
        "ImageFormat": (reflect._FORMATS, {"Unknown", "R64i", "R64ui"}),  # no format, or 64-bit (an extension's)
        "Dim": (interface._DIMS, {"SubpassData", "TileImageDataEXT"}),  # subpass inputs: no sampler type
    }
    for kind, (table, absent) in left_out.items():
        enumerants = g.kinds[kind].enumerants
        assert [k for k in table if k not in enumerants or enumerants[k].name != k] == [], kind
        assert {e.name for e in enumerants.values()} - set(table) == absent, kind
    assert {k: v for k, v in reflect._FORMATS.items() if v.replace("_", "") != k.lower()} == {}
    for name in reflect._SPEC:
        assert g.instruction(name).cls == "Constant-Creation", name


def test_the_decoration_tables_name_the_grammars_decorations():
    """Every decoration the decoration family names by hand is a Decoration enumerant's own name (not an
    alias, not one the grammar dropped): a renamed one would silently stop matching."""
    decorations = families.decorations
    enumerants = load().kinds["Decoration"].enumerants
    names = [
        *decorations._TARGETS,
        *decorations._MEMBER_ONLY,
        *decorations._NOT_MEMBER,
        *decorations._REPEATABLE_ON_ID,
        *decorations._REPEATABLE_ON_MEMBER,
        *(n for pair in (*decorations._EXCLUSIVE_ON_ID, *decorations._EXCLUSIVE_ON_MEMBER) for n in pair),
    ]
    assert len(names) > 50
    assert [n for n in names if n not in enumerants or enumerants[n].name != n] == []
    # Each sentence a member-only decoration cites is its own.
    assert all(sentence.startswith(f"{n}: ") for n, sentence in decorations._MEMBER_ONLY.items())
