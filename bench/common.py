"""What the benchmarks share: a percentile, and when each version's diagnostics reached the client."""
from __future__ import annotations

import asyncio
import time

from lsprotocol import types as T


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


class Publications:
    """The time each version's first diagnostics arrived (a later publication of the same version,
    spirv-val's, does not move it). `changed` is set on each; other handlers may set it too."""

    def __init__(self, client) -> None:
        self.at: dict[int, float] = {}
        self.changed = asyncio.Event()

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diags(params: T.PublishDiagnosticsParams) -> None:
            self.at.setdefault(params.version, time.perf_counter())
            self.changed.set()

    async def until(self, cond) -> None:
        while not cond():
            self.changed.clear()
            await self.changed.wait()

    async def version(self, v: int) -> float:
        """When version v's diagnostics arrived (waits for them)."""
        await self.until(lambda: v in self.at)
        return self.at[v]
