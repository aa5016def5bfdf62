/**
 * Query costs at scale: for each documented filter combination of /v0/dnc-complaints, the time of
 * the exact total plus a page at offset 0, in the middle and near the end, through ftcapi's store,
 * next to the same answers computed naively (COUNT(*) and OFFSET) on the same database in the same
 * run. Usage: npm run bench:queries -- [--rows N] [--runs R]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseComplaintQuery } from "../src/domain/complaint-query.js";
import { ComplaintStore } from "../src/store/complaint-store.js";
import { openDatabase } from "../src/store/database.js";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, runs: { type: "string", default: "15" } },
});
const rows = Number(values.rows);
const runs = Number(values.runs);
const root = fileURLToPath(new URL("..", import.meta.url));
const cache = join(root, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = join(cache, `dnc-${rows}-days365-seed1-end2026-01-01.csv`);
const dbFile = join(cache, `dnc-${rows}.db`);

function cli(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/ftcapi.ts", ...args], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0) throw new Error(`ftcapi ${args.join(" ")} failed`);
  return (performance.now() - started) / 1000;
}

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
    "1",
    "--end",
    "2026-01-01",
    "--out",
    csv,
  ]);
}
let importSeconds: number | undefined;
if (!existsSync(dbFile)) {
  console.log("importing...");
  importSeconds = cli(["import", "dnc", "--quiet", "--db", dbFile, csv]);
}

const database = openDatabase(dbFile);
if (database.dialect !== "sqlite") throw new Error("this benchmark reads SQLite");
const sqlite = database.sqlite;
const store = new ComplaintStore(database);

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
  "area_code=213",
  "area_code=213&created_date_from=2025-03-01&created_date_to=2025-09-30",
  "is_robocall=true",
  "is_robocall=false&created_date_from=2025-03-01 08:30:00&created_date_to=2025-09-30 17:45:10",
  "violation_date=2025-06-15",
  "violation_date_from=2025-03-01&violation_date_to=2025-09-30",
  "company_phone_number=2135550123",
];

/** The same answer computed the obvious way: COUNT(*) and LIMIT/OFFSET on the matching rows. */
function naive(query: ReturnType<typeof parseComplaintQuery>, offset: number): void {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (query.created)
    where.push("created_at between ? and ?") && params.push(query.created.from, query.created.to);
  if (query.violation)
    where.push("violation_at between ? and ?") && params.push(query.violation.from, query.violation.to);
  for (const [column, value] of [
    ["state_key", query.state],
    ["city_key", query.city],
    ["area_code", query.areaCode],
    ["robocall", query.robocall],
    ["phone", query.phone],
  ] as const) {
    if (value !== undefined) where.push(`${column} = ?`) && params.push(value);
  }
  const clause = where.length ? `where ${where.join(" and ")}` : "";
  sqlite.prepare(`select count(*) from complaints ${clause}`).get(...params);
  sqlite
    .prepare(`select * from complaints ${clause} order by created_at desc, id desc limit 50 offset ?`)
    .all(...params, offset);
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const lines = [
  `# Query costs at ${rows.toLocaleString("en-US")} complaints`,
  "",
  `${new Date().toISOString()}, SQLite, ${runs} runs each, median milliseconds for the exact total plus one 50-row page.`,
  importSeconds !== undefined
    ? `Import: ${importSeconds.toFixed(1)} s (${Math.round(rows / importSeconds).toLocaleString("en-US")} rows/s).`
    : "",
  "",
  "| filter | matches | offset 0 | middle | near end | naive offset 0 | naive near end |",
  "|---|---:|---:|---:|---:|---:|---:|",
];
for (const combination of combinations) {
  const query = parseComplaintQuery([...new URLSearchParams(combination)]);
  const total = (await store.list(query)).total;
  const offsets = [0, Math.floor(total / 2), Math.max(0, total - 50)];
  const timings: number[] = [];
  for (const offset of offsets) {
    const samples: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      await store.list({ ...query, offset });
      samples.push(performance.now() - started);
    }
    timings.push(median(samples));
  }
  const naiveTimings = [0, Math.max(0, total - 50)].map((offset) => {
    const samples: number[] = [];
    for (let run = 0; run < Math.min(runs, 5); run++) {
      const started = performance.now();
      naive(query, offset);
      samples.push(performance.now() - started);
    }
    return median(samples);
  });
  const cells = [...timings, ...naiveTimings].map((ms) => ms.toFixed(2));
  lines.push(`| \`${combination || "(none)"}\` | ${total.toLocaleString("en-US")} | ${cells.join(" | ")} |`);
  console.log(lines[lines.length - 1]);
}
await database.close();

const report = lines.join("\n");
const resultsDirectory = join(root, "bench", "results");
mkdirSync(resultsDirectory, { recursive: true });
const file = join(resultsDirectory, `query-costs-${rows}.md`);
writeFileSync(file, `${report}\n`);
console.log(`\n${report}\n\nwritten to ${file}`);
