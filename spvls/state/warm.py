"""Work done once per process at `initialize`, so the first document opened does not pay it.

None of it depends on a document: the grammar JSON read and indexed, Lark's parser built, each rule
family's first run (its module-level caches), the cache's stamp (this spvls's files read), and the
protocol converter's generated (un)structure functions for the messages that carry an open document
and its diagnostics: CPU the first didOpen would otherwise pay (bench/run.py's `start` and `open`
columns measure both).
"""

from __future__ import annotations

from typing import Any

from ..checks import analyze
from ..syntax import heap
from ..syntax.document import Document
from . import cache

# A small module that reaches every family: a function with a loop, an OpLine, and one mistake (an
# undefined id), so a diagnostic is built and converted too.
SAMPLE = """\
               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
          %s = OpString "warm.comp"
               OpName %main "main"
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
    %float_1 = OpConstant %float 1
      %p_int = OpTypePointer Function %int
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %i = OpVariable %p_int Function
               OpStore %i %int_0
               OpBranch %head
       %head = OpLabel
               OpLine %s 3 1
         %iv = OpLoad %int %i
       %cond = OpSLessThan %bool %iv %int_1
               OpLoopMerge %exit %body None
               OpBranchConditional %cond %body %exit
       %body = OpLabel
       %next = OpIAdd %int %iv %int_1
          %f = OpExtInst %float %1 Sqrt %float_1
               OpStore %i %next
               OpBranch %head
       %exit = OpLabel
          %x = OpIAdd %int %undefined %int_1
               OpReturn
               OpFunctionEnd
"""


_checks_warm = False  # warm_checks ran in this process: what it builds is built for good


def warm_checks() -> None:
    """The parser, the grammar, each family's first run, and the cache's stamp of this spvls (what
    a first open needs before its own work). Once per process: server.early may have run it while
    it waited for the first open."""
    global _checks_warm
    if not _checks_warm:
        heap.keep()  # the imports: the warm-up's own collections need not traverse them
        analyze(Document(SAMPLE), None)
        if cache.enabled():
            cache.stamp()
        heap.keep()
        _checks_warm = True


def warm(converter: Any) -> None:
    """Build what the first didOpen would otherwise build. `converter` is the protocol's cattrs
    converter; the sample's texts and answers are dropped."""
    from lsprotocol import types as T  # with pygls, which is imported by now: not before

    warm_checks()
    uri = "file:///warm.spvasm"
    item = {"uri": uri, "languageId": "spirv", "version": 1, "text": SAMPLE}
    converter.structure(
        {"jsonrpc": "2.0", "method": T.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": item}},
        T.DidOpenTextDocumentNotification,
    )
    at = T.Range(T.Position(0, 0), T.Position(0, 1))
    diag = T.Diagnostic(
        at,
        "warm",
        severity=T.DiagnosticSeverity.Error,
        code="warm",
        source="spvls",
        related_information=[T.DiagnosticRelatedInformation(T.Location(uri, at), "warm")],
        tags=[T.DiagnosticTag.Unnecessary],
    )
    converter.unstructure(T.PublishDiagnosticsNotification(params=T.PublishDiagnosticsParams(uri, [diag], version=1)))
