"""What the server offers, as the wire has it: each LSP method it handles with the options it
announces, its commands, and the `initialize` result a client's capabilities get.

Plain data, without the protocol library, so that each capability has one home read by both
answerers: `server.early` answers `initialize` from here before pygls is imported, and `app.create`
registers each handler with these options (structured into lsprotocol's types; it refuses to start
if a handler or command is missing here or one here has none). `initialize_result` builds what
pygls' ServerCapabilitiesBuilder builds from the same registrations; tests/reliability/
test_initialize.py holds the two equal for real editors' capabilities and for every combination
of the capabilities the builder reads."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..features.tokens import TOKEN_MODIFIERS, TOKEN_TYPES
from ..state.documents import nested


class Options(NamedTuple):
    """The options announced for a method: lsprotocol's type for them, and their JSON."""

    kind: str
    wire: dict[str, Any]


_LEGEND = Options("SemanticTokensLegend", {"tokenTypes": TOKEN_TYPES, "tokenModifiers": TOKEN_MODIFIERS})

# Every method a handler module's HANDLERS answers, with its options (None: none announced).
METHODS: dict[str, Options | None] = {
    "initialize": None,
    "workspace/didChangeConfiguration": None,
    "textDocument/didOpen": None,
    "textDocument/didChange": None,
    "textDocument/didSave": None,
    "textDocument/didClose": None,
    "textDocument/diagnostic": Options(
        "DiagnosticOptions", {"interFileDependencies": False, "workspaceDiagnostics": False}
    ),
    "textDocument/definition": None,
    "textDocument/references": None,
    "textDocument/documentHighlight": None,
    "textDocument/prepareRename": None,
    "textDocument/rename": None,
    "textDocument/prepareCallHierarchy": None,
    "callHierarchy/incomingCalls": None,
    "callHierarchy/outgoingCalls": None,
    "textDocument/documentSymbol": None,
    "workspace/symbol": None,
    "textDocument/foldingRange": None,
    "textDocument/codeLens": None,
    "textDocument/completion": Options(
        "CompletionOptions", {"triggerCharacters": ["%", " ", "|", '"'], "resolveProvider": True}
    ),
    "completionItem/resolve": None,
    "textDocument/hover": None,
    "textDocument/signatureHelp": Options("SignatureHelpOptions", {"triggerCharacters": [" "]}),
    "textDocument/inlayHint": None,
    "textDocument/codeAction": Options("CodeActionOptions", {"codeActionKinds": ["quickfix"]}),
    "textDocument/formatting": None,
    "textDocument/rangeFormatting": None,
    "textDocument/semanticTokens/full": _LEGEND,
    "textDocument/semanticTokens/full/delta": None,
    "textDocument/semanticTokens/range": _LEGEND,
}
# workspace/executeCommand's commands (commands.COMMANDS runs each), in the order announced.
COMMANDS = ("spvls.showCfg", "spvls.disassemble", "spvls.assemble", "spvls.optimize", "spvls.diff")
INCREMENTAL = 2  # TextDocumentSyncKind.Incremental: edits come as ranges
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def structured(method: str, converter: Any) -> object | None:
    """The options of `method` as lsprotocol's type, for pygls' registration (None: none)."""
    options = METHODS[method]
    if options is None:
        return None
    from lsprotocol import types

    return converter.structure(options.wire, getattr(types, options.kind))


def position_encoding(capabilities: dict[str, Any]) -> str:
    """The client's first stated encoding that spvls counts in, else UTF-16 (LSP's default)."""
    stated = nested(capabilities, "general", "positionEncodings")
    for encoding in stated if isinstance(stated, list) else ():
        if encoding in ENCODINGS:
            return str(encoding)
    return "utf-16"


