"""The server's checks helper (checks.parallel.start_helper) as the real server runs it: forked at
`initialize`, a child of the server with the server's command line, and gone when the server exits."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.rawlsp import Server

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2, reason="reads /proc; needs two cores"
)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_server_forks_its_helper_at_initialize_and_it_leaves_with_the_server():
    s = Server()
    try:
        assert _children(s.proc.pid) == []  # nothing before initialize
        s.initialize(options={"validate": "off"})
        helpers = _children(s.proc.pid)
        assert len(helpers) == 1
        helper = helpers[0]
        cmdline = Path(f"/proc/{helper}/cmdline").read_bytes()
        assert cmdline == Path(f"/proc/{s.proc.pid}/cmdline").read_bytes()  # forked, not spawned
        assert _alive(helper)
    finally:
        s.close()
    for _ in range(200):
        if not _alive(helper):
            break
        time.sleep(0.05)
    assert not _alive(helper)  # it read the end of its pipe when the server exited
