"""Per-session machinery that holds state across requests (background validation)."""
