// Starts spvls over stdio for SPIR-V assembly documents.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { registerBinary } from "./binary";
import { CfgPanel } from "./cfgPanel";
import { findServer } from "./server";
import { registerWorkbench } from "./workbench";

let client: LanguageClient | undefined;

// spirv-val's options: package.json's spvls.* booleans of the same names.
const VALIDATOR_OPTIONS = [
  "relaxBlockLayout", "uniformBufferStandardLayout", "scalarBlockLayout", "workgroupScalarBlockLayout",
  "skipBlockLayout", "relaxLogicalPointer", "relaxStructStore", "beforeHlslLegalization",
  "allowLocalSizeId", "allowOffsetTextureOperand", "allowVulkan32BitBitwise",
];

function settings() {
  const cfg = vscode.workspace.getConfiguration("spvls");
  const env = cfg.get<string>("targetEnv", "auto");
  const out: Record<string, unknown> = {
    targetEnv: env === "auto" ? null : env,
    inlayHints: cfg.get<boolean>("inlayHints", true),
    sourceHints: cfg.get<boolean>("sourceHints", false),
    validate: cfg.get<string>("validate", "onType"),
    validatorTimeout: cfg.get<number>("validatorTimeout", 5),
  };
  for (const key of VALIDATOR_OPTIONS) {
    out[key] = cfg.get<boolean>(key, false);
  }
  return out;
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const cfg = vscode.workspace.getConfiguration("spvls");
  const cmd = findServer({
    serverPath: cfg.get<string>("serverPath", ""),
    venv: cfg.get<string>("venv", ""),
    pythonPath: cfg.get<string>("pythonPath", ""),
  });
  if ("error" in cmd) {
    const choice = await vscode.window.showErrorMessage(`spvls: ${cmd.error}`, "Open Settings");
    if (choice === "Open Settings") {
      vscode.commands.executeCommand("workbench.action.openSettings", "spvls");
    }
    return;
  }
  const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "spvasm" }],
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
  registerBinary(context, () => client); // .spv files as editable assembly, saved back as binary
  registerWorkbench(context, () => client); // spirv-opt's effect and Compare with…, as diffs
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
