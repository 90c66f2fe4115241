"""The language server: LSP conversion only. Each handler module (`sync`, `lifecycle`, `navigate`,
`outline`, `editing`, `tokens`, `commands`) converts a request's LSP types and calls one function of
`spvls.session` or `spvls.features`; every piece of state across requests is the `Session`'s.

This package's own import is light: `serve` loads the server's stack when it starts."""

from __future__ import annotations


def serve(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> int:
    from .app import run

    return run(tcp, host, port)
