// Binary SPIR-V modules as editable SPIR-V assembly. A `.spv` file (or any file, through the
// command "spvls: Open Binary Module as Assembly") opens as a `spvls-binary:` document whose
// text is the server's `spvls.disassemble`; saving it runs `spvls.assemble`, which numbers the
// names with the binary's own ids and replaces the file atomically. Text that does not assemble
// is never written: an explicit save fails with the assembler's message; an auto save (after a
// delay, on focus change) leaves the file as it is without a word, and the status bar says the
// binary is not saved and why, until a save succeeds.
import * as vscode from "vscode";
import { promises as fs } from "fs";
import { LanguageClient } from "vscode-languageclient/node";
import { isBinaryFile } from "./spvFile";

export const SCHEME = "spvls-binary";

function fileUri(uri: vscode.Uri): vscode.Uri {
  return vscode.Uri.file(uri.fsPath);
}

export function binaryUri(file: vscode.Uri): vscode.Uri {
  return vscode.Uri.file(file.fsPath).with({ scheme: SCHEME });
}

interface CommandError {
  message?: string;
  data?: { line?: number | null; column?: number | null; message?: string };
}

// What the status bar says of each binary document: saved, or not saved and why.
class SaveState {
  private readonly item = vscode.window.createStatusBarItem("spvls.binary.saved", vscode.StatusBarAlignment.Left, 100);
  private readonly notSaved = new Map<string, string>();

  constructor() {
    this.item.name = "SPIR-V binary";
    vscode.window.onDidChangeActiveTextEditor(() => this.show());
  }

  saved(uri: vscode.Uri): void {
    this.notSaved.delete(uri.toString());
    this.show();
  }

  refused(uri: vscode.Uri, why: string): void {
    this.notSaved.set(uri.toString(), why);
    this.show();
  }

