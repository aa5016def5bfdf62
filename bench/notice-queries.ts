/**
 * Notice query costs: the demo notices (28,000, the size of the real collection) loaded into a
 * fresh database, then each kind of request of /v0/hsr-early-termination-notices (total plus one
 * 50-notice page) through ftcapi's parser and store, as medians and as ratios against the default
 * first page measured in the same run: once as a first request of its filter (a new store, so the
 * total is counted) and once repeated (the store keeps the total while the notices are unchanged). Usage: npm run bench:notices -- [--runs R] [--dialect sqlite|postgres]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { parseNoticeQuery } from "../src/domain/notice-query.js";
import { DEMO_NOTICES, loadDemoNotices } from "../src/ingest/demo-data.js";
import { migrate } from "../src/store/migrate.js";
import { NoticeStore } from "../src/store/notice-store.js";
import { openDatabase } from "../src/store/open-database.js";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { median, ROOT } from "./support/processes.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    dialect: { type: "string", default: "sqlite" },
  },
});
const runs = Number(values.runs);
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";

let location = join(mkdtempSync(join(tmpdir(), "ftcapi-bench-")), "notices.db");
let stopCluster = () => {};
if (dialect === "postgres") {
  const cluster = await startThrowawayCluster();
  stopCluster = cluster.stop;
  location = cluster.url;
}
const database = openDatabase(location);
await migrate(database);
const loadStarted = performance.now();
await loadDemoNotices(database);
const loadSeconds = (performance.now() - loadStarted) / 1000;
const store = new NoticeStore(database);
await store.optimize();
// Warm the database's pages and the statement cache, so the first query is not charged for them.
for (let run = 0; run < 3; run++) await new NoticeStore(database).list(parseNoticeQuery([]));

const QUERIES = [
  "",
  "page[offset]=27950",
  "filter[title][operator]=CONTAINS&filter[title][value]=capital",
  "title=%22capital partners%22 fund",
  "filter[transaction-number]=20110718",
  "filter[d][condition][path]=date&filter[d][condition][operator]=BETWEEN&filter[d][condition][value][]=2010-01-01&filter[d][condition][value][]=2010-12-31",
  "filter[e][condition][path]=acquired-entities&filter[e][condition][operator]=ENDS_WITH&filter[e][condition][value]=llc",
  "filter[g][group][conjunction]=OR&filter[a][condition][path]=acquiring-party&filter[a][condition][operator]=STARTS_WITH&filter[a][condition][value]=carl&filter[a][condition][memberOf]=g&filter[e][condition][path]=acquired-entities&filter[e][condition][operator]=CONTAINS&filter[e][condition][value]=pipeline&filter[e][condition][memberOf]=g",
  "sort=date&page[offset]=14000",
  "sort=-acquired-party,title&page[offset]=27950",
  "filter[e][condition][path]=acquired-entities&filter[e][condition][operator]=CONTAINS&filter[e][condition][value]=llc&sort=title&page[offset]=4000",
];

const rowsOut: string[] = [];
let baseline = 0;
for (const text of QUERIES) {
  const query = parseNoticeQuery([...new URLSearchParams(text)]);
  const first: number[] = [];
  const repeated: number[] = [];
  let total = 0;
  for (let run = 0; run < runs; run++) {
    const fresh = new NoticeStore(database);
    let started = performance.now();
    total = (await fresh.list(query)).total;
    first.push(performance.now() - started);
    started = performance.now();
    await store.list(query);
    repeated.push(performance.now() - started);
  }
  const ms = median(first);
  const repeatedMs = median(repeated);
  if (text === "") baseline = ms;
  rowsOut.push(
    `| \`${text || "(none)"}\` | ${total.toLocaleString("en-US")} | ${ms.toFixed(2)} | ${(ms / baseline).toFixed(1)} | ${repeatedMs.toFixed(2)} | ${(repeatedMs / baseline).toFixed(1)} |`,
  );
  console.log(rowsOut.at(-1));
}
await database.close();
stopCluster();

const report = [
  `# Notice query costs at ${DEMO_NOTICES.rows.toLocaleString("en-US")} notices (${dialect})`,
  "",
  `${new Date().toISOString()}, ${runs} runs each, median milliseconds for the exact total plus one page through ftcapi's parser and store: as the first request of its filter (the total counted) and repeated (the total kept from the previous run); ratios are against the default first page (no parameters, first request) in the same run. Loading the demo notices took ${loadSeconds.toFixed(1)} s.`,
  "",
  "| request | matches | first ms | ratio | repeated ms | ratio |",
  "|---|---:|---:|---:|---:|---:|",
  ...rowsOut,
].join("\n");
const resultsDirectory = join(ROOT, "bench", "results");
mkdirSync(resultsDirectory, { recursive: true });
writeFileSync(join(resultsDirectory, `notice-queries-${dialect}.md`), `${report}\n`);
console.log(report);
