/**
 * Cheap requests under hostile load (issue 16, item 4): 8 connections send the costliest requests
 * the API accepts (complaint filters no count table answers, scanning a wide violation range with
 * another filter at random offsets; notices with 64 CONTAINS conditions), all distinct so that no
 * answer comes from the cache, while one connection at a time measures `/health/live` and a cheap
 * complaint page. The same probes run first on an idle server, in the same run, as the baseline.
 *
 * Three hostile mixes run one after the other against the same server: complaints only, notices
 * only, and both alternating.
 *
 * Usage: npm run bench:hostile -- --db FILE [--seconds 10] [--workers 1] [--read-threads N] [--notices-on-loop]
 * (FILE: a SQLite database with complaints and notices, e.g. one the load benchmark keeps in
 * bench/cache such as dnc-2000000-days36.db.)
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cli, ROOT, serve, type WrkResult, wrk } from "./support/processes.js";
import { seededRandom } from "./support/workload.js";

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    seconds: { type: "string", default: "10" },
    workers: { type: "string", default: "1" },
    "read-threads": { type: "string", default: "2" },
    /** Serve with `--no-notice-thread` (the notices on the event loop, not on a thread of their own). */
    "notices-on-loop": { type: "boolean", default: false },
  },
});
if (!values.db) throw new Error("--db FILE is required (a SQLite database with complaints and notices)");
const seconds = Number(values.seconds);
const cache = join(ROOT, "bench", "cache");
mkdirSync(cache, { recursive: true });

const key = cli(["keys", "create", "--db", values.db, "--email", "hostile@example.com", "--unlimited"])
  .trim()
  .split("\n")
  .at(-1)!;
const headers = { "X-Api-Key": key, "X-Forwarded-Proto": "https" };
const server = await serve([
  "--db",
  values.db,
  "--workers",
  values.workers,
  "--read-threads",
  values["read-threads"],
  ...(values["notices-on-loop"] ? ["--no-notice-thread"] : []),
  "--trust-proxy",
]);

/** A wrk script rotating through `paths`. */
function script(name: string, paths: string[]): string {
  const list = join(cache, `hostile-${name}.paths`);
  writeFileSync(list, `${paths.join("\n")}\n`);
  const file = join(cache, `hostile-${name}.lua`);
  writeFileSync(
    file,
    `local requests = {}
local counter = 0
function init(args)
  for path in io.lines("${list}") do requests[#requests + 1] = wrk.format("GET", path) end
  counter = math.random(#requests)
end
function request()
  counter = counter % #requests + 1
  return requests[counter]
end
`,
  );
  return file;
}

const random = seededRandom(16);
const costlyComplaints: string[] = [];
const costlyNotices: string[] = [];
for (let index = 0; index < 4000; index++) {
  const offset = Math.floor(random() * 100_000);
  costlyComplaints.push(
    index % 2 === 0
      ? `/v0/dnc-complaints?violation_date_from=1900-01-01&violation_date_to=2099-12-31&is_robocall=${random() < 0.5 ? "true" : "false"}&offset=${offset}`
      : `/v0/dnc-complaints?violation_date_from=1900-01-01&violation_date_to=2099-12-31&area_code=${200 + Math.floor(random() * 700)}&offset=${offset % 1000}`,
  );
  const words = Array.from({ length: 64 }, (_, at) => {
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const word = `${letters[Math.floor(random() * 26)]}${letters[Math.floor(random() * 26)]}${letters[at % 26]}`;
    return `filter[c${at}][condition][path]=title&filter[c${at}][condition][operator]=CONTAINS&filter[c${at}][condition][value]=${word}&filter[c${at}][condition][memberOf]=g`;
  });
  costlyNotices.push(
    `/v0/hsr-early-termination-notices?filter[g][group][conjunction]=OR&${words.join("&")}&page[offset]=${Math.floor(random() * 500)}`,
  );
}
const mixes = [
  { name: "complaints", paths: costlyComplaints },
  { name: "notices", paths: costlyNotices },
  {
    name: "both, alternating",
    paths: costlyComplaints.flatMap((path, index) => [path, costlyNotices[index]!]),
  },
];
const cheapScript = script(
  "cheap",
  Array.from(
    { length: 2000 },
    () => `/v0/dnc-complaints?items_per_page=1&offset=${Math.floor(random() * 50)}`,
  ),
);

function probes(): { health: WrkResult; cheap: WrkResult } {
  const probe = { connections: 1, threads: 1, seconds, headers };
  return {
    health: wrk(`${server.httpUrl}/health/live`, probe),
    cheap: wrk(`${server.httpUrl}/`, { ...probe, script: cheapScript }),
  };
}

const idle = probes();
const rows: string[] = [];
const row = (name: string, result: WrkResult, bound: number) =>
  `| ${name} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50Ms.toFixed(2)} | ${result.p99Ms.toFixed(2)} | ${bound} | ${result.p99Ms <= bound ? "yes" : "no"} |`;
rows.push(row("/health/live, idle", idle.health, 10), row("cheap complaint page, idle", idle.cheap, 50));
const hostileRates: string[] = [];
for (const mix of mixes) {
  const costlyScript = script(`costly-${mix.name.split(",")[0]}`, mix.paths);
  // The hostile load runs beside the probes, as a process of its own.
  const hostile = spawn(
    "wrk",
    [
      "-t",
      "2",
      "-c",
      "8",
      "-d",
      `${seconds * 2 + 5}s`,
      "--latency",
      "-H",
      `X-Api-Key: ${key}`,
      "-H",
      "X-Forwarded-Proto: https",
      "-s",
      costlyScript,
      `${server.httpUrl}/`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let hostileOutput = "";
  hostile.stdout.on("data", (chunk) => {
    hostileOutput += chunk;
  });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const loaded = probes();
  await new Promise((resolve) => hostile.on("exit", resolve));
  const statuses = /Non-2xx or 3xx responses: (\d+)/.exec(hostileOutput)?.[1] ?? "0";
  const costlyRate = /Requests\/sec:\s+([\d.]+)/.exec(hostileOutput)?.[1] ?? "?";
  hostileRates.push(`${mix.name}: ${costlyRate} answered a second, ${statuses} of them non-2xx`);
  rows.push(
    row(`/health/live, beside costly ${mix.name}`, loaded.health, 10),
    row(`cheap complaint page, beside costly ${mix.name}`, loaded.cheap, 50),
  );
}
await server.stop();

const report = [
  `# Cheap requests under hostile load (${values.workers} worker(s), --read-threads ${values["read-threads"]}${values["notices-on-loop"] ? ", --no-notice-thread" : ""})`,
  "",
  `${new Date().toISOString()}; ${values.db}; probes: 1 connection, ${seconds} s each, over plain HTTP with X-Forwarded-Proto: https (as behind the documented proxy); hostile load: 8 connections rotating through 4,000 distinct costly requests of each kind (complaint filters that scan, notices with 64 CONTAINS conditions), in three mixes one after the other (${hostileRates.join("; ")}; non-2xx would be e.g. 503 when the statement budget stopped one).`,
  "",
  "| probe | req/s | p50 ms | p99 ms | issue 16 bound (p99 ms) | met |",
  "|---|---:|---:|---:|---:|---|",
  ...rows,
].join("\n");
console.log(report);
const results = join(ROOT, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  join(
    results,
    `hostile-load-sqlite-${values.workers}w-threads${values["read-threads"]}${values["notices-on-loop"] ? "-notices-on-loop" : ""}.md`,
  ),
  `${report}\n`,
);
