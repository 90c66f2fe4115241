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

// The settings that say where spvls is: changing one starts (or restarts) the server.
const WHERE = ["spvls.serverPath", "spvls.venv", "spvls.pythonPath"];

// Starts the server when one is found. Never waits on a message: the window's activation must not
// hang until a person dismisses "spvls was not found" (the message is shown, not awaited).
async function start(): Promise<void> {
  const cfg = vscode.workspace.getConfiguration("spvls");
  const cmd = findServer({
    serverPath: cfg.get<string>("serverPath", ""),
    venv: cfg.get<string>("venv", ""),
    pythonPath: cfg.get<string>("pythonPath", ""),
  });
  if ("error" in cmd) {
    void vscode.window
      .showErrorMessage(`spvls: ${cmd.error} The server starts as soon as the setting is saved.`, "Open Settings")
      .then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "spvls.venv");
        }
      });
    return;
  }
  const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "spvasm" }],
    initializationOptions: settings(),
    synchronize: { configurationSection: "spvls" },
  };
  const starting = new LanguageClient("spvls", "spvls", serverOptions, clientOptions);
  client = starting;
  try {
    await starting.start();
  } catch (err) {
    void vscode.window.showErrorMessage(`spvls: could not start '${cmd.command}': ${err}`);
    if (client === starting) {
      client = undefined;
    }
  }
}

async function restart(): Promise<void> {
  const old = client;
  client = undefined;
  await old?.stop().catch(() => undefined);
  await start();
}

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("spvls.restart", restart),
    vscode.commands.registerCommand("spvls.cfg.show", () => CfgPanel.show(context, () => client)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (WHERE.some((key) => e.affectsConfiguration(key))) {
        void restart();
      }
    }),
    { dispose: () => void client?.stop() }
  );
  registerBinary(context, () => client); // .spv files as editable assembly, saved back as binary
  registerWorkbench(context, () => client); // spirv-opt's effect and Compare with…, as diffs
  void start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
