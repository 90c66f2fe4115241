"""workspace/executeCommand: COMMANDS maps each name to fn(ls, *arguments)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from ..binary import commands as binary_commands
from ..features import cfg_dot
from .app import SpvServer  # pygls reads the commands' annotations to pass their arguments
from .base import analysis, log_fault
from .convert import Positions, plain_range


async def show_cfg(ls: SpvServer, *args: Any) -> dict[str, Any]:
    """[{"uri": U, "position": P, "svg"?: bool}] -> the CFG of the function at P: {"function", "dot", "svg" (null
    without Graphviz), "blocks": [{"node", "label", "range"}], "current": the node at P, "message"}."""
    where = args[0] if args and isinstance(args[0], dict) else {}
    uri, p = where.get("uri"), where.get("position") or {}
    if (
        not isinstance(uri, str)
        or not isinstance(p, dict)
        or not all(isinstance(p.get(k, 0), int) for k in ("line", "character"))
    ):
        raise JsonRpcInvalidParams('spvls.showCfg takes [{"uri": ..., "position": {"line", "character"}}]')
    a = analysis(ls, uri)
    if a is None:
        raise JsonRpcInvalidParams(f"spvls.showCfg: {uri} is not open")
    at = Positions(a.module.doc, ls.session.client.encoding)
    line, _ = at.cursor(T.Position(max(0, p.get("line", 0)), max(0, p.get("character", 0))))
    v = cfg_dot.view(a.module, a.diagnostics, line)
    # A client that draws the DOT itself (the VS Code panel) passes "svg": false: Graphviz takes a
    # second on a 300-block function.
    want_svg = where.get("svg", True) is not False
    # Graphviz in its child process, waited for off the event loop: other requests go on meanwhile.
    svg = await asyncio.to_thread(cfg_dot.render_svg, v.dot) if v.dot and want_svg else None
    return {
        "function": v.function,
        "dot": v.dot,
        "svg": svg,
        "blocks": [
            {"node": node, "label": label, "range": plain_range(at.range(*span))} for node, label, span in v.blocks
        ],
        "current": v.current,
        "message": v.message,
    }


def disassemble(ls: SpvServer, *args: Any) -> dict[str, Any]:
    """[{"uri": U}] -> {"text": the disassembly of the binary module at U}."""
    try:
        return binary_commands.disassemble(args)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


def assemble(ls: SpvServer, *args: Any) -> dict[str, Any]:
    """[{"uri": U, "text": T}] -> {"words": N, "invalid"?, "message"?}: T with U's ids, written over U
    atomically; refused with the assembler's message and line, U untouched (see binary.commands)."""
    settings = ls.session.ws.settings
    try:
        return binary_commands.assemble(args, settings.target_env, settings.refuse_invalid_save)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


def _open_text(ls: SpvServer) -> Callable[[str], str | None]:
    def text_of(uri: str) -> str | None:
        doc = ls.session.ws.docs.get(uri)
        return doc.text if doc is not None else None

    return text_of


def optimize(ls: SpvServer, *args: Any) -> dict[str, Any]:
    """[{"uri": U, "passes": FLAGS}] -> U's module and what spirv-opt's passes make of it, as friendly
    text, with the instruction counts before and after each pass (binary.commands.optimize_module)."""
    try:
        return binary_commands.optimize_module(args, _open_text(ls), ls.session.ws.settings.target_env)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


def diff(ls: SpvServer, *args: Any) -> dict[str, Any]:
    """[{"uri": A, "other": B}] -> A and B compared by spirv-diff (binary.commands.diff_modules)."""
    try:
        return binary_commands.diff_modules(args, _open_text(ls), ls.session.ws.settings.target_env)
    except binary_commands.CommandError as e:
        raise JsonRpcInvalidParams(e.message, data=e.data or None) from None


COMMANDS: dict[str, Callable[..., Any]] = {
    "spvls.showCfg": show_cfg,
    "spvls.disassemble": disassemble,
    "spvls.assemble": assemble,
    "spvls.optimize": optimize,
    "spvls.diff": diff,
}


def guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A failing command is logged with its name and answers that request alone with an error (an
    async one, awaited: pygls runs it as a task, the event loop free while it waits)."""

    def run(ls: SpvServer, *args: Any) -> dict[str, Any]:
        try:
            result: dict[str, Any] = fn(ls, *args)
            return result
        except JsonRpcException:
            raise
        except Exception as e:
            log_fault(ls, f"{name} failed", e)
            raise JsonRpcInternalError(f"spvls: {name} failed: {e}") from None

    async def run_async(ls: SpvServer, *args: Any) -> dict[str, Any]:
        try:
            result: dict[str, Any] = await fn(ls, *args)
            return result
        except JsonRpcException:
            raise
        except Exception as e:
            log_fault(ls, f"{name} failed", e)
            raise JsonRpcInternalError(f"spvls: {name} failed: {e}") from None

    return run_async if asyncio.iscoroutinefunction(fn) else run
