import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtIsCurrent } from "../../src/store/start-worker.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The node arguments that start `ftcapi`: the built dist/cli/ftcapi.js when dist/ is current
 * (`npm test` builds first; a process starts in about a quarter of tsx's time), else the sources
 * through tsx, so that a test run after an edit without a build still tests the edit.
 * `built` asks for dist/ whatever its age, for tests of the build as operators run it.
 */
export function cliEntry(built = false): string[] {
  return built || builtIsCurrent()
    ? [join(REPO_ROOT, "dist/cli/ftcapi.js")]
    : ["--import", import.meta.resolve("tsx"), join(REPO_ROOT, "src/cli/ftcapi.ts")];
}

/** Runs `ftcapi <args>` as a real process (see `cliEntry`), in the repository root. */
export function runCli(args: string[], options: { env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliEntry(), ...args], {
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

const generated = new Map<string, Promise<string>>();

/**
 * A file made once per test process by `ftcapi generate <collection> --rows N --seed 9` in
 * `directory` (the first caller's), shared by every test that asks for the same collection and size.
 */
export function generatedOnce(
  collection: "dnc" | "notices",
  rows: number,
  directory: string,
): Promise<string> {
  const key = `${collection}-${rows}`;
  let file = generated.get(key);
  if (!file) {
    file = (async () => {
      // Named large.csv in a folder of its own: tests match the file's name in the summary.
      const folder = join(directory, key);
      await mkdir(folder, { recursive: true });
      const out = join(folder, "large.csv");
      const made = await runCli([
        "generate",
        collection,
        "--rows",
        String(rows),
        "--seed",
        "9",
        "--out",
        out,
      ]);
      assert.equal(made.code, 0, made.stderr);
      return out;
    })();
    generated.set(key, file);
  }
  return file;
}

/** The peak memory an import printed with `--report-memory`, in MB. */
export function reportedPeakMegabytes(stderr: string): number {
  const match = /peak memory: (\d+) MB/.exec(stderr);
  assert.ok(match, `no peak memory reported:\n${stderr}`);
  return Number(match[1]);
}
