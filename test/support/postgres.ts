import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";

/**
 * A PostgreSQL server for tests: the one `FTCAPI_TEST_POSTGRES_URL` names (an admin URL; the test
 * runner sets it), else a throwaway cluster started here with Debian's initdb and pg_ctl and
 * stopped when this process exits.
 */
let adminUrl: Promise<string> | undefined;

export function postgresAdminUrl(): Promise<string> {
  adminUrl ??= process.env.FTCAPI_TEST_POSTGRES_URL
    ? Promise.resolve(process.env.FTCAPI_TEST_POSTGRES_URL)
    : startThrowawayCluster().then((cluster) => {
        process.on("exit", cluster.stop);
        return cluster.url;
      });
  return adminUrl;
}

/** A fresh, empty database on the test server; returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const admin = await postgresAdminUrl();
  const name = `ftcapi_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface Cluster {
  url: string;
  directory: string;
  /**
   * Stops the server at once (synchronous, so it can run at process exit) and, for a throwaway
   * cluster, deletes its directory.
   */
  stop(): void;
  /** `pg_ctl stop` / `start` for fault tests. */
  pause(): void;
  resume(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Runs a PostgreSQL tool, as the postgres user when this process is root (the server refuses root). */
function asPostgres(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * Starts a PostgreSQL cluster: a throwaway one in a new temporary directory, or the one kept in
 * `keepIn` (made there on first use; benchmarks keep their loaded data between runs).
 */
export async function startThrowawayCluster(keepIn?: string): Promise<Cluster> {
  const directory = resolve(keepIn ?? mkdtempSync(join(tmpdir(), "ftcapi-pg-")));
  mkdirSync(directory, { recursive: true });
  const fresh = !existsSync(join(directory, "data", "PG_VERSION"));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(directory, uid, gid);
  }
  const data = join(directory, "data");
  const port = await freePort();
  if (fresh)
    asPostgres("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
  const options = [
    `-p ${port}`,
    `-k ${directory}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () =>
    asPostgres("pg_ctl", ["-D", data, "-o", options, "-l", join(directory, "server.log"), "-w", "start"]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    directory,
    stop: () => {
      try {
        // A kept cluster (a benchmark's) stops fast, writing out what it committed: its commits are
        // asynchronous, and an immediate stop loses the last of them (a migration run just before).
        asPostgres("pg_ctl", ["-D", data, "-m", keepIn ? "fast" : "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      if (!keepIn) rmSync(directory, { recursive: true, force: true });
    },
    pause: () => asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    resume: start,
  };
}
