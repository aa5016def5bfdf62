/**
 * First requests of random filter combinations (issue 14, item 3), in process: each draws one
 * stored complaint and 2 to 4 of its filters (state, city in its state or in every state, area
 * code, robocall flag, company number, subject, a created and a violation date or range holding
 * the complaint's), then times `ComplaintStore.total` and `listRendered` at a random offset, as a
 * server's first request of those filters would run them after `warm` (no answer kept, no count
 * series of the combination yet). Reports p50, p90, p99 and the maximum, of the whole request and
 * of the page alone, and the slowest requests with their filters. No server and no threads: what
 * is measured is the store's plan and SQLite's or PostgreSQL's work, with the database file as
 * cached as the machine keeps it (read it first: `cat FILE > /dev/null`).
 *
 * With `--url` (a running server's plain base URL, such as http://127.0.0.1:8080, serving the
 * same database with `--trust-proxy`, started after the file was read) and `--key`, the same combinations are sent over
 * HTTP on one keep-alive connection instead: the first page of the combination (its total and
 * offset 0), then the page at the random offset, each timed from the request to the last byte of
 * the answer, through the server's gateway, threads and answer cache as they are configured.
 * `--warmup N` first sends N combinations of another seed, unmeasured (default 20 over HTTP, 0 in
 * process).
 * Usage: npx tsx bench/first-requests.ts --db FILE|postgres://... [--requests N] [--seed S] [--show K]
 *          [--url URL --key KEY] [--warmup N]
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseComplaintQuery } from "../src/domain/complaint-query.js";
import { formatDateTime, SECONDS_PER_DAY } from "../src/domain/time.js";
import { ComplaintStore } from "../src/store/complaint-store.js";
import { openDatabase } from "../src/store/open-database.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    requests: { type: "string", default: "600" },
    seed: { type: "string", default: "29" },
    show: { type: "string", default: "10" },
    url: { type: "string" },
    key: { type: "string" },
    warmup: { type: "string" },
  },
});
if (values.url !== undefined && values.key === undefined) throw new Error("--url needs --key");
if (values.db === undefined) throw new Error("--db is required");
const database = openDatabase(values.db);
const store = new ComplaintStore(database);
if (values.url === undefined) await store.warm();
let random = seededRandom(Number(values.seed));
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

const bounds = await database.db
  .selectFrom("complaints")
  .select((eb) => [eb.fn.min("created_at").as("first"), eb.fn.max("created_at").as("last")])
  .executeTakeFirstOrThrow();
const first = Number(bounds.first);
const last = Number(bounds.last);
const day = (seconds: number) => formatDateTime(seconds).slice(0, 10);

/** A date (three times in ten) or a range of dates holding `at`, its bounds drawn towards the data's ends. */
function around(name: string, at: number): Array<[string, string]> {
  if (random() < 0.3) return [[`${name}_date`, day(at)]];
  const from = Math.min(at, first) + random() * (at - Math.min(at, first));
  const to = at + random() * (Math.max(at, last) - at);
  return [
    [`${name}_date_from`, day(from)],
    [`${name}_date_to`, day(to)],
  ];
}

/** The column each text filter takes its value from: a complaint with none there is not filtered on it. */
const COLUMNS: Record<string, "state" | "city" | "area_code" | "phone" | "subject"> = {
  state: "state",
  city: "city",
  area_code: "area_code",
  company_phone_number: "phone",
  subject: "subject",
};
const kinds = [
  "state",
  "city",
  "area_code",
  "is_robocall",
  "company_phone_number",
  "subject",
  "created",
  "violation",
];
const results: Array<{
  ms: number;
  pageMs: number;
  total: number;
  pairs: Array<[string, string]>;
  index: number;
}> = [];
// Over HTTP, first some combinations of another seed, unmeasured: a server's very first requests
// also pay for compiling its code, which a server that has run for a while has done.
const warmup = Number(values.warmup ?? (values.url === undefined ? 0 : 20));
random = seededRandom(Number(values.seed) + 1_000_000);
for (let index = 0; index < warmup; index++) await drawAndTime();
random = seededRandom(Number(values.seed));
for (let index = 0; index < Number(values.requests); index++)
  results.push({ ...(await drawAndTime()), index });
await database.close();

