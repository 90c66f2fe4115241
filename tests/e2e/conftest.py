import sys

import pytest_lsp
from lsprotocol import types as T
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "spvls"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(T.InitializeParams(
        capabilities=T.ClientCapabilities(),
        # spirv-val off: these tests count publications of native diagnostics; a later one from
        # spirv-val would race them (tests/e2e/test_validation.py tests it on).
        initialization_options={"targetEnv": None, "inlayHints": True, "validate": "off"}))
    yield
    await lsp_client.shutdown_session()
