/**
 * Violation ranges asked right after an import (docs/performance.md): 24 ranges of 14 to 300
 * violation days ending a month or more before `--end` (plain, with a state, the robocall flag, a
 * subject or a created range), each asked once over HTTP on one connection, then `FILE` is
 * imported into the server's database by the CLI of `--dist` (the server's own build), and once
 * the server answers for the new version the same ranges are asked again, and once more. Prints
 * the sum, median and maximum of each pass. Serve the database with `--trust-proxy` and give its
 * plain base URL; each run needs a file not imported before (a day's extract).
 *
 * Usage: npx tsx bench/after-import.ts --url URL --key KEY --db FILE --file CSV [--dist DIR] [--end YYYY-MM-DD]
 */
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string" },
    db: { type: "string" },
    file: { type: "string" },
    dist: { type: "string", default: "." },
    end: { type: "string", default: "2026-10-31" },
  },
});
const { url, key, db, file } = values;
if (!url || !key || !db || !file) throw new Error("--url, --key, --db and --file are required");
const DAY_MS = 86_400_000;
const endDay = Date.parse(`${values.end}T00:00:00Z`) / DAY_MS;
const day = (days: number) => new Date(days * DAY_MS).toISOString().slice(0, 10);
const random = seededRandom(5);
const queries: string[] = [];
for (let index = 0; index < 24; index++) {
  const length = [14, 30, 60, 120, 200, 300][index % 6]!;
  const last = endDay - 30 - Math.floor(random() * (330 - length));
  const created = `&created_date_from=${day(last - 5)}&created_date_to=${day(last + 60)}`;
  const extra = ["", "&state=Texas", "&is_robocall=true", "&subject=Other", created, ""][
    Math.floor(index / 4)
  ];
  const offset = Math.floor(random() * 20) * 50;
  queries.push(
    `violation_date_from=${day(last - length + 1)}&violation_date_to=${day(last)}${extra}&offset=${offset}`,
  );
}

async function get(query: string): Promise<{ ms: number; total: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/v0/dnc-complaints?${query}`, {
    headers: { "X-Api-Key": key!, "X-Forwarded-Proto": "https" },
  });
  const body = (await res.json()) as { meta?: { "record-total": number } };
  if (res.status !== 200) throw new Error(`${res.status} for ${query}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, total: body.meta!["record-total"] };
}

async function pass(name: string): Promise<void> {
  const times: number[] = [];
  for (const query of queries) times.push((await get(query)).ms);
  const sorted = [...times].sort((a, b) => a - b);
  const sum = times.reduce((total, ms) => total + ms, 0);
  console.log(
    `${name}: all ${sum.toFixed(0)} ms, median ${sorted[sorted.length >> 1]!.toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)}`,
  );
}

await pass("before the import");
const before = (await get("items_per_page=1")).total;
const started = performance.now();
execFileSync("node", [`${values.dist}/dist/cli/ftcapi.js`, "import", "dnc", "--db", db, "--quiet", file], {
  stdio: "inherit",
});
console.log(`import: ${(performance.now() - started).toFixed(0)} ms`);
while ((await get("items_per_page=1")).total === before)
  await new Promise((resolve) => setTimeout(resolve, 100));
await pass("right after the import");
await pass("again (answers kept)");
