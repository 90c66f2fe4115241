// Finding spvls and checking it runs, before the client starts it. No vscode import, so node can
// test it alone (tests/e2e/test_vscode.py).
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export interface Settings {
  serverPath?: string;
  venv?: string;
  pythonPath?: string;
}

export type Found = { command: string; args: string[] } | { error: string };

// spvls is not on PyPI: it installs from a clone of its repository.
export const INSTALL =
  "python3 -m venv ~/.venvs/spvls && ~/.venvs/spvls/bin/pip install /path/to/spvls " +
  "(a clone of the spvls repository), then set spvls.venv to ~/.venvs/spvls";

function bin(venv: string, name: string, platform: string): string {
  return platform === "win32" ? path.join(venv, "Scripts", name + ".exe") : path.join(venv, "bin", name);
}

function onPath(name: string, platform: string): boolean {
  try {
    execFileSync(platform === "win32" ? "where" : "which", [name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

// The command that runs spvls, by the settings: serverPath, else the venv's spvls (or its python
// -m spvls), else pythonPath -m spvls, else spvls on PATH.
export function candidate(s: Settings, platform: string = process.platform): Found {
  if (s.serverPath) {
    return { command: s.serverPath, args: [] };
  }
  if (s.venv) {
    const exe = bin(s.venv, "spvls", platform);
    if (fs.existsSync(exe)) {
      return { command: exe, args: [] };
    }
    const python = bin(s.venv, "python", platform);
    if (!fs.existsSync(python)) {
      return { error: `spvls.venv is ${s.venv}, which is not a virtual environment (no ${python}). Create one: ${INSTALL}.` };
    }
    return { command: python, args: ["-m", "spvls"] };
  }
  if (s.pythonPath) {
    return { command: s.pythonPath, args: ["-m", "spvls"] };
  }
  if (onPath("spvls", platform)) {
    return { command: "spvls", args: [] };
  }
  return { error: `spvls was not found on PATH and no spvls.venv is set. Install it: ${INSTALL}.` };
}

// Runs `<command> --version` so a python without spvls is told at once, not after a silent start.
export function findServer(s: Settings, platform: string = process.platform): Found {
  const found = candidate(s, platform);
  if ("error" in found) {
    return found;
  }
  try {
    const out = execFileSync(found.command, [...found.args, "--version"], { encoding: "utf8", timeout: 30000 });
    if (out.startsWith("spvls ")) {
      return found;
    }
  } catch {
    // reported below
  }
  const how = found.args.length
    ? `spvls is not installed for ${found.command}. Install it there: ${found.command} -m pip install /path/to/spvls ` +
      "(a clone of the spvls repository)"
    : `'${found.command}' does not run spvls. Install it: ${INSTALL}`;
  return { error: how + "." };
}
