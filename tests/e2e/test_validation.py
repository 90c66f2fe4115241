"""spirv-val live in the real server over stdio: after changes, in a worker thread, merged with the
native diagnostics, stale results dropped; settings; one diagnostics channel per client."""
import asyncio
import sys
from pathlib import Path

import pytest_lsp
from helpers import SMALL_MODULE
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient
from shaders import build, line_of, mistyped

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import module

from tests.scale.inputs import slow_cfg

BAD = SMALL_MODULE.replace("OpIAdd %int %int_1 %int_1", "OpBitwiseAnd %int %int_1 %float_1")
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "spvls"])


async def _start(lsp_client: LanguageClient, caps: T.ClientCapabilities, options: dict | None = None):
    """Every publication and log line is recorded in arrival order: waits never miss one."""
    lsp_client.events = []  # ("publish", params) and ("log", message), in order

    features = lsp_client.protocol.fm.features
    for method, kind, value in ((T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, "publish", lambda p: p),
                                (T.WINDOW_LOG_MESSAGE, "log", lambda p: p.message),
                                (T.WORKSPACE_DIAGNOSTIC_REFRESH, "refresh", lambda p: None)):
        def record(params, default=features[method], kind=kind, value=value):
            lsp_client.events.append((kind, value(params)))
            return default(params)
        features[method] = record

    lsp_client.init_result = await lsp_client.initialize_session(
        T.InitializeParams(capabilities=caps, initialization_options=options))


async def _event(client, ok, after: int = 0, timeout: float = 120) -> int:
    """The index of the first recorded event from `after` on for which ok(kind, value) holds."""
    for _ in range(int(timeout / 0.02)):
        for i in range(after, len(client.events)):
            if ok(*client.events[i]):
                return i
        await asyncio.sleep(0.02)
    raise AssertionError(f"no such event; got {client.events[after:]}")


def _tools_in(p) -> bool:
    return any(d.source in ("spirv-val", "spirv-as") for d in p.diagnostics)


async def _published(client, uri: str, version: int, with_tools: bool, after: int = 0):
    i = await _event(client, lambda k, p: k == "publish" and p.uri == uri and p.version == version
                     and _tools_in(p) == with_tools, after)
    return i, list(client.events[i][1].diagnostics)


async def _logged(client, text: str, after: int = 0) -> int:
    return await _event(client, lambda k, m: k == "log" and text in m, after)


# One server for the module's push-client tests: each opens its own document and waits for events
# of its own uri, from the index where it started.
@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await _start(lsp_client, T.ClientCapabilities(), {})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def on_save(lsp_client: LanguageClient):
    await _start(lsp_client, T.ClientCapabilities(), {"validate": "onSave"})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def budgeted(lsp_client: LanguageClient):
    await _start(lsp_client, T.ClientCapabilities(), {"validatorTimeout": 0.5})
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient):
    await _start(lsp_client, T.ClientCapabilities(
        text_document=T.TextDocumentClientCapabilities(diagnostic=T.DiagnosticClientCapabilities()),
        workspace=T.WorkspaceClientCapabilities(
            diagnostics=T.DiagnosticWorkspaceClientCapabilities(refresh_support=True))))
    yield
    await lsp_client.shutdown_session()


def _open(client, uri: str, text: str) -> None:
    client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "spvasm", 1, text)))


def _change(client, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [T.TextDocumentContentChangePartial(range=T.Range(T.Position(line, start), T.Position(line, end)),
                                            text=text)]))


async def test_validator_error_published_at_the_operand(client):
    uri = "file:///tmp/spvls-validate-operand.spvasm"
    _open(client, uri, BAD)
    i, native = await _published(client, uri, 1, with_tools=False)
    assert native == []
    _, [d] = await _published(client, uri, 1, with_tools=True, after=i)
    assert (d.source, d.code, d.severity) == ("spirv-val", "spirv-val", T.DiagnosticSeverity.Error)
    assert d.message == "Expected int scalar or vector as operand: BitwiseAnd operand index 3"
    assert d.range == T.Range(T.Position(13, 40), T.Position(13, 48))  # %float_1
    assert d.code_description.href == "https://github.com/KhronosGroup/SPIRV-Tools"
    # Fixed by a keystroke: native diagnostics at once, then spirv-val's verdict for that version.
    n = len(client.events)
    _change(client, uri, 2, 13, 40, 48, "%int_1")
    i, native = await _published(client, uri, 2, with_tools=False, after=n)
    assert native == []
    j = await _logged(client, f"spirv-val: {uri} version 2 done in", after=n)
    assert j > i and await _published(client, uri, 2, with_tools=False, after=j)


