import sys

import pytest
import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient


def keep_publications(client: LanguageClient) -> None:
    """Every publishDiagnostics kept as client.published[uri][version]. wait_for_notification sees
    only the next notification, and with one server a module, other documents' publications come in
    between: one for the document waited on could pass unseen."""
    client.published = {}
    features = client.protocol.fm.features
    default = features[T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: T.PublishDiagnosticsParams):
        client.published.setdefault(params.uri, {})[params.version] = params.diagnostics
        return default(params)

    features[T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record


# One server for a whole test module: each module's tests open their own documents (unique uris) and
# put back any setting they change. Tests that need a server of their own define their own fixture.
@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def client(lsp_client: LanguageClient):
    keep_publications(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(),
        # spirv-val off: these tests count publications of native diagnostics; a later one from
        # spirv-val would race them (tests/e2e/test_validation.py tests it on).
        initialization_options={"targetEnv": None, "inlayHints": True, "validate": "off"}))
    yield
    await lsp_client.shutdown_session()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report kept on the test (item.report_setup, report_call, report_teardown), for
    fixtures that keep evidence of a failure (test_vscode_web.py's screenshots)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)
