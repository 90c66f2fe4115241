"""`spvls check` over many files: the per-file work on a process pool (-j), results in the order the
files were given, and a progress bar on a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO

from ..checks.parallel import usable_cores


def workers(jobs: int, files: int) -> int:
    """-j N: N processes; 0: one per core this process may use. Never more than there are files."""
    n = usable_cores() if jobs == 0 else jobs
    return max(1, min(n, files))


def run_all(work: Callable, items: list, jobs: int) -> Iterator:
    """work(item) for each item, in order; on `jobs` processes when that is more than one."""
    if jobs <= 1:
        yield from map(work, items)
        return
    from concurrent.futures import ProcessPoolExecutor  # here: multiprocessing's import is a single file's cost

    with ProcessPoolExecutor(jobs) as pool:
        # Small chunks: big and small files mixed still spread over every process.
        yield from pool.map(work, items, chunksize=max(1, min(8, len(items) // (jobs * 8))))


class Progress:
    """`[#####     ] 12/40 files` on stderr, redrawn in place, when stderr is a terminal and there
    are several files; cleared before anything else is printed and at the end."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.on = total > 1 and self.stream.isatty() and os.environ.get("TERM") != "dumb"
        self.shown = False

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

    def show(self, done: int) -> None:
        if not self.on:
            return
        fill = self.WIDTH * done // self.total
        self.stream.write(f"\r[{'#' * fill}{' ' * (self.WIDTH - fill)}] {done}/{self.total} files")
        self.stream.flush()
        self.shown = True

    def over(self, results: Iterable) -> Iterator:
        """Each result, the bar cleared while the caller prints and redrawn after."""
        self.show(0)
        for done, r in enumerate(results, 1):
            self.clear()
            yield r
            self.show(done)
        self.clear()
