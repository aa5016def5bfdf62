/**
 * Query costs at scale: for each documented filter combination of /v0/dnc-complaints, the time of
 * the exact total plus a page at offset 0, in the middle and near the end, through ftcapi's store,
 * next to the same answers computed naively (COUNT(*) and OFFSET) on the same database in the same
 * run. Usage: npm run bench:queries -- [--rows N] [--runs R] [--dialect sqlite|postgres]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { type ComplaintQuery, parseComplaintQuery } from "../src/domain/complaint-query.js";
import { ComplaintStore } from "../src/store/complaint-store.js";
import { openDatabase } from "../src/store/open-database.js";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { generatedComplaints, median, ROOT } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    runs: { type: "string", default: "15" },
    dialect: { type: "string", default: "sqlite" },
  },
});
const rows = Number(values.rows);
const runs = Number(values.runs);
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = generatedComplaints(rows, 365, 1);

function cli(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/ftcapi.ts", ...args], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (result.status !== 0) throw new Error(`ftcapi ${args.join(" ")} failed`);
  return (performance.now() - started) / 1000;
}

let location: string;
let needsImport: boolean;
let stopCluster = () => {};
if (dialect === "postgres") {
  const cluster = await startThrowawayCluster(join(cache, "postgres"));
  stopCluster = cluster.stop;
  const name = `dnc_${rows}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  needsImport = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 0;
  if (needsImport) await admin.query(`create database ${name}`);
  await admin.end();
  location = cluster.url.replace(/\/postgres$/, `/${name}`);
} else {
  location = join(cache, `dnc-${rows}.db`);
  needsImport = !existsSync(location);
}
let importSeconds: number | undefined;
if (needsImport) {
  console.log(`importing into ${dialect}...`);
  importSeconds = cli(["import", "dnc", "--quiet", "--db", location, csv]);
}

const database = openDatabase(location);
const store = new ComplaintStore(database);

/** The same answer computed the obvious way: COUNT(*) and LIMIT/OFFSET over the matching rows. */
async function naive(query: ComplaintQuery, offset: number): Promise<void> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  const add = (condition: string, ...values: Array<string | number>) => {
    where.push(
      condition.replace(/\?/g, () => {
        const position = params.push(values.shift()!);
        return dialect === "postgres" ? `$${position}` : "?";
      }),
    );
  };
  if (query.created) add("created_at between ? and ?", query.created.from, query.created.to);
  if (query.violation) add("violation_at between ? and ?", query.violation.from, query.violation.to);
  if (query.state !== undefined) add("state_key = ?", query.state);
  if (query.city !== undefined) add("city_key = ?", query.city);
  if (query.areaCode !== undefined) add("area_code = ?", query.areaCode);
  if (query.robocall !== undefined) add("robocall = ?", query.robocall);
  if (query.phone !== undefined) add("phone = ?", query.phone);
  const clause = where.length ? `where ${where.join(" and ")}` : "";
  const count = `select count(*) from complaints ${clause}`;
  const page = `select * from complaints ${clause} order by created_at desc, id desc limit 50 offset ${offset}`;
  if (database.dialect === "sqlite") {
    database.sqlite.prepare(count).get(...params);
    database.sqlite.prepare(page).all(...params);
  } else {
    await database.pool.query(count, params);
    await database.pool.query(page, params);
  }
}

const combinations = [
  "",
  "created_date=2025-06-15",
  "created_date_from=2025-03-01&created_date_to=2025-09-30",
  'created_date_from="2025-03-01 08:30:00"&created_date_to="2025-09-30 17:45:10"',
  "state=California",
  "state=Wyoming",
  "state=California&created_date_from=2025-03-01 08:30:00&created_date_to=2025-09-30 17:45:10",
  "state=California&city=Los Angeles",
  "state=Texas&city=Houston&created_date_from=2025-01-01&created_date_to=2025-12-31",
  "city=Houston",
  "city=Springfield&created_date_from=2025-03-01&created_date_to=2025-09-30",
  "area_code=213",
  "area_code=213&created_date_from=2025-03-01&created_date_to=2025-09-30",
  "is_robocall=true",
  "is_robocall=false&created_date_from=2025-03-01 08:30:00&created_date_to=2025-09-30 17:45:10",
  "violation_date=2025-06-15",
  "violation_date_from=2025-03-01&violation_date_to=2025-09-30",
  "company_phone_number=2135550123",
];