# As pygls' builder announces a method it has a handler for: its capability, and what that says when
# no options were registered (the options otherwise).
_PROVIDERS: dict[str, tuple[str, Any]] = {
    "textDocument/completion": ("completionProvider", {}),
    "textDocument/hover": ("hoverProvider", True),
    "textDocument/signatureHelp": ("signatureHelpProvider", {}),
    "textDocument/declaration": ("declarationProvider", True),
    "textDocument/definition": ("definitionProvider", True),
    "textDocument/typeDefinition": ("typeDefinitionProvider", True),
    "textDocument/implementation": ("implementationProvider", True),
    "textDocument/references": ("referencesProvider", True),
    "textDocument/documentHighlight": ("documentHighlightProvider", True),
    "textDocument/documentSymbol": ("documentSymbolProvider", True),
    "textDocument/codeAction": ("codeActionProvider", True),
    "textDocument/documentColor": ("colorProvider", True),
    "textDocument/formatting": ("documentFormattingProvider", True),
    "textDocument/rangeFormatting": ("documentRangeFormattingProvider", True),
    "textDocument/foldingRange": ("foldingRangeProvider", True),
    "textDocument/selectionRange": ("selectionRangeProvider", True),
    "textDocument/prepareCallHierarchy": ("callHierarchyProvider", True),
    "textDocument/prepareTypeHierarchy": ("typeHierarchyProvider", True),
    "textDocument/linkedEditingRange": ("linkedEditingRangeProvider", True),
    "textDocument/moniker": ("monikerProvider", True),
    "textDocument/inlineValue": ("inlineValueProvider", True),
}
# Those whose options say whether their resolve request is handled: capability, resolve request.
_RESOLVED: dict[str, tuple[str, str]] = {
    "textDocument/inlayHint": ("inlayHintProvider", "inlayHint/resolve"),
    "textDocument/codeLens": ("codeLensProvider", "codeLens/resolve"),
    "textDocument/documentLink": ("documentLinkProvider", "documentLink/resolve"),
    "workspace/symbol": ("workspaceSymbolProvider", "workspaceSymbol/resolve"),
}
_TOKENS = (
    "textDocument/semanticTokens/full",
    "textDocument/semanticTokens/full/delta",
    "textDocument/semanticTokens/range",
)


def _wire(method: str) -> dict[str, Any] | None:
    options = METHODS[method]
    return dict(options.wire) if options is not None else None


def initialize_result(capabilities: dict[str, Any], pull: bool, version: str) -> dict[str, Any]:
    """`initialize`'s result for a client with these capabilities (`pull`: it pulls diagnostics, so
    they are offered that way alone), as pygls' builder makes it from METHODS and COMMANDS."""
    sync: dict[str, Any] = {"openClose": True, "change": INCREMENTAL}
    for flag, method in (
        ("willSave", "textDocument/willSave"),
        ("willSaveWaitUntil", "textDocument/willSaveWaitUntil"),
    ):
        said = nested(capabilities, "textDocument", "synchronization", flag)
        if said is not None:  # asked for: announced as whether it is handled
            sync[flag] = bool(said) and method in METHODS
    sync["save"] = _wire("textDocument/didSave") or "textDocument/didSave" in METHODS
    caps: dict[str, Any] = {"positionEncoding": position_encoding(capabilities), "textDocumentSync": sync}
    for method, (key, default) in _PROVIDERS.items():
        if method in METHODS:
            caps[key] = _wire(method) or default
    for method, (key, resolve) in _RESOLVED.items():
        if method in METHODS:
            caps[key] = {**(_wire(method) or {}), "resolveProvider": resolve in METHODS}
    if "textDocument/rename" in METHODS:  # LSP: RenameOptions only to a client with prepareSupport
        prepare = "textDocument/prepareRename" in METHODS
        caps["renameProvider"] = (
            {"prepareProvider": prepare} if nested(capabilities, "textDocument", "rename", "prepareSupport") else True
        )
    caps["executeCommandProvider"] = {"commands": list(COMMANDS)}
    legend = next((w for m in _TOKENS if m in METHODS and (w := _wire(m)) is not None), None)
    if legend is not None:
        full: Any = {"delta": True} if _TOKENS[1] in METHODS else _TOKENS[0] in METHODS
        tokens = {"legend": legend, "full": full or None, "range": _TOKENS[2] in METHODS or None}
        caps["semanticTokensProvider"] = {k: v for k, v in tokens.items() if v is not None}
    caps["workspace"] = {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}}
    if pull and "textDocument/diagnostic" in METHODS:
        diagnostic = _wire("textDocument/diagnostic") or {"interFileDependencies": False}
        caps["diagnosticProvider"] = {**diagnostic, "workspaceDiagnostics": "workspace/diagnostic" in METHODS}
    return {"capabilities": caps, "serverInfo": {"name": "spvls", "version": version}}
