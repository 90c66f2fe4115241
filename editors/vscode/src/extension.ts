// Starts spvls over stdio for SPIR-V assembly documents.
import * as vscode from "vscode";
import { execFileSync } from "child_process";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { CfgPanel } from "./cfgPanel";

let client: LanguageClient | undefined;

function serverCommand(): { command: string; args: string[] } | undefined {
  const cfg = vscode.workspace.getConfiguration("spvls");
  const serverPath = cfg.get<string>("serverPath", "");
  if (serverPath) {
    return { command: serverPath, args: [] };
  }
  const python = cfg.get<string>("pythonPath", "");
  if (python) {
    return { command: python, args: ["-m", "spvls"] };
  }
  try {
    execFileSync(process.platform === "win32" ? "where" : "which", ["spvls"]);
    return { command: "spvls", args: [] };
  } catch {
    return undefined;
  }
}

function settings() {
  const cfg = vscode.workspace.getConfiguration("spvls");
  const env = cfg.get<string>("targetEnv", "auto");
  return { targetEnv: env === "auto" ? null : env, inlayHints: cfg.get<boolean>("inlayHints", true),
           sourceHints: cfg.get<boolean>("sourceHints", false) };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const cmd = serverCommand();
  if (!cmd) {
    const choice = await vscode.window.showErrorMessage(
      "spvls: the language server was not found. Install it with `pip install spvls`, " +
        "or set spvls.serverPath / spvls.pythonPath.",
      "Open Settings"
    );
    if (choice === "Open Settings") {
      vscode.commands.executeCommand("workbench.action.openSettings", "spvls");
    }
    return;
  }
  const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "spirv" }],
    initializationOptions: settings(),
    synchronize: { configurationSection: "spvls" },
  };
  client = new LanguageClient("spvls", "spvls", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(`spvls: could not start '${cmd.command}': ${err}`);
    client = undefined;
  }
  context.subscriptions.push({ dispose: () => client?.stop() });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("spvls.restart", async () => {
      await client?.stop();
      client = undefined;
      await start(context);
    }),
    vscode.commands.registerCommand("spvls.cfg.show", () => CfgPanel.show(context, () => client))
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