/** Bytes on disk of the complaints (table and indexes) and of the daily counts: capacity planning. */
async function storageFootprint(): Promise<string[]> {
  const sizes: Array<[string, number]> = [];
  if (database.dialect === "sqlite") {
    const page = database.sqlite
      .prepare("select name, sum(pgsize) as bytes from dbstat group by name")
      .all() as Array<{
      name: string;
      bytes: number;
    }>;
    const bytesOf = (test: (name: string) => boolean) =>
      page.filter((row) => test(row.name)).reduce((sum, row) => sum + row.bytes, 0);
    sizes.push(["complaints table", bytesOf((name) => name === "complaints")]);
    sizes.push([
      "complaints indexes",
      bytesOf((name) => name.startsWith("complaints_") && name !== "complaints"),
    ]);
    sizes.push(["complaint_counts", bytesOf((name) => name.startsWith("complaint_counts"))]);
  } else {
    const { rows: result } = await database.pool.query<{ table: string; indexes: string; counts: string }>(
      `select pg_table_size('complaints') as table, pg_indexes_size('complaints') as indexes,
              pg_total_relation_size('complaint_counts') as counts`,
    );
    const row = result[0]!;
    sizes.push(["complaints table", Number(row.table)]);
    sizes.push(["complaints indexes", Number(row.indexes)]);
    sizes.push(["complaint_counts", Number(row.counts)]);
  }
  const total = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
  return [
    "",
    "| storage | MB | bytes per complaint |",
    "|---|---:|---:|",
    ...[...sizes, ["total", total] as [string, number]].map(
      ([name, bytes]) => `| ${name} | ${(bytes / 1e6).toFixed(1)} | ${(bytes / rows).toFixed(0)} |`,
    ),
  ];
}

const lines = [
  `# Query costs at ${rows.toLocaleString("en-US")} complaints (${dialect})`,
  "",
  `${new Date().toISOString()}, ${runs} runs each, median milliseconds for the exact total plus one 50-row page, through ftcapi's store; "naive" is COUNT(*) plus LIMIT/OFFSET on the same database.`,
  importSeconds !== undefined
    ? `Import through \`ftcapi import dnc\`: ${importSeconds.toFixed(1)} s (${Math.round(rows / importSeconds).toLocaleString("en-US")} rows/s).`
    : "",
  "",
  "| filter | matches | offset 0 | middle | near end | naive offset 0 | naive near end |",
  "|---|---:|---:|---:|---:|---:|---:|",
];
for (const combination of combinations) {
  const query = parseComplaintQuery([...new URLSearchParams(combination)]);
  const total = (await store.list(query)).total;
  const timings: number[] = [];
  for (const offset of [0, Math.floor(total / 2), Math.max(0, total - 50)]) {
    const samples: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await store.list({ ...query, offset });
      samples.push(performance.now() - started);
    }
    timings.push(median(samples));
  }
  for (const offset of [0, Math.max(0, total - 50)]) {
    const samples: number[] = [];
    for (let run = 0; run < Math.min(runs, 5); run++) {
      const started = performance.now();
      await naive(query, offset);
      samples.push(performance.now() - started);
    }
    timings.push(median(samples));
  }
  lines.push(
    `| \`${combination || "(none)"}\` | ${total.toLocaleString("en-US")} | ${timings.map((ms) => ms.toFixed(2)).join(" | ")} |`,
  );
  console.log(lines.at(-1));
}
lines.push(...(await storageFootprint()));
await database.close();
stopCluster();

const report = lines.join("\n");
const resultsDirectory = join(ROOT, "bench", "results");
mkdirSync(resultsDirectory, { recursive: true });
const file = join(resultsDirectory, `query-costs-${dialect}-${rows}.md`);
writeFileSync(file, `${report}\n`);
console.log(`\n${report}\n\nwritten to ${file}`);
