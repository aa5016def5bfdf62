import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ftcapi <args>` as a real process, from the TypeScript sources, in the repository root. */
export function runCli(args: string[], options: { env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/ftcapi.ts", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Creates a key through the CLI (with any further `keys create` flags) and returns it: the last line of its output. */
export async function createKeyWithCli(
  db: string,
  email = "tester@example.com",
  ...flags: string[]
): Promise<string> {
  const result = await runCli(["keys", "create", "--db", db, "--email", email, ...flags]);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  const lines = result.stdout.trim().split("\n");
  return lines[lines.length - 1]!;
}
