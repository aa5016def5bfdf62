/**
 * How many leases one PostgreSQL primary can grant: keyed API requests, on every replica, are
 * admitted from hits leased by calls of `ftcapi_rate_lease` on the primary. This measures the
 * worst case, one hit per call (a key at its limit, or a slow client whose lease goes back unused),
 * so it bounds the whole deployment's keyed request rate however many replicas serve reads; a busy
 * key far from its limit takes up to 64 hits a call. Drives the function with
 * pgbench (Debian's postgresql-client), over many keys and over one hot key, and writes a
 * markdown table to bench/results/. Usage:
 * npm run bench:counters -- [--clients C] [--seconds S] [--runs R] [--keys K]
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { migrate } from "../src/store/migrate.js";
import { openDatabase } from "../src/store/open-database.js";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { median, ROOT } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "8" },
    runs: { type: "string", default: "3" },
    keys: { type: "string", default: "1000" },
  },
});
const cluster = await startThrowawayCluster();
const directory = mkdtempSync(join(tmpdir(), "ftcapi-counters-"));
try {
  const database = openDatabase(cluster.url);
  await migrate(database);
  await database.close();

  /** A lease of one hit, as PostgresRateLimitStore issues it. */
  const call = (key: string) =>
    [
      `\\set key ${key}`,
      "select * from ftcapi_rate_lease(array['key:' || :key], array[1000000000]::bigint[], array[3600]::bigint[],",
      "  array[(extract(epoch from now())::bigint / 60) * 60], 1, 1, '{}'::text[], '{}'::bigint[], '{}'::bigint[]);",
    ].join("\n");
  const workloads: Array<[string, string]> = [
    [`${values.keys} keys, each request a random one`, call(`random(1, ${values.keys})`)],
    ["one key for every request (a single heavy client)", call("1")],
  ];
  const lines = [
    "# Rate-limit counting on one PostgreSQL primary",
    "",
    `${new Date().toISOString()}; pgbench, ${values.clients} clients, ${values.seconds} s x ${values.runs} runs; medians. The throwaway cluster runs with fsync off, so a durable primary's figures depend on its disk's flush rate too.`,
    "",
    "| workload | leases (one hit each)/s | mean latency ms |",
    "|---|---:|---:|",
  ];
  for (const [name, script] of workloads) {
    const file = join(directory, "hit.sql");
    writeFileSync(file, `${script}\n`);
    const rates: number[] = [];
    const latencies: number[] = [];
    for (let run = 0; run < Number(values.runs); run++) {
      const result = spawnSync(
        "pgbench",
        ["-n", "-c", values.clients!, "-j", "2", "-T", values.seconds!, "-f", file, cluster.url],
        { encoding: "utf8" },
      );
      if (result.status !== 0) throw new Error(`pgbench failed:\n${result.stderr}`);
      rates.push(Number(/tps = ([\d.]+)/.exec(result.stdout)?.[1]));
      latencies.push(Number(/latency average = ([\d.]+) ms/.exec(result.stdout)?.[1]));
    }
    lines.push(`| ${name} | ${median(rates).toFixed(0)} | ${median(latencies).toFixed(2)} |`);
    console.log(lines.at(-1));
  }
  const report = lines.join("\n");
  const resultsDirectory = join(ROOT, "bench", "results");
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(join(resultsDirectory, "counter-capacity-postgres.md"), `${report}\n`);
  console.log(`\n${report}`);
} finally {
  cluster.stop();
}
