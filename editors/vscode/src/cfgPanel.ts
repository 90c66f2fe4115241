// The control-flow graph panel: asks the server (spvls.showCfg) for the CFG of the function at
// the cursor, draws it in a webview with Viz.js (bundled: nothing else to install), follows the
// cursor, and jumps to a block's label when the block is clicked.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";

interface Position { line: number; character: number }
interface CfgAnswer {
  function: string | null;
  dot: string | null;
  svg: string | null;
  blocks: { node: string; label: string; range: { start: Position; end: Position } }[];
  current: string | null;
  message: string;
}

export class CfgPanel {
  private static open: CfgPanel | undefined;
  private answer: CfgAnswer | undefined;
  private shown: unknown; // the last answer posted to the page, posted again when the page says it is ready
  private uri: vscode.Uri | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static show(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): void {
    if (CfgPanel.open) {
      CfgPanel.open.panel.reveal(vscode.ViewColumn.Beside, true);
    } else {
      CfgPanel.open = new CfgPanel(context, client);
    }
    CfgPanel.open.schedule(vscode.window.activeTextEditor, 0);
  }

  private constructor(context: vscode.ExtensionContext, private readonly client: () => LanguageClient | undefined,
    private readonly panel = vscode.window.createWebviewPanel(
      "spvls.cfg", "CFG", { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [context.extensionUri] })) {
    const web = panel.webview;
    const asset = (...path: string[]) => web.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, ...path));
    // Viz.js compiles Graphviz's WebAssembly in the page: 'wasm-unsafe-eval', nothing else.
    web.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${web.cspSource} data:; style-src ${web.cspSource} 'unsafe-inline'; script-src ${web.cspSource} 'wasm-unsafe-eval';">
<link rel="stylesheet" href="${asset("media", "cfg-view.css")}"></head>
<body><div id="status">…</div><div id="graph"></div>
<script src="${asset("node_modules", "@viz-js", "viz", "dist", "viz-global.js")}"></script>
<script src="${asset("media", "cfg-view.js")}"></script></body></html>`;
    this.disposables.push(
      web.onDidReceiveMessage((msg) => (msg?.type === "ready" ? this.post(this.shown) : this.reveal(msg?.node))),
      vscode.window.onDidChangeTextEditorSelection((e) => this.schedule(e.textEditor, 150)),
      vscode.window.onDidChangeActiveTextEditor((e) => this.schedule(e, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        const editor = vscode.window.activeTextEditor;
        if (editor && e.document === editor.document) {
          this.schedule(editor, 400);
        }
      }),
    );
    panel.onDidDispose(() => {
      CfgPanel.open = undefined;
      clearTimeout(this.timer);
      this.disposables.forEach((d) => d.dispose());
    });
  }

  private schedule(editor: vscode.TextEditor | undefined, delay: number): void {
    if (!editor || editor.document.languageId !== "spvasm") {
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(editor), delay);
  }

  private post(answer: unknown): void {
    this.shown = answer;
    if (answer !== undefined) {
      void this.panel.webview.postMessage({ type: "show", answer });
    }
  }

  private async update(editor: vscode.TextEditor): Promise<void> {
    const client = this.client();
    if (!client) {
      this.post({ dot: null, message: "spvls is not running" });
      return;
    }
    try {
      const answer: CfgAnswer = await client.sendRequest(ExecuteCommandRequest.type, {
        command: "spvls.showCfg",
        arguments: [{ uri: editor.document.uri.toString(), position: editor.selection.active, svg: false }],
      });
      this.answer = answer;
      this.uri = editor.document.uri;
      this.panel.title = answer.function ? `CFG ${answer.function}` : "CFG";
      this.post(answer);
    } catch (err) {
      this.post({ dot: null, message: `spvls.showCfg: ${err}` });
    }
  }

  private async reveal(node: unknown): Promise<void> {
    const block = this.answer?.blocks.find((b) => b.node === node);
    if (!block || !this.uri) {
      return;
    }
    const { start, end } = block.range;
    const range = new vscode.Range(start.line, start.character, end.line, end.character);
    const doc = await vscode.workspace.openTextDocument(this.uri);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: range });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}
