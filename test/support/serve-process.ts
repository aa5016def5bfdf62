import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { resolve as resolvePath } from "node:path";
import { cliEntry, REPO_ROOT } from "./cli.js";

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  httpsUrl: string;
  httpUrl: string;
  /** The metrics address the banner printed (with `--metrics-port`), else undefined. */
  metricsUrl: string | undefined;
  /** The `curl` line the banner printed. */
  curlLine: string;
  /** The certificate file that line names (`--cacert`), absolute; absent when it names none. */
  certPath: string | undefined;
  /** Everything written to standard output so far. */
  output(): string;
  /** Everything written to standard error so far. */
  errorOutput(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `ftcapi serve <args>` as a real process and waits for its banner: as `cliEntry` chooses
 * (dist/ when current, else the sources), or with `built` from dist/ whatever its age, as
 * operators run it; `nodeFlags` go to node itself.
 */
export function startServeProcess(
  args: string[],
  timeoutMs = 120_000,
  cwd = REPO_ROOT,
  built = false,
  nodeFlags: readonly string[] = [],
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...nodeFlags, ...cliEntry(built), "serve", ...args], { cwd });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve printed no banner in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before its banner:\n${stdout}\n${stderr}`));
    });
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const curl = /Try:\s+(curl .*)$/m.exec(stdout);
      if (!curl) return;
      clearTimeout(timer);
      const cacert = /--cacert (\S+)/.exec(curl[1]!)?.[1];
      resolve({
        child,
        httpsUrl: /HTTPS:\s+(\S+)/.exec(stdout)![1]!,
        httpUrl: /HTTP:\s+(\S+)/.exec(stdout)![1]!,
        metricsUrl: /Metrics:\s+(\S+)/.exec(stdout)?.[1],
        curlLine: curl[1]!,
        certPath: cacert === undefined ? undefined : resolvePath(cwd, cacert),
        output: () => stdout,
        errorOutput: () => stderr,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
  });
}

/** `serve` flags for `db` on loopback, on ports the system picks, logging warnings; `extra` follow. */
export function localServeFlags(db: string, ...extra: string[]): string[] {
  return [
    "--db",
    db,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--http-port",
    "0",
    "--log-level",
    "warn",
    ...extra,
  ];
}
