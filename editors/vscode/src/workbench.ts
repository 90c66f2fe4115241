// The workbench: what spirv-opt makes of a module (spvls.optimize) and how two modules differ by
// structure (spvls.diff), each opened in VS Code's diff editor. The texts are the server's answers,
// served read-only under the spvls-workbench: scheme.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";

const SCHEME = "spvls-workbench";

interface Optimized {
  source: string;
  text: string;
  before: number;
  after: number;
  passes: { name: string; before: number; after: number }[];
}

interface Compared {
  left: string;
  right: string;
  diff: string;
  changed: number;
}

class Texts implements vscode.TextDocumentContentProvider {
  private texts = new Map<string, string>();
  private serial = 0;
  readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  // A new read-only document holding `text`, named `name` (shown in the diff editor's tab).
  add(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${++this.serial}/${name}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

function baseName(uri: vscode.Uri): string {
  return uri.path.split("/").pop() || uri.path;
}

// The SPIR-V file a command is about: the one the explorer names, else the active editor's.
function target(resource?: vscode.Uri): vscode.Uri | undefined {
  if (resource instanceof vscode.Uri) {
    return resource;
  }
  const editor = vscode.window.activeTextEditor;
  return editor?.document.uri;
}

async function ask<T>(client: LanguageClient | undefined, command: string, argument: object): Promise<T | undefined> {
  if (!client) {
    vscode.window.showErrorMessage("spvls is not running");
    return undefined;
  }
  try {
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] })) as T;
  } catch (err) {
    vscode.window.showErrorMessage(`spvls: ${err instanceof Error ? err.message : err}`);
    return undefined;
  }
}

export function registerWorkbench(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): void {
  const texts = new Texts();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, texts),
    // From the explorer's menu, the second argument is the files selected there (not passes).
    vscode.commands.registerCommand("spvls.optimize.show", async (resource?: vscode.Uri, passes?: unknown) => {
      const uri = target(resource);
      if (!uri) {
        return undefined;
      }
      const flags =
        (typeof passes === "string" ? passes : undefined) ??
        (await vscode.window.showInputBox({
          title: "spirv-opt passes",
          prompt: "spirv-opt's flags, e.g. -O, -Os, --eliminate-dead-code-aggressive",
          value: "-O",
        }));
      if (!flags) {
        return undefined;
      }
      const answer = await ask<Optimized>(client(), "spvls.optimize", { uri: uri.toString(), passes: flags });
      if (!answer) {
        return undefined;
      }
      const name = baseName(uri);
      const left = texts.add(`${name} (before ${flags})`, answer.source);
      const right = texts.add(`${name} (after ${flags})`, answer.text);
      const title = `${name}: spirv-opt ${flags}: ${answer.before} → ${answer.after} instructions`;
      await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false });
      return { title, left: left.toString(), right: right.toString(), answer };
    }),
    // From the explorer's menu, the second argument is the files selected there (not the other).
    vscode.commands.registerCommand("spvls.compareWith", async (resource?: vscode.Uri, otherUri?: unknown) => {
      const uri = target(resource);
      if (!uri) {
        return undefined;
      }
      let other = otherUri instanceof vscode.Uri ? otherUri : undefined;
      if (!other) {
        const picked = await vscode.window.showOpenDialog({
          title: `Compare ${baseName(uri)} with…`,
          canSelectMany: false,
          filters: { "SPIR-V": ["spv", "spvasm", "spirv", "asm"], "All files": ["*"] },
        });
        other = picked?.[0];
      }
      if (!other) {
        return undefined;
      }
      const answer = await ask<Compared>(client(), "spvls.diff", { uri: uri.toString(), other: other.toString() });
      if (!answer) {
        return undefined;
      }
      const left = texts.add(baseName(uri), answer.left);
      const right = texts.add(baseName(other), answer.right);
      const title = `${baseName(uri)} ↔ ${baseName(other)} (spirv-diff: ${answer.changed} lines differ)`;
      await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false });
      return { title, left: left.toString(), right: right.toString(), answer };
    })
  );
}
