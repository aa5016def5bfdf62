/**
 * Counts latency: p50 and p99 of `GET /v0/dnc-complaints/counts` per `by` (and the spam list),
 * computed by the store as the route asks it, uncached (no answer cache), on one connection, over
 * random created ranges with times, next to a one-record list page in the same run as a baseline.
 * Data: `rows` complaints over `days` days (2M over 36 days is the density of 20 million a year),
 * generated and imported once into bench/cache.
 * Usage: npm run bench:counts -- [--rows N] [--days D] [--runs R] [--dialect sqlite|postgres]
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { parseComplaintCountQuery } from "../src/domain/complaint-count-query.js";
import { parseComplaintQuery } from "../src/domain/complaint-query.js";
import { formatDateTime } from "../src/domain/time.js";
import { ComplaintStore } from "../src/store/complaint-store.js";
import { migrate } from "../src/store/migrate.js";
import { openDatabase } from "../src/store/open-database.js";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { cli, generatedComplaints, ROOT } from "./support/processes.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "2000000" },
    days: { type: "string", default: "36" },
    runs: { type: "string", default: "200" },
    dialect: { type: "string", default: "sqlite" },
  },
});
const rows = Number(values.rows);
const days = Number(values.days);
const runs = Number(values.runs);
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });
const csv = generatedComplaints(rows, days, 1);
/** The generated complaints end here (exclusive), as `generatedComplaints` makes them. */
const END_SECONDS = Date.UTC(2026, 0, 1) / 1000;
const START_SECONDS = END_SECONDS - days * 86400;

let location: string;
let needsImport: boolean;
let stopCluster = () => {};
if (dialect === "postgres") {
  const cluster = await startThrowawayCluster(join(cache, "postgres"));
  stopCluster = cluster.stop;
  const name = `dnc_counts_${rows}_${days}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  needsImport = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 0;
  if (needsImport) await admin.query(`create database ${name}`);
  await admin.end();
  location = cluster.url.replace(/\/postgres$/, `/${name}`);
} else {
  location = join(cache, `dnc-${rows}-days${days}-counts.db`);
  needsImport = !existsSync(location);
}
if (needsImport) {
  console.log(`importing ${rows} complaints into ${dialect}...`);
  const started = performance.now();
  cli(["import", "dnc", "--quiet", "--db", location, csv]);
  console.log(`imported in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const database = openDatabase(location);
await migrate(database);
const store = new ComplaintStore(database);
const random = seededRandom(7);

/** A random created range inside the data, with times, of 1 to `days` days. */
function range(): string {
  const span = Math.floor((0.1 + random() * 0.9) * days * 86400);
  const from = START_SECONDS + Math.floor(random() * (days * 86400 - span));
  const text = (seconds: number) => `%22${formatDateTime(seconds).replace(" ", "%20")}%22`;
  return `created_date_from=${text(from)}&created_date_to=${text(from + span)}`;
}
const everything = `created_date_from=${formatDateTime(START_SECONDS).slice(0, 10)}&created_date_to=${formatDateTime(END_SECONDS - 1).slice(0, 10)}`;

interface Shape {
  name: string;
  target: string;
  query(): string;
  runs: number;
}
const shapes: Shape[] = [
  { name: "by=created_date", target: "10 ms", query: () => `by=created_date&${range()}`, runs },
  { name: "by=state", target: "10 ms", query: () => `by=state&${range()}`, runs },
  { name: "by=is_robocall", target: "10 ms", query: () => `by=is_robocall&${range()}`, runs },
  { name: "by=area_code", target: "50 ms", query: () => `by=area_code&${range()}`, runs },
  { name: "by=city", target: "50 ms", query: () => `by=city&${range()}`, runs },
  { name: "by=subject", target: "50 ms", query: () => `by=subject&${range()}`, runs },
  { name: "by=violation_date (no filter)", target: "", query: () => "by=violation_date", runs },
  {
    name: "spam list: by=company_phone_number&min_count=3, every day",
    target: "500 ms",
    query: () => `by=company_phone_number&min_count=3&${everything}`,
    runs: Math.max(5, Math.floor(runs / 10)),
  },
  {
    name: "spam list over a random range with times",
    target: "500 ms",
    query: () => `by=company_phone_number&min_count=3&${range()}`,
    runs: Math.max(5, Math.floor(runs / 10)),
  },
  {
    name: "by=created_date&state=California (count tables)",
    target: "",
    query: () => `by=created_date&state=California&${range()}`,
    runs,
  },
  {
    name: "by=state&is_robocall=true (rows grouped in SQL)",
    target: "",
    query: () => `by=state&is_robocall=true&${range()}`,
    runs: Math.max(5, Math.floor(runs / 20)),
  },
  {
    name: "by=state,is_robocall (rows grouped in SQL)",
    target: "",
    query: () => `by=state,is_robocall&${range()}`,
    runs: Math.max(5, Math.floor(runs / 20)),
  },
];

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

async function measure(runsOf: number, once: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  await once();
  const times: number[] = [];
  for (let index = 0; index < runsOf; index++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const pairs = (text: string) => [...new URLSearchParams(text)] as Array<[string, string]>;
const lines: string[] = [];
const baseline = await measure(runs, () =>
  store.list(parseComplaintQuery(pairs(`items_per_page=1&${range()}`))),
);
lines.push(
  `| one-record list page over a random range (baseline) | ${baseline.p50.toFixed(2)} | ${baseline.p99.toFixed(2)} | | |`,
);
console.log(lines.at(-1));
for (const shape of shapes) {
  const result = await measure(shape.runs, () =>
    store.countGroups(parseComplaintCountQuery(pairs(shape.query()))),
  );
  lines.push(
    `| ${shape.name} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${(result.p99 / baseline.p99).toFixed(1)} | ${shape.target} |`,
  );
  console.log(lines.at(-1));
}
await database.close();
stopCluster();

const report = `# Counts latency, ${dialect}, ${rows} complaints over ${days} days

\`npm run bench:counts -- --rows ${rows} --days ${days} --runs ${runs} --dialect ${dialect}\`, ${new Date().toISOString().slice(0, 16)} UTC,
Node ${process.version}, a 2-core machine shared with other work. Each shape is computed by the store
as the route asks it (no answer cache), one request at a time on one connection, over random created
ranges with times (0.1 to 1 of the data's span) unless named; ${runs} runs a shape (fewer where noted
by the shape's cost). p99/baseline is the ratio to the baseline's p99.

| shape | p50 ms | p99 ms | p99 / baseline | issue 14's p99 target |
|---|---|---|---|---|
${lines.join("\n")}
`;
const out = join(ROOT, "bench", "results", `count-latency-${dialect}-${rows}-days${days}.md`);
writeFileSync(out, report);
console.log(`written to ${out}`);
