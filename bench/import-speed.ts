/**
 * Import speed: N generated complaints into SQLite and into PostgreSQL through `ftcapi import dnc`
 * (everything the service needs maintained: indexes, daily counts, dedupe), next to the time
 * sqlite3's own `.import` takes to load the same file into a bare table, in the same run.
 * Usage: npm run bench:import -- [--rows N] [--dialect sqlite|postgres|both]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { cli, ROOT } from "./support/processes.js";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "2000000" }, dialect: { type: "string", default: "both" } },
});
const rows = Number(values.rows);
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = join(cache, `dnc-${rows}-days365-seed7-end2026-01-01.csv`);
if (!existsSync(csv)) {
  console.log(`generating ${rows} complaints...`);
  cli([
    "generate",
    "dnc",
    "--rows",
    String(rows),
    "--days",
    "365",
    "--seed",
    "7",
    "--end",
    "2026-01-01",
    "--out",
    csv,
  ]);
}

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return (performance.now() - started) / 1000;
}

const lines = [
  `# Import speed, ${rows.toLocaleString("en-US")} generated complaints`,
  "",
  `${new Date().toISOString()}. \`ftcapi import dnc\` maintains everything the service needs (primary key, id index, six filter indexes, daily counts, duplicate detection) in one transaction.`,
  "",
  "| load | seconds | rows/s |",
  "|---|---:|---:|",
];
const row = (name: string, seconds: number) => {
  lines.push(`| ${name} | ${seconds.toFixed(1)} | ${Math.round(rows / seconds).toLocaleString("en-US")} |`);
  console.log(lines.at(-1));
};

if (values.dialect !== "postgres") {
  const bare = join(cache, "bare.db");
  rmSync(bare, { force: true });
  row(
    "sqlite3 `.import` into a bare table (baseline)",
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
  row(
    "`ftcapi import dnc`, SQLite, empty database",
    timed(() => cli(["import", "dnc", "--quiet", "--db", target, csv])),
  );
  row(
    "`ftcapi import dnc`, SQLite, same file again (all present)",
    timed(() => cli(["import", "dnc", "--quiet", "--db", target, csv])),
  );
}
if (values.dialect !== "sqlite") {
  const cluster = await startThrowawayCluster();
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query("create database import_speed");
    await admin.end();
    const url = cluster.url.replace(/\/postgres$/, "/import_speed");
    row(
      "`ftcapi import dnc`, PostgreSQL (COPY), empty database",
      timed(() => cli(["import", "dnc", "--quiet", "--db", url, csv])),
    );
    row(
      "`ftcapi import dnc`, PostgreSQL, same file again (all present)",
      timed(() => cli(["import", "dnc", "--quiet", "--db", url, csv])),
    );
  } finally {
    cluster.stop();
  }
}
const report = lines.join("\n");
mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(join(ROOT, "bench", "results", `import-speed-${rows}.md`), `${report}\n`);
console.log(`\n${report}`);
