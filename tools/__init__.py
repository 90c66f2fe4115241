"""Generators of the data files spvls ships (run from a checkout; not part of the package)."""
