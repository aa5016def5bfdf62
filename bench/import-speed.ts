/**
 * Import speed: N generated complaints into SQLite and into PostgreSQL through `ftcapi import dnc`
 * (everything the service needs maintained: indexes, daily counts, dedupe), next to the time
 * sqlite3's own `.import` takes to load the same file into a bare table, in the same run.
 * Each load runs `--runs` times (default 3), interleaved with the baseline; the table shows medians
 * and the ratio to the baseline's median rate.
 * `--compare DIR` (repeatable) also times the build in DIR (an earlier version, built) on SQLite.
 * `--keep FILE` keeps the SQLite database of the first run there (for the load benchmark's --db).
 * Usage: npm run bench:import -- [--rows N] [--dialect sqlite|postgres|both] [--runs R] [--compare DIR]
 *          [--keep FILE]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { generatedComplaints, median, ROOT } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "2000000" },
    dialect: { type: "string", default: "both" },
    runs: { type: "string", default: "3" },
    compare: { type: "string", multiple: true },
    keep: { type: "string" },
  },
});
const rows = Number(values.rows);
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = generatedComplaints(rows, 365, 7);

/** Peak resident memory of each `ftcapi import dnc` load (MB), by load name. */
const peaks = new Map<string, number[]>();

/**
 * Runs the built CLI's `import dnc` (or that of an earlier build, which may not know
 * `--report-memory`), records its peak memory when reported, and returns its seconds.
 */
function timedImport(name: string, args: string[], build?: string): number {
  const command = build ?? join("dist", "cli", "ftcapi.js");
  const flags = build ? ["--quiet"] : ["--quiet", "--report-memory"];
  let stderr = "";
  const seconds = timed(() => {
    const result = spawnSync(process.execPath, [command, "import", "dnc", ...flags, ...args], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`import dnc ${args.join(" ")} failed:\n${result.stderr}`);
    stderr = result.stderr;
  });
  const peak = /peak memory: (\d+) MB/.exec(stderr);
  if (peak) peaks.set(name, [...(peaks.get(name) ?? []), Number(peak[1])]);
  return seconds;
}

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

const runs = Number(values.runs);
const seconds = new Map<string, number[]>();
const record = (name: string, value: number) => {
  seconds.set(name, [...(seconds.get(name) ?? []), value]);
  console.log(`${name}: ${value.toFixed(1)} s`);
};
const BASELINE = "sqlite3 `.import` into a bare table (baseline)";

async function sqliteRun(): Promise<void> {
  const bare = join(cache, "bare.db");
  rmSync(bare, { force: true });
  record(
    BASELINE,
    timed(() => {
      const result = spawnSync("sqlite3", [bare, ".mode csv", `.import ${csv} complaints`], {
        encoding: "utf8",
      });
      if (result.status !== 0) throw new Error(result.stderr);
    }),
  );
  rmSync(bare, { force: true });
  const target = join(cache, "import-speed.db");
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
  for (const name of [
    "`ftcapi import dnc`, SQLite, empty database",
    "`ftcapi import dnc`, SQLite, same file again (all present)",
  ])
    record(name, timedImport(name, ["--db", target, csv]));
  if (values.keep && !existsSync(values.keep)) renameSync(target, values.keep);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
  for (const directory of values.compare ?? []) {
    const name = `the same, SQLite, empty database, by the build in ${directory}`;
    record(name, timedImport(name, ["--db", target, csv], join(directory, "dist", "cli", "ftcapi.js")));
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${target}${suffix}`, { force: true });
  }
}

async function postgresRun(url: string, run: number): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database import_speed_${run}`);
  await admin.end();
  const target = url.replace(/\/postgres$/, `/import_speed_${run}`);
  for (const name of [
    "`ftcapi import dnc`, PostgreSQL (COPY), empty database",
    "`ftcapi import dnc`, PostgreSQL, same file again (all present)",
  ])
    record(name, timedImport(name, ["--db", target, csv]));
  const drop = new pg.Client({ connectionString: url });
  await drop.connect();
  await drop.query(`drop database import_speed_${run}`);
  await drop.end();
}

const cluster = values.dialect !== "sqlite" ? await startThrowawayCluster() : undefined;
try {
  for (let run = 0; run < runs; run++) {
    if (values.dialect !== "postgres") await sqliteRun();
    if (cluster) await postgresRun(cluster.url, run);
  }
} finally {
  cluster?.stop();
}

const baselineRate = seconds.has(BASELINE) ? rows / median(seconds.get(BASELINE)!) : undefined;
const lines = [
  `# Import speed, ${rows.toLocaleString("en-US")} generated complaints`,
  "",
  `${new Date().toISOString()}, medians of ${runs} runs on a shared 2-core machine. \`ftcapi import dnc\` maintains everything the service needs (primary key, id index, the filter indexes, the count tables, duplicate detection) in one transaction.`,
  "",
  "| load | seconds (median) | rows/s | rate vs baseline | peak RSS (median) |",
  "|---|---:|---:|---:|---:|",
];
for (const [name, values] of seconds) {
  const value = median(values);
  const rate = rows / value;
  const ratio = baselineRate ? `${(rate / baselineRate).toFixed(2)}` : "";
  const peak = peaks.has(name) ? `${median(peaks.get(name)!)} MB` : "";
  lines.push(
    `| ${name} | ${value.toFixed(1)} | ${Math.round(rate).toLocaleString("en-US")} | ${ratio} | ${peak} |`,
  );
}
const report = lines.join("\n");
mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(join(ROOT, "bench", "results", `import-speed-${values.dialect}-${rows}.md`), `${report}\n`);
console.log(`\n${report}`);
