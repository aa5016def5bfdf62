/**
 * Memory under hostile load (issue 16, item 9; issue 13, item 5): one `serve` process takes 20,000
 * distinct requests over both collections (every answer computed, more than any cache holds) and
 * 3,000 more with 12 KB values, cycled by wrk for `--seconds`, while its resident memory is
 * sampled. Reports the peak (VmHWM), the resident memory over time and after the load, so that
 * growth across a long run shows.
 *
 * Usage: npm run bench:memory -- --db FILE [--seconds 60] [--connections 50] [--read-threads 2]
 * (FILE: a SQLite database with complaints and notices, e.g. bench/cache/dnc-200000-days4.db.)
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cli, ROOT, serve, wrk } from "./support/processes.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    seconds: { type: "string", default: "60" },
    connections: { type: "string", default: "50" },
    "read-threads": { type: "string", default: "2" },
  },
});
if (!values.db) throw new Error("--db FILE is required (a SQLite database with complaints and notices)");
const seconds = Number(values.seconds);
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });

const key = cli(["keys", "create", "--db", values.db, "--email", "memory@example.com", "--unlimited"])
  .trim()
  .split("\n")
  .at(-1)!;
const headers = { "X-Api-Key": key, "X-Forwarded-Proto": "https" };
const server = await serve(["--db", values.db, "--read-threads", values["read-threads"], "--trust-proxy"]);
const pid = server.child.pid!;

async function json(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.httpUrl}${path}`, { headers });
  return (await res.json()) as Record<string, unknown>;
}

// Values drawn from the data: the newest complaint's day, states and area codes, title words.
const newest = ((await json("/v0/dnc-complaints?items_per_page=50")).data ?? []) as Array<{
  attributes: Record<string, string>;
}>;
const lastDay = Date.parse(`${newest[0]!.attributes["created-date"]!.slice(0, 10)}T00:00:00Z`);
const states = [...new Set(newest.map((record) => record.attributes["consumer-state"]!).filter(Boolean))];
const areaCodes = [
  ...new Set(newest.map((record) => record.attributes["consumer-area-code"]!).filter(Boolean)),
];
const notices = ((await json("/v0/hsr-early-termination-notices?page[limit]=50")).data ?? []) as Array<{
  attributes: Record<string, string>;
}>;
const words = [
  ...new Set(
    notices.flatMap((notice) => String(notice.attributes.title).split(/\W+/)).filter((w) => w.length >= 3),
  ),
];

const random = seededRandom(9);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const day = (back: number) => new Date(lastDay - back * 86_400_000).toISOString().slice(0, 10);
const digits = (count: number) => Array.from({ length: count }, () => Math.floor(random() * 10)).join("");
const letters = (count: number) =>
  Array.from({ length: count }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join("");

const shapes: Array<() => string> = [
  () =>
    `/v0/dnc-complaints?created_date=${day(Math.floor(random() * 4))}&offset=${Math.floor(random() * 1000) * 10}`,
  () =>
    `/v0/dnc-complaints?state=${encodeURIComponent(pick(states))}&offset=${Math.floor(random() * 2000) * 5}`,
  () => `/v0/dnc-complaints?area_code=${pick(areaCodes)}&offset=${Math.floor(random() * 300) * 3}`,
  () => `/v0/dnc-complaints?company_phone_number=${digits(10)}`,
  () =>
    `/v0/dnc-complaints?violation_date=${day(Math.floor(random() * 30))}&offset=${Math.floor(random() * 100) * 7}`,
  () => `/v0/dnc-complaints/counts?by=area_code&created_date_from=${day(Math.floor(random() * 4))}`,
  () => `/v0/dnc-complaints/${digits(32).replace(/\d/g, (d) => "0123456789abcdef"[Number(d)]!)}`,
  () =>
    `/v0/hsr-early-termination-notices?filter[title][value]=${pick(words)}&filter[title][operator]=CONTAINS&page[offset]=${Math.floor(random() * 40) * 5}`,
  () => `/v0/hsr-early-termination-notices?sort=-date&page[offset]=${Math.floor(random() * 5000) * 5}`,
  () =>
    `/v0/hsr-early-termination-notices?filter[t][condition][path]=title&filter[t][condition][operator]=STARTS_WITH&filter[t][condition][value]=${letters(2)}&page[offset]=${Math.floor(random() * 20)}`,
];
const distinct = new Set<string>();
while (distinct.size < 20_000) distinct.add(pick(shapes)());
const large: string[] = [];
for (let index = 0; index < 3000; index++)
  large.push(
    index % 2 === 0
      ? `/v0/dnc-complaints?city=${letters(12 * 1024)}`
      : `/v0/hsr-early-termination-notices?filter[title][value]=${letters(12 * 1024)}&filter[title][operator]=CONTAINS`,
  );
const paths = [...distinct, ...large];

const list = join(cache, "memory-load.paths");
writeFileSync(list, `${paths.join("\n")}\n`);
const script = join(cache, "memory-load.lua");
writeFileSync(
  script,
  `local requests = {}
local counter = 0
function init(args)
  for path in io.lines("${list}") do requests[#requests + 1] = path end
  counter = math.random(#requests)
end
function request()
  counter = counter % #requests + 1
  return wrk.format("GET", requests[counter])
end
`,
);

function memory(): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

const before = memory();
const timeline: Array<{ second: number; rssMb: number }> = [];
const started = Date.now();
// wrk blocks this process while it runs, so a small child process samples the server's memory, into
// a file: a pipe that nobody reads while wrk runs fills after a few minutes of samples and stops it.
const samplesFile = `${script}.samples`;
writeFileSync(samplesFile, "");
const sampling = spawn(
  process.execPath,
  [
    "-e",
    `const fs=require("fs");setInterval(()=>{try{const s=fs.readFileSync("/proc/${pid}/status","utf8");fs.appendFileSync(${JSON.stringify(samplesFile)},Date.now()+" "+/VmRSS:\\s+(\\d+)/.exec(s)[1]+"\\n")}catch{}},1000)`,
  ],
  { stdio: "ignore" },
);
const result = wrk(`${server.httpUrl}/`, {
  connections: Number(values.connections),
  seconds,
  headers,
  script,
});
sampling.kill();
const loaded = memory();
await new Promise((resolve) => setTimeout(resolve, 10_000));
const rested = memory();
await server.stop();

for (const line of readFileSync(samplesFile, "utf8").trim().split("\n")) {
  const [at, kb] = line.split(" ").map(Number);
  if (at && kb) timeline.push({ second: Math.round((at - started) / 1000), rssMb: kb / 1024 });
}
timeline.sort((left, right) => left.second - right.second);
const tenths = Array.from({ length: 10 }, (_, tenth) => {
  const from = (seconds * tenth) / 10;
  const window = timeline.filter((sample) => sample.second >= from && sample.second < from + seconds / 10);
  return window.length === 0 ? "-" : Math.max(...window.map((sample) => sample.rssMb)).toFixed(0);
});
const report = [
  `# Memory under hostile load (--read-threads ${values["read-threads"]})`,
  "",
  `${new Date().toISOString()}; ${values.db}; wrk ${values.connections} connections for ${seconds} s, cycling ${distinct.size.toLocaleString("en-US")} distinct requests over both collections and ${large.length.toLocaleString("en-US")} with 12 KB values (${result.requestsPerSecond.toFixed(0)} answered a second, ${result.non2xx} non-2xx).`,
  "",
  "| resident memory | MB |",
  "|---|---:|",
  `| at start (notices in memory) | ${before.rssMb.toFixed(0)} |`,
  `| peak (VmHWM) | ${loaded.peakMb.toFixed(0)} |`,
  `| at the end of the load | ${loaded.rssMb.toFixed(0)} |`,
  `| 10 s after | ${rested.rssMb.toFixed(0)} |`,
  "",
  `Highest resident memory in each tenth of the run (MB): ${tenths.join(", ")}.`,
].join("\n");
console.log(report);
const results = join(ROOT, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  join(results, `memory-load-sqlite-threads${values["read-threads"]}-${seconds}s.md`),
  `${report}\n`,
);
