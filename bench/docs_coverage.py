"""How many of the grammar's extension opcodes and enumerants have prose on hover.

    python bench/docs_coverage.py

"Belongs to an extension": no core SPIR-V version, or the grammar lists extensions on it.
"Before" counts what the four full extension texts (spvls/spec/texts) document; "after" adds the
SPIR-V Registry index (spvls/spec/registry.json.gz).
"""
from __future__ import annotations

from collections import Counter

from spvls.spec import extension_docs, registry
from spvls.spec.grammar import load


def main() -> None:
    g = load()
    items = [("opcode", i) for i in g.by_opcode.values()]
    items += [("enumerant", e) for k in g.kinds.values() for e in k.canonical()]
    ext = [(what, i) for what, i in items if i.version is None or i.extensions]

    def four(i) -> bool:
        kind = getattr(i, "kind", "instruction")
        return any(n in extension_docs.index() and extension_docs.index()[n].kind == kind for n in (i.name, *i.aliases))

    before = Counter(what for what, i in ext if four(i))
    after = Counter(what for what, i in ext if four(i) or registry.symbol_prose(g, i))
    total = Counter(what for what, _ in ext)
    for what in ("opcode", "enumerant"):
        print(f"{what}s of an extension: {total[what]}; with prose before: {before[what]}, after: {after[what]}")
    print(f"all: {len(ext)}; before: {sum(before.values())}, after: {sum(after.values())}")
    sets = [(s.name, i) for s in g.ext_sets.values() for i in s.by_name.values()]
    documented = [(n, i) for n, i in sets if registry.document_for_set(n)]
    prose = [1 for n, i in documented if registry.prose((i.name,), only=(registry.document_for_set(n).name,))]
    print(f"extended instructions: {len(sets)}; in sets the registry documents: {len(documented)}, "
          f"with prose: {len(prose)}")
    print(f"registry documents indexed: {len(registry.documents())}")


if __name__ == "__main__":
    main()