/** Draws a stored complaint, 2 to 4 of its filters and an offset, and times their requests. */
async function drawAndTime() {
  const complaint = await database.db
    .selectFrom("complaints")
    .selectAll()
    .where("created_at", ">=", Math.floor(first + random() * (last - first)))
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirstOrThrow();
  const present = kinds.filter((kind) => (COLUMNS[kind] ? complaint[COLUMNS[kind]] !== "" : true));
  const chosen = new Set<string>();
  const count = 2 + Math.floor(random() * 3);
  while (chosen.size < count) {
    const kind = pick(present);
    // The company's number narrows a combination to a few complaints: drawn less often.
    if (kind === "company_phone_number" && random() < 0.7) continue;
    chosen.add(kind);
  }
  const pairs: Array<[string, string]> = [];
  for (const kind of chosen) {
    if (kind === "state") pairs.push(["state", complaint.state]);
    else if (kind === "city") {
      pairs.push(["city", complaint.city]);
      if (!chosen.has("state") && complaint.state !== "" && random() < 0.5)
        pairs.push(["state", complaint.state]);
    } else if (kind === "area_code") pairs.push(["area_code", complaint.area_code]);
    else if (kind === "is_robocall")
      pairs.push(["is_robocall", complaint.robocall === "Y" ? "true" : "false"]);
    else if (kind === "company_phone_number") pairs.push(["company_phone_number", complaint.phone]);
    else if (kind === "subject") pairs.push(["subject", complaint.subject]);
    else if (kind === "created") pairs.push(...around("created", complaint.created_at));
    else pairs.push(...around("violation", complaint.violation_day * SECONDS_PER_DAY));
  }
  const fraction = random();
  const offsetOf = (total: number) => Math.floor((fraction * Math.max(0, total - 50)) / 50) * 50;
  return values.url === undefined ? inProcess(pairs, offsetOf) : overHttp(pairs, offsetOf);
}

/** The combination's total and its page at the drawn offset, asked of the store as a route would. */
async function inProcess(pairs: Array<[string, string]>, offsetOf: (total: number) => number) {
  const started = performance.now();
  const total = await store.total(parseComplaintQuery(pairs));
  const pageStarted = performance.now();
  await store.listRendered(
    parseComplaintQuery([...pairs, ["offset", String(offsetOf(total))]]),
    "http://localhost/v0/dnc-complaints",
    "http://localhost/v0/dnc-complaints",
  );
  const ended = performance.now();
  return { ms: ended - started, pageMs: ended - pageStarted, total, pairs };
}

/** The combination's first page (its total) and its page at the drawn offset, asked of the server. */
async function overHttp(pairs: Array<[string, string]>, offsetOf: (total: number) => number) {
  const get = async (extra: Array<[string, string]>) => {
    const started = performance.now();
    const res = await fetch(`${values.url}/v0/dnc-complaints?${new URLSearchParams([...pairs, ...extra])}`, {
      // As a TLS-terminating proxy would say it: serve with --trust-proxy, on the plain port.
      headers: { "X-Api-Key": values.key!, "X-Forwarded-Proto": "https" },
    });
    const body = (await res.json()) as { meta?: { "record-total": number } };
    if (res.status !== 200)
      throw new Error(`${res.status} for ${new URLSearchParams(pairs)}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, total: body.meta!["record-total"] };
  };
  const first = await get([]);
  const page = await get([["offset", String(offsetOf(first.total))]]);
  return { ms: first.ms, pageMs: page.ms, total: first.total, pairs };
}

const summary = (name: string, times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
  console.log(
    `${name}: p50 ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)}, p99 ${at(0.99).toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)}; over 20 ms: ${sorted.filter((ms) => ms > 20).length} of ${sorted.length}`,
  );
};
summary(
  values.url === undefined ? "first request (total and page)" : "first request (offset 0: the total)",
  results.map((result) => result.ms),
);
summary(
  values.url === undefined ? "its page alone" : "then the page at the random offset",
  results.map((result) => result.pageMs),
);
for (const result of [...results].sort((a, b) => b.ms - a.ms).slice(0, Number(values.show)))
  console.log(
    `${result.ms.toFixed(1).padStart(7)} ms (page ${result.pageMs.toFixed(1)}), request ${result.index + 1}, ${result.total} matches: ${new URLSearchParams(result.pairs)}`,
  );
