"""The language server: LSP conversion only. Each handler module (`sync`, `lifecycle`, `navigate`,
`outline`, `editing`, `tokens`, `commands`) converts a request's LSP types and calls one function of
`spvls.state` or `spvls.features`; every piece of state across requests is the `Session`'s.

This package's own import is light: over stdio, `serve` answers what it can before the protocol
library is imported (`early`), then runs the pygls server (`app`)."""

from __future__ import annotations

from collections.abc import Sequence


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087, source_roots: Sequence[str] = ()) -> int:
    """source_roots: directories (--source-root) where a module's source files may also be read."""
    if not tcp:
        import logging

        from .early import serve_stdio

        logging.basicConfig(level=logging.WARNING, format="spvls: %(levelname)s %(message)s")
        return serve_stdio(source_roots)
    from .app import run

    return run(tcp, host, port, source_roots=source_roots)