async def test_validator_error_names_its_shader_source_line(client, tmp_path):
    """Real glslangValidator output (-gV: DebugLine) with an error only spirv-val finds: the merged
    diagnostic relates the shader source line, as a native one does."""
    path, n = mistyped(build(tmp_path, "sum.comp", "gV"))
    uri = path.as_uri()
    _open(client, uri, path.read_text())
    i, native = await _published(client, uri, 1, with_tools=False)
    assert native == []
    _, [d] = await _published(client, uri, 1, with_tools=True, after=i)
    where = line_of("common.glsl", "return float(i % 7u)")
    assert (d.code, d.message, d.range.start) == (
        "spirv-val", "Expected input to be float scalar or vector: FConvert", T.Position(n, 9))
    assert [(r.message, r.location) for r in d.related_information] == [
        (f"source: ./common.glsl:{where}",
         T.Location((tmp_path / "common.glsl").as_uri(), T.Range(T.Position(where - 1, 0), T.Position(where - 1, 0))))]


async def test_keystroke_diagnostics_while_a_100k_validation_is_in_flight(client):
    """Order, not time: the native diagnostics of a keystroke are published while spirv-val works
    on the previous version, whose result is then dropped, never published."""
    uri = "file:///tmp/spvls-validate-100k.spvasm"
    text = module(100_000)
    lines = text.split("\n")
    target = next(i for i, t in enumerate(lines) if "OpReturn" in t and i > len(lines) // 2)
    _open(client, uri, text)
    started = await _logged(client, f"spirv-val: validating {uri} version 1")
    # spirv-val is now working on version 1; a keystroke makes version 2 with a native error.
    col = lines[target].index("OpReturn")
    _change(client, uri, 2, target, col, col + len("OpReturn"), "OpReturnn")
    keystroke, native = await _published(client, uri, 2, with_tools=False, after=started)
    assert [(d.range.start.line, d.code) for d in native] == [(target, "operand.unknown-opcode")]
    done1 = await _logged(client, f"spirv-val: {uri} version 1 done in", after=started)
    assert keystroke < done1  # published while version 1 was still being validated
    assert client.events[done1][1].endswith("dropped (the document changed)")
    done2 = await _logged(client, f"spirv-val: {uri} version 2 done in", after=done1)
    assert done2 > done1
    # No publication for version 1 after the keystroke's; spirv-as's error on the same line as
    # the native one is not shown twice.
    later = [p for k, p in client.events[keystroke:] if k == "publish" and p.uri == uri]
    assert all(p.version == 2 for p in later)
    assert [(d.range.start.line, d.code) for d in later[-1].diagnostics] == [(target, "operand.unknown-opcode")]


async def test_a_stopped_validator_is_said_even_among_too_many_problems(budgeted):
    """SPIRV-Tools' validator takes seconds of CPU on this module (and spvls has 2,100 problems of
    its own, more than are published): past the 0.5 s budget it is stopped, and the note saying so
    is published with the worst problems, not cut with the rest."""
    uri = "file:///tmp/spvls-validate-budget.spvasm"
    _open(budgeted, uri, slow_cfg(600, 2_100))
    _, shown = await _published(budgeted, uri, 1, with_tools=True)
    notes = [d for d in shown if d.code in ("spvls.truncated", "spirv-val.timeout")]
    assert [(d.code, d.range.start, d.severity) for d in notes] == [
        ("spvls.truncated", T.Position(0, 0), T.DiagnosticSeverity.Information),
        ("spirv-val.timeout", T.Position(0, 0), T.DiagnosticSeverity.Information),
    ]
    assert notes[1].message.startswith("spirv-val was stopped after 0.5 s of CPU time, so this module was not")
    assert len(shown) == 2001 and all(d.severity == T.DiagnosticSeverity.Error for d in shown if d not in notes)


async def test_on_save_runs_at_save_only(on_save):
    uri = "file:///tmp/spvls-validate-onsave.spvasm"
    _open(on_save, uri, BAD)  # opening runs it once
    i, _ = await _published(on_save, uri, 1, with_tools=True)
    # Edits elsewhere keep the last result, moved with its line; an edit on its line drops it.
    _change(on_save, uri, 2, 0, 8, 8, " module")
    i, [d] = await _published(on_save, uri, 2, with_tools=True, after=i)
    _change(on_save, uri, 3, 1, 0, 0, "; a new line\n")
    i, [d] = await _published(on_save, uri, 3, with_tools=True, after=i)
    assert d.range.start.line == 14
    _change(on_save, uri, 4, 14, 0, 0, " ")
    i, _ = await _published(on_save, uri, 4, with_tools=False, after=i)
    on_save.text_document_did_save(T.DidSaveTextDocumentParams(T.TextDocumentIdentifier(uri)))
    j = await _logged(on_save, f"spirv-val: validating {uri} version 4", after=i)
    assert not [m for k, m in on_save.events[:j] if k == "log" and "validating" in m and "version 1" not in m]
    i, [d] = await _published(on_save, uri, 4, with_tools=True, after=j)
    assert d.range.start == T.Position(14, 41)
    # Settings: off clears spirv-val's diagnostics.
    on_save.workspace_did_change_configuration(T.DidChangeConfigurationParams({"spvls": {"validate": "off"}}))
    await _published(on_save, uri, 4, with_tools=False, after=i)


async def test_pull_client_gets_pull_only(pull_client):
    assert pull_client.init_result.capabilities.diagnostic_provider is not None
    uri = "file:///tmp/spvls-validate-pull.spvasm"
    _open(pull_client, uri, BAD)
    done = await _logged(pull_client, f"spirv-val: {uri} version 1 done in")
    await _event(pull_client, lambda k, v: k == "refresh", after=done)
    report = await pull_client.text_document_diagnostic_async(
        T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri)))
    assert [(d.source, d.code) for d in report.items] == [("spirv-val", "spirv-val")]
    assert not [k for k, _ in pull_client.events if k == "publish"]  # nothing pushed


