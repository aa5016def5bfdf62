/**
 * Export speed (issue 14): the whole complaint collection exported through `GET
 * /v0/dnc-complaints?format=csv` and `format=ndjson` from a served database (the built CLI's
 * `serve`, one process), read by a client that takes everything as it comes: rows a second, and the
 * server's peak resident memory over its resident memory before the export (sampled every 20 ms
 * from /proc). On SQLite, next to sqlite3's own `.mode csv` export of the same rows (same columns,
 * times formatted, same order) in the same run, when the `sqlite3` command is installed.
 * Each export runs `--runs` times (default 2); the table shows medians (peak growth: the largest).
 * Databases are built once under bench/cache. Prints and writes a markdown table to bench/results/.
 * Usage: npm run bench:export -- [--rows N] [--dialect sqlite|postgres|both] [--runs R]
 * With `--dialect postgres` (or both) a throwaway cluster is started under bench/cache/postgres.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { cli, generatedComplaints, median, ROOT, serve } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "2000000" },
    dialect: { type: "string", default: "sqlite" },
    runs: { type: "string", default: "2" },
  },
});
const rows = Number(values.rows);
const runs = Number(values.runs);
const dialects = values.dialect === "both" ? ["sqlite", "postgres"] : [values.dialect!];
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = generatedComplaints(rows, 365, 7);

interface Measured {
  seconds: number;
  bytes: number;
  lines: number;
  peakGrowthMb: number;
}

/** Resident memory of a process, in MB. */
function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Reads a whole export as fast as it comes, counting bytes and lines, while sampling the server's memory. */
function exportOnce(url: string, key: string, pid: number): Promise<Measured> {
  const before = residentMb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb(pid));
  }, 20);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { "X-Api-Key": key }, rejectUnauthorized: false, agent: false },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
        let bytes = 0;
        let lines = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
        });
        res.on("end", () => {
          clearInterval(sampler);
          peak = Math.max(peak, residentMb(pid));
          resolve({
            seconds: (performance.now() - started) / 1000,
            bytes,
            lines,
            peakGrowthMb: peak - before,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** sqlite3's own CSV export of the same rows, in the same order, to /dev/null; seconds. */
function sqlite3Export(db: string): number | undefined {
  if (spawnSync("sqlite3", ["-version"]).status !== 0) return undefined;
  const time = (column: string) => `strftime('%Y-%m-%d %H:%M:%S', ${column}, 'unixepoch')`;
  const query = `select phone as Company_Phone_Number, ${time("created_at")} as Created_Date, ${time("violation_at")} as Violation_Date, city as Consumer_City, state as Consumer_State, area_code as Consumer_Area_Code, subject as Subject, robocall as Recorded_Message_Or_Robocall from complaints order by created_at desc, id desc;`;
  const started = performance.now();
  const result = spawnSync(
    "sqlite3",
    ["-readonly", "-csv", "-header", "-cmd", ".output /dev/null", db, query],
    {
      encoding: "utf8",
    },
  );
  if (result.status !== 0) throw new Error(`sqlite3 failed: ${result.stderr}`);
  return (performance.now() - started) / 1000;
}

const lines: string[] = [
  `# Export speed: ${rows.toLocaleString("en-US")} complaints`,
  "",
  `${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, ${runs} run(s) each, medians; ` +
    "peak growth is the largest over the runs: the server's peak RSS during the export less its RSS before.",
  "The client reads over HTTPS on the same machine (2 cores shared with other work).",
  "",
  "| dialect | export | rows/s | MB/s | seconds | server peak RSS growth | ratio to sqlite3 .mode csv |",
  "|---|---|---:|---:|---:|---:|---:|",
];

for (const dialect of dialects) {
  let db: string;
  let stopCluster: () => void | Promise<void> = () => {};
  if (dialect === "postgres") {
    const cluster = await startThrowawayCluster(join(cache, "postgres"));
    stopCluster = cluster.stop;
    const name = `export_${rows}`;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    const exists = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount !== 0;
    if (!exists) await admin.query(`create database ${name}`);
    await admin.end();
    db = cluster.url.replace(/\/postgres$/, `/${name}`);
    if (!exists) {
      console.log(`importing ${rows} complaints into PostgreSQL...`);
      cli(["import", "dnc", "--quiet", "--db", db, csv]);
    }
  } else {
    db = join(cache, `export-${rows}.db`);
    if (!existsSync(db)) {
      console.log(`importing ${rows} complaints into SQLite...`);
      cli(["import", "dnc", "--quiet", "--db", db, csv]);
    }
  }
  const key = cli(["keys", "create", "--db", db, "--email", "bench@example.com", "--unlimited"])
    .trim()
    .split("\n")
    .at(-1)!;
  const server = await serve(["--db", db]);
  const pid = server.child.pid!;
  const baseline: number[] | undefined = dialect === "sqlite" ? [] : undefined;
  try {
    // Warm: the first request reads counts and loads the code paths.
    await exportOnce(`${server.url}/v0/dnc-complaints?format=csv&created_date=2025-12-31`, key, pid);
    const results: Record<string, Measured[]> = { csv: [], ndjson: [] };
    for (let run = 0; run < runs; run++) {
      for (const format of ["csv", "ndjson"] as const) {
        const measured = await exportOnce(`${server.url}/v0/dnc-complaints?format=${format}`, key, pid);
        if (measured.lines !== rows + (format === "csv" ? 1 : 0))
          throw new Error(`${format}: ${measured.lines} lines for ${rows} rows`);
        results[format]!.push(measured);
        console.log(
          `${dialect} ${format} run ${run + 1}: ${Math.round(rows / measured.seconds)} rows/s, peak +${measured.peakGrowthMb.toFixed(1)} MB`,
        );
      }
      const seconds = baseline ? sqlite3Export(db) : undefined;
      if (baseline && seconds !== undefined) {
        baseline.push(seconds);
        console.log(`sqlite3 .mode csv run ${run + 1}: ${Math.round(rows / seconds)} rows/s`);
      }
    }
    const baselineRate = baseline && baseline.length > 0 ? rows / median(baseline) : undefined;
    for (const format of ["csv", "ndjson"] as const) {
      const measured = results[format]!;
      const seconds = median(measured.map((entry) => entry.seconds));
      const rate = rows / seconds;
      const megabytes = median(measured.map((entry) => entry.bytes)) / 1e6;
      const growth = Math.max(...measured.map((entry) => entry.peakGrowthMb));
      lines.push(
        `| ${dialect} | ${format} | ${Math.round(rate).toLocaleString("en-US")} | ${(megabytes / seconds).toFixed(0)} | ${seconds.toFixed(2)} | ${growth.toFixed(1)} MB | ${baselineRate ? (rate / baselineRate).toFixed(2) : "-"} |`,
      );
    }
    if (baselineRate) {
      const seconds = median(baseline!);
      lines.push(
        `| sqlite | sqlite3 .mode csv (to /dev/null) | ${Math.round(baselineRate).toLocaleString("en-US")} | - | ${seconds.toFixed(2)} | - | 1.00 |`,
      );
    }
  } finally {
    await server.stop();
    await stopCluster();
  }
}

const table = `${lines.join("\n")}\n`;
console.log(`\n${table}`);
mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
const out = join(ROOT, "bench", "results", `export-speed-${values.dialect}-${rows}.md`);
writeFileSync(out, table);
console.log(`written to ${out}`);