  private show(): void {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.uri.scheme !== SCHEME) {
      this.item.hide();
      return;
    }
    const why = this.notSaved.get(doc.uri.toString());
    this.item.text = why === undefined ? "$(check) binary saved" : "$(warning) binary not saved";
    this.item.tooltip = why === undefined
      ? `${doc.uri.fsPath} holds this text, assembled`
      : `${doc.uri.fsPath} is left as it was: the text does not assemble (${why})`;
    this.item.backgroundColor = why === undefined ? undefined : new vscode.ThemeColor("statusBarItem.warningBackground");
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

class BinaryFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly unreadable = new Map<string, string>();
  // Why each document is being saved (onWillSaveTextDocument comes just before writeFile).
  private readonly reasons = new Map<string, vscode.TextDocumentSaveReason>();

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly problems: vscode.DiagnosticCollection,
    private readonly state: SaveState
  ) {}

  willSave(e: vscode.TextDocumentWillSaveEvent): void {
    if (e.document.uri.scheme === SCHEME) {
      this.reasons.set(e.document.uri.toString(), e.reason);
    }
  }

  // The server may still be starting when VS Code asks for a document restored at start-up.
  private async running(): Promise<LanguageClient> {
    for (let i = 0; i < 150; i++) {
      const c = this.client();
      if (c && c.isRunning()) {
        return c;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw vscode.FileSystemError.Unavailable("spvls is not running: binary modules are read and written by it");
  }

  private async run(command: string, arg: object): Promise<any> {
    const c = await this.running();
    return c.sendRequest("workspace/executeCommand", { command, arguments: [arg] });
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    try {
      const s = await fs.stat(uri.fsPath);
      return { type: vscode.FileType.File, ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    try {
      const answer = await this.run("spvls.disassemble", { uri: fileUri(uri).toString() });
      this.unreadable.delete(uri.toString());
      return Buffer.from(answer.text, "utf8");
    } catch (err) {
      if (err instanceof vscode.FileSystemError) {
        throw err;
      }
      // Not an empty document: the reason, and the file cannot be saved over.
      const message = (err as CommandError).message ?? String(err);
      this.unreadable.set(uri.toString(), message);
      this.problems.set(uri, [new vscode.Diagnostic(new vscode.Range(1, 0, 1, 1), message)]);
      vscode.window.showErrorMessage(`spvls: ${message}`);
      return Buffer.from(`; spvls could not read this binary module; the file is left as it is:\n; ${message}\n`);
    }
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const unreadable = this.unreadable.get(uri.toString());
    if (unreadable) {
      throw vscode.FileSystemError.NoPermissions(`not saved: the binary could not be read (${unreadable})`);
    }
    const reason = this.reasons.get(uri.toString()) ?? vscode.TextDocumentSaveReason.Manual;
    this.reasons.delete(uri.toString());
    try {
      await this.run("spvls.assemble", { uri: fileUri(uri).toString(), text: Buffer.from(content).toString("utf8") });
    } catch (err) {
      if (err instanceof vscode.FileSystemError) {
        throw err;
      }
      const e = err as CommandError;
      const why = e.data?.message ?? e.message ?? "does not assemble";
      const line = e.data?.line;
      this.state.refused(uri, typeof line === "number" ? `line ${line + 1}: ${why}` : why);
      // The server shows the error where it is (its own check, or spirv-as's through spirv-val):
      // one more here only when it shows none on that line.
      if (typeof line === "number" && !vscode.languages.getDiagnostics(uri).some((d) => d.range.start.line === line)) {
        const col = e.data?.column ?? 0;
        this.problems.set(uri, [new vscode.Diagnostic(new vscode.Range(line, col, line, col + 1), why)]);
      }
      if (reason !== vscode.TextDocumentSaveReason.Manual) {
        return; // half-typed text under auto save: the file is left as it is, the status bar says so
      }
      throw vscode.FileSystemError.NoPermissions(e.message ?? String(err));
    }
    this.problems.delete(uri);
    this.state.saved(uri);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  readDirectory(): [string, vscode.FileType][] {
    throw vscode.FileSystemError.NoPermissions("spvls-binary: documents only");
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions("spvls-binary: documents only");
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions("spvls-binary: documents only");
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("spvls-binary: documents only");
  }
}

async function openAsAssembly(file: vscode.Uri, column?: vscode.ViewColumn): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(binaryUri(file));
  const spirv = doc.languageId === "spvasm" ? doc : await vscode.languages.setTextDocumentLanguage(doc, "spvasm");
  await vscode.window.showTextDocument(spirv, { viewColumn: column, preview: false });
}

// Opening a `.spv` (the custom editor's selector) hands the file to the text editor as assembly.
class Redirect implements vscode.CustomReadonlyEditorProvider {
  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.html = "<p>Opening as SPIR-V assembly…</p>";
    await openAsAssembly(document.uri, panel.viewColumn);
    panel.dispose();
  }
}

export function registerBinary(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): void {
  const problems = vscode.languages.createDiagnosticCollection("spvls-binary");
  const state = new SaveState();
  const fileSystem = new BinaryFileSystem(client, problems, state);
  context.subscriptions.push(
    problems,
    state,
    vscode.workspace.onWillSaveTextDocument((e) => fileSystem.willSave(e)),
    // A refused save's diagnostic is about text that is no longer there once it changes.
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme === SCHEME && e.contentChanges.length) {
        problems.delete(e.document.uri);
      }
    }),
    vscode.workspace.registerFileSystemProvider(SCHEME, fileSystem, { isCaseSensitive: true }),
    vscode.window.registerCustomEditorProvider("spvls.binary", new Redirect()),
    vscode.commands.registerCommand("spvls.openBinary", async (uri?: vscode.Uri) => {
      const file = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!file || file.scheme !== "file") {
        vscode.window.showErrorMessage("spvls: choose a file on disk to open as SPIR-V assembly");
        return;
      }
      if (!(await isBinaryFile(file.fsPath))) {
        vscode.window.showErrorMessage(`spvls: ${file.fsPath} does not start with SPIR-V's magic number`);
        return;
      }
      await openAsAssembly(file);
    })
  );
}
