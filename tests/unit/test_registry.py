"""The registry docs index: what tools/registry_gen.py makes from the SPIR-V Registry's sources (the
whole registry in ../shared, else the documents in tests/data/spirv-registry), and found through the
grammar."""
import gzip
import json

import pytest
from helpers import FULL_DATA

from spvls.spec import registry
from spvls.spec.grammar import load
from tools import registry_gen

STALE = "stale: run python tools/registry_gen.py ../shared/spirv-registry"


def test_index_is_rebuilt_identically(data_root):
    sources = data_root / "spirv-registry"
    built = registry_gen.build(sources)
    committed = json.loads(gzip.decompress(registry_gen.OUT.read_bytes()))
    if FULL_DATA:
        # The JSON inside, byte for byte (another zlib may frame the same bytes differently).
        assert gzip.decompress(registry_gen.encode(built)) == gzip.decompress(registry_gen.OUT.read_bytes()), STALE
    assert len(built["documents"]) >= 14
    for name, doc in built["documents"].items():
        assert committed["documents"].get(name) == doc, f"{name}: {STALE}"


def test_every_registry_document_is_indexed(data_root):
    sources = sorted(p.stem for p in (data_root / "spirv-registry").rglob("*.asciidoc"))
    if FULL_DATA:
        assert sorted(registry.documents()) == sources
    assert set(sources) <= set(registry.documents())
    assert len(registry.documents()) == 182


def test_index_is_small():
    assert registry_gen.OUT.stat().st_size < 400_000


@pytest.mark.parametrize("kind,name,doc,words", [
    ("instruction", "OpGroupNonUniformQuadAllKHR", "SPV_KHR_quad_control", "Evaluates a predicate for all active"),
    ("ExecutionModel", "RayGenerationKHR", "SPV_KHR_ray_tracing", "Ray generation shading stage."),
    ("BuiltIn", "PrimitivePointIndicesEXT", "SPV_EXT_mesh_shader", "Output array of vertex index values"),
])
def test_grammar_names_find_their_text(kind, name, doc, words):
    g = load()
    item = g.instruction(name) if kind == "instruction" else g.enumerant(kind, name)
    found = registry.symbol_prose(g, item)
    assert found.document.name == doc
    assert found.text.startswith(words)


def test_an_alias_finds_the_text_written_before_a_rename():
    # The grammar's canonical name is the KHR one; SPV_NV_ray_tracing still says RayGenerationNV.
    g = load()
    e = g.enumerant("ExecutionModel", "RayGenerationNV")
    assert e.name == "RayGenerationKHR"
    nv = registry.prose(("RayGenerationKHR", "RayGenerationNV"), only=("SPV_NV_ray_tracing",))
    assert nv.name == "RayGenerationNV" and nv.document.name == "SPV_NV_ray_tracing"


def test_core_names_take_no_amending_text():
    # SPV_AMD_shader_ballot amends OpGroupIAdd's type rule; the core opcode's own text is the spec's.
    g = load()
    assert "SPV_AMD_shader_ballot" in registry.defined_in("OpGroupIAdd")
    assert registry.symbol_prose(g, g.instruction("OpGroupIAdd")) is None


def test_core_anchors():
    assert registry.core_url("instruction", "OpLoopMerge").endswith("SPIRV.html#OpLoopMerge")
    assert registry.core_url("Capability").endswith("#_capability")
    assert registry.core_url("ExecutionMode").endswith("#_execution_mode")
    assert registry.core_url("FPFastMathMode").endswith("#_fp_fast_math_mode")
    assert registry.core_url("BuiltIn").endswith("#_builtin")


@pytest.mark.parametrize("kind,name,doc,spelt,words", [
    # The registry renamed Intel's FPGA extensions to Altera's after this grammar.
    ("instruction", "OpArbitraryFloatLogINTEL", "SPV_ALTERA_arbitrary_precision_floating_point",
     "OpArbitraryFloatLogALTERA", "An **OpTypeInt** representing an arbitrary precision floating point number"),
    # The extension's text spells its opcodes without the vendor suffix the grammar gives them.
    ("instruction", "OpUCountLeadingZerosINTEL", "SPV_INTEL_shader_integer_functions2", "OpUCountLeadingZeros",
     "Returns the number of leading 0-bits"),
    # A table row whose description follows the enabling-capability cell.
    ("LoadCacheControl", "UncachedINTEL", "SPV_INTEL_cache_controls", "UncachedINTEL",
     "Hint that the load operation should not cache its data in the given cache level."),
])
def test_later_spellings_and_table_shapes(kind, name, doc, spelt, words):
    g = load()
    item = g.instruction(name) if kind == "instruction" else g.enumerant(kind, name)
    found = registry.symbol_prose(g, item)
    assert (found.document.name, found.name) == (doc, spelt)
    assert found.text.startswith(words)
