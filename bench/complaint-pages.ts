/**
 * In-process cost of an uncached complaint page (issue 13): parse, store (total and rows) and the
 * answer's text, for distinct requests drawn as the load benchmark's complaint shapes draw them
 * (random filters, offsets spread up to each total), on an existing database. No HTTP and no
 * gateway: this isolates what the read path itself costs, in microseconds of this process per
 * page, which the machine's other load moves far less than requests a second do.
 *
 * Usage: tsx bench/complaint-pages.ts --db FILE_OR_URL [--requests 4000] [--runs 5]
 */
import { parseArgs } from "node:util";
import { complaintPageText } from "../src/domain/complaint-envelope.js";
import { parseComplaintQuery } from "../src/domain/complaint-query.js";
import { ComplaintStore } from "../src/store/complaint-store.js";
import { openDatabase } from "../src/store/open-database.js";
import { median } from "./support/processes.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    requests: { type: "string", default: "4000" },
    runs: { type: "string", default: "5" },
  },
});
if (!values.db) throw new Error("--db FILE_OR_URL is required");
const database = openDatabase(values.db, { statementTimeoutMs: 2000 });
if (process.env.MMAP && database.dialect === "sqlite")
  database.sqlite.pragma(`mmap_size = ${process.env.MMAP}`);
const store = new ComplaintStore(database);
const random = seededRandom(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const column = async (name: string) =>
  (
    await database.db
      .selectFrom("complaints")
      .select(name as "state")
      .distinct()
      .limit(200)
      .execute()
  ).map((row) => String((row as Record<string, unknown>)[name]));
const states = (await column("state")).filter((state) => state !== "");
const areaCodes = (await column("area_code")).filter((code) => code !== "");
const phones = (await column("phone")).filter((phone) => phone !== "");
const newest = (await store.newestCreatedAt()) ?? 0;
const oldest =
  (
    await database.db
      .selectFrom("complaints")
      .select("created_at")
      .orderBy("created_at", "asc")
      .limit(1)
      .executeTakeFirst()
  )?.created_at ?? 0;
const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const randomDay = () => day(oldest + random() * (newest - oldest));

type Pairs = Array<[string, string]>;
const SHAPES: Array<() => Pairs> = [
  () => [],
  () => [["created_date", randomDay()]],
  () => {
    const [a, b] = [randomDay(), randomDay()].sort();
    return [
      ["created_date_from", a!],
      ["created_date_to", b!],
    ];
  },
  () => [["state", pick(states)]],
  () => [
    ["state", pick(states)],
    ["created_date", randomDay()],
  ],
  () => [["area_code", pick(areaCodes)]],
  () => [["is_robocall", random() < 0.5 ? "true" : "false"]],
  () => [["violation_date", randomDay()]],
  () => [["company_phone_number", pick(phones)]],
];

/** Distinct requests: each shape with an offset drawn up to its total. */
async function requests(count: number): Promise<Pairs[]> {
  const result: Pairs[] = [];
  while (result.length < count) {
    const filters = pick(SHAPES)();
    const total = await store.total(parseComplaintQuery(filters));
    const offset = Math.floor(random() * Math.max(0, total - 1));
    result.push([...filters, ["offset", String(offset)]]);
  }
  return result;
}

const count = Number(values.requests);
const perPage: number[] = [];
for (let run = 0; run < Number(values.runs); run++) {
  const batch = await requests(count);
  const started = process.cpuUsage();
  let bytes = 0;
  for (const pairs of batch) {
    const query = parseComplaintQuery(pairs);
    const page = await store.list(query);
    bytes += complaintPageText(
      page.rows,
      page.total,
      "https://localhost:8443/v0/dnc-complaints",
      "https://localhost:8443/x",
    ).length;
  }
  const used = process.cpuUsage(started);
  const microseconds = (used.user + used.system) / count;
  perPage.push(microseconds);
  process.stdout.write(
    `run ${run + 1}: ${microseconds.toFixed(0)} µs of processor time a page (${(bytes / count).toFixed(0)} bytes)\n`,
  );
}
process.stdout.write(
  `median: ${median(perPage).toFixed(0)} µs a page over ${values.runs} runs of ${count}\n`,
);
await database.close();