@pytest_lsp.fixture(config=SERVER)
async def pull_no_validation(lsp_client: LanguageClient):
    """A pulling client with spirv-val off: no validation result asks it to pull again."""
    await _start(lsp_client, T.ClientCapabilities(
        text_document=T.TextDocumentClientCapabilities(diagnostic=T.DiagnosticClientCapabilities()),
        workspace=T.WorkspaceClientCapabilities(
            diagnostics=T.DiagnosticWorkspaceClientCapabilities(refresh_support=True))), {"validate": "off"})
    yield
    await lsp_client.shutdown_session()


async def test_settings_ask_a_pulling_client_to_pull_again_only_what_it_pulled(pull_no_validation):
    """Changed settings change diagnostics, but a client that has pulled none has none to pull
    again: the refresh comes once a document was pulled. (Each change is answered before the pull
    that follows it: the server handles messages in order, so no refresh can come later.)"""
    client = pull_no_validation
    uri = "file:///tmp/spvls-refresh-after-pull.spvasm"
    _open(client, uri, SMALL_MODULE)
    _change(client, uri, 2, 0, 0, 0, "; a comment\n")  # past the early answers: pygls handles the rest

    def settings() -> None:
        client.workspace_did_change_configuration(
            T.DidChangeConfigurationParams(settings={"spvls": {"validate": "off", "targetEnv": "vulkan1.2"}}))

    async def pull() -> list[str | int | None]:
        report = await client.text_document_diagnostic_async(T.DocumentDiagnosticParams(T.TextDocumentIdentifier(uri)))
        return [d.code for d in report.items]

    settings()
    # No document pulled yet: no refresh, though the settings reached the document.
    assert await pull() == [] and not [k for k, _ in client.events if k == "refresh"]
    n = len(client.events)
    settings()
    await _event(client, lambda k, v: k == "refresh", after=n)


async def test_push_client_is_not_offered_pull(client):
    assert client.init_result.capabilities.diagnostic_provider is None
