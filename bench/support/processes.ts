import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVE_ENVIRONMENT, V8_SERVE_FLAGS } from "../../src/main.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Runs `ftcapi <args>` from the built CLI (dist/, as operators run it) and waits; throws on failure. */
export function cli(args: string[]): string {
  const result = spawnSync(process.execPath, ["dist/cli/ftcapi.js", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`ftcapi ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout;
}

/**
 * The CSV of `rows` complaints generated over `days` days up to 2026-01-01 with `seed`, in
 * bench/cache: generated on first use, then reused by every benchmark that asks for the same.
 */
export function generatedComplaints(rows: number, days: number, seed: number): string {
  const cache = join(ROOT, "bench", "cache");
  mkdirSync(cache, { recursive: true });
  const csv = join(cache, `dnc-${rows}-days${days}-seed${seed}-end2026-01-01.csv`);
  if (!existsSync(csv)) {
    console.log(`generating ${rows} complaints...`);
    cli([
      "generate",
      "dnc",
      "--rows",
      String(rows),
      "--days",
      String(days),
      "--seed",
      String(seed),
      "--end",
      "2026-01-01",
      "--out",
      csv,
    ]);
  }
  return csv;
}

export interface Served {
  url: string;
  /** The plain HTTP listener (serves behind a proxy with --trust-proxy and X-Forwarded-Proto). */
  httpUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `ftcapi serve <args>` on free ports and resolves once it prints its banner. */
export function serve(args: string[]): Promise<Served> {
  const child = spawn(
    process.execPath,
    [
      // As operators run it (docs/deployment.md, with `SERVE_ENVIRONMENT`); FTCAPI_BENCH_NODE_FLAGS adds node flags, such as
      // `--cpu-prof --cpu-prof-dir=DIR` to profile the server.
      ...(process.env.FTCAPI_BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== ""),
      ...V8_SERVE_FLAGS,
      "dist/cli/ftcapi.js",
      "serve",
      "--port",
      "0",
      "--http-port",
      "0",
      "--host",
      "127.0.0.1",
      "--log-level",
      "warn",
      ...args,
    ],
    { cwd: ROOT, env: { ...process.env, ...SERVE_ENVIRONMENT } },
  );
  let output = "";
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`serve exited (${code}):\n${output}`)));
    child.stderr!.on("data", (chunk) => {
      output += chunk;
    });
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      const match = /HTTPS:\s+(\S+)/.exec(output);
      if (match && /Try:/.test(output)) {
        resolve({
          url: match[1]!.replace("localhost", "127.0.0.1"),
          httpUrl: (/HTTP:\s+(\S+)/.exec(output)?.[1] ?? "").replace("localhost", "127.0.0.1"),
          child,
          stop: () =>
            new Promise((done) => {
              child.removeAllListeners("exit");
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    });
  });
}

export interface WrkResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

function milliseconds(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

/** Drives load with wrk (a separate process) and reads its summary. */
export function wrk(
  url: string,
  options: {
    connections: number;
    seconds: number;
    threads?: number;
    headers?: Record<string, string>;
    script?: string;
  },
): WrkResult {
  const threads = Math.min(options.threads ?? 2, options.connections);
  const args = [
    "-t",
    String(threads),
    "-c",
    String(options.connections),
    "-d",
    `${options.seconds}s`,
    "--latency",
  ];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  if (options.script) args.push("-s", options.script);
  args.push(url);
  const result = spawnSync("wrk", args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr}`);
  const out = result.stdout;
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN),
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    // Anchored: the thread statistics above hold percentages such as "97.50%".
    p50Ms: milliseconds(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ""),
    p99Ms: milliseconds(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ""),
    errors: errors ? errors.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
