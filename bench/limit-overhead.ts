/**
 * What counting costs: the throughput of a keyed, limited endpoint (a key whose limit is never
 * reached, so every request is checked and counted in the database) against the same endpoint on
 * a server with limits switched off, alternating runs in one session. Prints and writes a markdown
 * table to bench/results/. Usage:
 * npm run bench:limits -- [--runs R] [--seconds S] [--connections C] [--workers W] [--dialect sqlite|postgres]
 * With `--dialect postgres` a throwaway cluster is started under bench/cache/postgres.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { cli, median, ROOT, serve, type WrkResult, wrk } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "50" },
    workers: { type: "string", default: "1" },
    db: { type: "string" },
    dialect: { type: "string", default: "sqlite" },
  },
});
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";
const runs = Number(values.runs);
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
let stopCluster = () => {};
let db = values.db ?? join(cache, "limits.db");
let needsImport = !values.db && !existsSync(db);
if (!values.db && dialect === "postgres") {
  const cluster = await startThrowawayCluster(join(cache, "postgres"));
  stopCluster = cluster.stop;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  needsImport = (await admin.query("select 1 from pg_database where datname = 'limits'")).rowCount === 0;
  if (needsImport) await admin.query("create database limits");
  await admin.end();
  db = cluster.url.replace(/\/postgres$/, "/limits");
}
if (needsImport) {
  const csv = join(cache, "limits-20000.csv");
  cli(["generate", "dnc", "--rows", "20000", "--seed", "4", "--end", "2026-01-01", "--out", csv]);
  cli(["import", "dnc", "--quiet", "--db", db, csv]);
}
const key = cli([
  "keys",
  "create",
  "--db",
  db,
  "--email",
  "bench@example.com",
  "--limit-per-hour",
  "1000000000",
])
  .trim()
  .split("\n")
  .at(-1)!;

const path = "/v0/dnc-complaints?items_per_page=10&state=Texas";
const limited = await serve(["--db", db, "--workers", values.workers!]);
const open = await serve(["--db", db, "--workers", values.workers!, "--disable-rate-limits"]);
const results: Record<"limited" | "open", WrkResult[]> = { limited: [], open: [] };
try {
  const load = (url: string) =>
    wrk(`${url}${path}`, {
      connections: Number(values.connections),
      seconds: Number(values.seconds),
      headers: { "X-Api-Key": key },
    });
  load(limited.url);
  load(open.url);
  for (let run = 0; run < runs; run++) {
    results.limited.push(load(limited.url));
    results.open.push(load(open.url));
    console.log(
      `run ${run + 1}: limited ${results.limited.at(-1)!.requestsPerSecond} req/s, off ${results.open.at(-1)!.requestsPerSecond} req/s`,
    );
  }
} finally {
  await limited.stop();
  await open.stop();
  stopCluster();
}

const row = (name: string, list: WrkResult[]) =>
  `| ${name} | ${median(list.map((r) => r.requestsPerSecond)).toFixed(0)} | ${median(list.map((r) => r.p50Ms)).toFixed(2)} | ${median(list.map((r) => r.p99Ms)).toFixed(2)} | ${list.reduce((sum, r) => sum + r.errors + r.non2xx, 0)} |`;
const ratio =
  median(results.limited.map((r) => r.requestsPerSecond)) /
  median(results.open.map((r) => r.requestsPerSecond));
const report = [
  "# Rate-limit overhead",
  "",
  `${new Date().toISOString()}; ${dialect === "postgres" ? "PostgreSQL" : "SQLite"}, ${values.workers} worker(s), wrk ${values.connections} connections, ${values.seconds} s x ${runs} runs each, alternating; medians.`,
  `Endpoint: \`GET ${path}\` with a key limited to 1,000,000,000 an hour (checked and counted, never refused).`,
  "",
  "| server | req/s | p50 ms | p99 ms | errors + non-2xx |",
  "|---|---:|---:|---:|---:|",
  row("limits on (keyed, counted)", results.limited),
  row("limits off (--disable-rate-limits)", results.open),
  "",
  `Ratio limited / off: **${ratio.toFixed(2)}**`,
].join("\n");
console.log(`\n${report}`);
const resultsDirectory = join(ROOT, "bench", "results");
mkdirSync(resultsDirectory, { recursive: true });
writeFileSync(join(resultsDirectory, `limit-overhead-${dialect}-${values.workers}w.md`), `${report}\n`);
