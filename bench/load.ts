/**
 * The load benchmark (issue 7): N generated complaints and the 28,000 generated notices (the size
 * of the real collection) imported into SQLite or PostgreSQL (both cached in bench/cache), `ftcapi
 * serve` started as operators run it, and wrk driving a workload
 * built from bench/support/workload.ts against it and, in the same run, against a bare node:http
 * server that answers every request with one fixed body the size of an average ftcapi answer.
 *
 * Every request carries an API key (created --unlimited), so the key is verified and the limit
 * checked and counted on every request. Both servers are reached over plain HTTP with
 * `X-Forwarded-Proto: https`, as behind the documented nginx front (ftcapi runs with --trust-proxy),
 * so TLS costs neither of them.
 *
 * Modes: mixed (every shape of both collections, random values, offsets spread up to each total), popular (a few pages
 * repeated, plainly and as conditional requests with If-None-Match), latency (one connection, one
 * shape at a time), distinct (the mixed workload's shapes and offsets, each collection on its own,
 * at least 20,000 distinct requests each: more than any cache holds).
 * `--collection complaints|notices` keeps one collection's shapes.
 *
 * Usage: npm run bench -- --rows N [--days D] [--dialect sqlite|postgres] [--connections C] [--duration S]
 *          [--workers W] [--mode mixed|popular|latency|distinct] [--runs R] [--requests K] [--db FILE]
 *          [--collection complaints|notices] [--notices-on-loop] [--shapes word,word]
 * `--db` serves an existing SQLite database (e.g. one kept by `bench:import -- --keep`) instead;
 * the notices are imported into it when it has none.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { DEMO_NOTICES } from "../src/ingest/demo-data.js";
import { startThrowawayCluster } from "../test/support/postgres.js";
import { cli, generatedComplaints, median, ROOT, serve, type WrkResult, wrk } from "./support/processes.js";
import { timedGet } from "./support/timed-get.js";
import {
  recordPath,
  type Samples,
  SHAPES,
  type Shape,
  sampleValues,
  seededRandom,
} from "./support/workload.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    /** The span the complaints are generated over; fewer days make denser days. */
    days: { type: "string", default: "365" },
    dialect: { type: "string", default: "sqlite" },
    connections: { type: "string", default: "50" },
    duration: { type: "string", default: "10" },
    workers: { type: "string", default: "1" },
    mode: { type: "string", default: "mixed" },
    runs: { type: "string", default: "3" },
    requests: { type: "string", default: "5000" },
    db: { type: "string" },
    collection: { type: "string" },
    /**
     * Only the shapes whose names contain one of these comma-separated words (e.g.
     * `violation,filters`), for before-and-after runs of a few shapes; the report's name says so.
     */
    shapes: { type: "string" },
    /** Serve with `--no-notice-thread` (the notices on the event loop, not on a thread of their own). */
    "notices-on-loop": { type: "boolean", default: false },
  },
});
const rows = Number(values.rows);
const days = Number(values.days);
/** Data sets other than the original one-year span carry their span in their cache names. */
const spanTag = days === 365 ? "" : `-days${days}`;
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";
const connections = Number(values.connections);
const duration = Number(values.duration);
const workers = Number(values.workers);
const mode = values.mode as "mixed" | "popular" | "latency" | "distinct";
if (!["mixed", "popular", "latency", "distinct"].includes(mode))
  throw new Error(`unknown --mode ${values.mode}`);
if (values.collection !== undefined && !["complaints", "notices"].includes(values.collection))
  throw new Error(`unknown --collection ${values.collection}`);
/** The distinct workload's requests per collection: more than the answer caches hold. */
const DISTINCT_REQUESTS = 20_000;
const runs = Number(values.runs);
const cache = join(ROOT, "bench", "cache");
/** Requests per shape in latency mode. */
const LATENCY_PATHS = 500;
mkdirSync(cache, { recursive: true });

// --- data: generated once, imported once per dialect, both kept in bench/cache ---------------
/** The complaints to import; none is generated for a database given with --db. */
const csv = values.db ? "" : generatedComplaints(rows, days, 1);
const noticesCsv = join(cache, `notices-${DEMO_NOTICES.rows}-seed${DEMO_NOTICES.seed}.csv`);
if (!existsSync(noticesCsv)) {
  console.log(`generating ${DEMO_NOTICES.rows} notices...`);
  cli([
    "generate",
    "notices",
    "--rows",
    String(DEMO_NOTICES.rows),
    "--seed",
    String(DEMO_NOTICES.seed),
    "--out",
    noticesCsv,
  ]);
}

/** Whether the database holds any notice (a database cached before the notices existed holds none). */
async function hasNotices(location: string): Promise<boolean> {
  const present = "select 1 from notices limit 1";
  if (location.startsWith("postgres")) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      const table = await client.query("select to_regclass('notices') as name");
      return table.rows[0].name !== null && ((await client.query(present)).rowCount ?? 0) > 0;
    } finally {
      await client.end();
    }
  }
  if (!existsSync(location)) return false;
  const database = new Database(location, { readonly: true });
  try {
    const table = database
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'notices'")
      .get();
    return table !== undefined && database.prepare(present).get() !== undefined;
  } finally {
    database.close();
  }
}

let location: string;
let needsImport: boolean;
let stopCluster = () => {};
if (values.db) {
  location = values.db;
  needsImport = false;
} else if (dialect === "postgres") {
  const cluster = await startThrowawayCluster(join(cache, "postgres"));
  stopCluster = cluster.stop;
  const name = `dnc_${rows}${spanTag.replace("-", "_")}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  needsImport = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 0;
  if (needsImport) await admin.query(`create database ${name}`);
  await admin.end();
  location = cluster.url.replace(/\/postgres$/, `/${name}`);
} else {
  location = join(cache, `dnc-${rows}${spanTag}.db`);
  needsImport = !existsSync(location);
}
if (needsImport) {
  console.log(`importing ${rows} complaints into ${dialect}...`);
  const started = performance.now();
  cli(["import", "dnc", "--quiet", "--db", location, csv]);
  console.log(`imported in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
if (!(await hasNotices(location))) {
  console.log(`importing ${DEMO_NOTICES.rows} notices into ${dialect}...`);
  cli(["import", "notices", "--quiet", "--db", location, noticesCsv]);
}
const key = cli(["keys", "create", "--db", location, "--email", "bench@example.com", "--unlimited"])
  .trim()
  .split("\n")
  .at(-1)!;
const headers = { "X-Api-Key": key, "X-Forwarded-Proto": "https" };

// --- servers ----------------------------------------------------------------------------------
const ftcapi = await serve([
  "--db",
  location,
  "--workers",
  String(workers),
  "--trust-proxy",
  ...(values["notices-on-loop"] ? ["--no-notice-thread"] : []),
]);
const base = ftcapi.httpUrl;
/** When the server answered its start, for the seconds after it at which the slowest first requests came. */
const listeningAtMs = performance.now();

/**
 * One kept connection for this client's own requests (samples, first requests), through node:http
 * rather than `fetch`, whose own cost is about 0.15 ms a request more (on a kept answer that wrk
 * times at 0.06 ms, p50 0.39 ms through `fetch`, 0.24 through node:http), so that the `first`
 * columns carry less of the client than of the server.
 */
const clientAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/**
 * A GET with this bench's headers, expecting 200. A kept connection the server closed while idle
 * (its keep-alive timeout, during a wrk run) can fail the first attempt: `ms` then times the one
 * that answered, whose new connection is counted in it.
 */
async function get(path: string, extra: Record<string, string> = {}) {
  const url = `${base}${path}`;
  const all = { ...headers, ...extra };
  const res = await timedGet(url, clientAgent, all).catch(() => timedGet(url, clientAgent, all));
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return { body: res.body, etag: res.etag, ms: res.ms };
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse((await get(path)).body);
}

const totals = new Map<string, number>();
async function totalOf(shape: Shape, parameters: Record<string, string>): Promise<number> {
  const { collection } = shape;
  const path = `${collection.path}?${new URLSearchParams({ ...parameters, ...collection.onePerPage })}`;
  let total = totals.get(path);
  if (total === undefined) {
    const atSeconds = (performance.now() - listeningAtMs) / 1000;
    const { body, ms } = await get(path);
    total = collection.totalOf(JSON.parse(body));
    totals.set(path, total);
    firstRequests.push({ shape, path, ms, atSeconds });
  }
  return total;
}

/**
 * The total asked before a shape's pages (`totalOf`), each the first request of its filters since
 * the server started, timed by this client, which counts on an empty answer cache.
 */
const firstRequests: Array<{ shape: Shape; path: string; ms: number; atSeconds: number }> = [];

/** Slowest first requests listed under the latency table, with their paths. */
const SLOWEST_FIRST_LISTED = 5;

/** The `fraction` quantile of `values` (nearest rank), or NaN when there are none. */
function quantile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** One concrete request of a shape: random values, and an offset placed as the shape says. */
async function pathOf(shape: Shape, samples: Samples, random: () => number): Promise<string> {
  if (!shape.offset) return recordPath(shape, samples, random);
  const { collection } = shape;
  const parameters = shape.parameters(samples, random);
  const total = await totalOf(shape, parameters);
  const pages = Math.max(1, Math.ceil(total / collection.pageSize));
  const page =
    shape.offset === "start"
      ? 0
      : shape.offset === "end"
        ? Math.max(0, pages - 1 - Math.floor(random() * 200))
        : Math.floor(random() * pages);
  const query = new URLSearchParams(parameters);
  if (page > 0) query.set(collection.offsetParameter, String(page * collection.pageSize));
  const text = query.toString();
  return text ? `${collection.path}?${text}` : collection.path;
}

/** The shapes of one collection ("complaints" or "notices"), or of both. */
function shapesOf(collection: string | undefined): Shape[] {
  const words = values.shapes?.split(",").filter((word) => word !== "") ?? [];
  const named =
    words.length === 0 ? SHAPES : SHAPES.filter((shape) => words.some((word) => shape.name.includes(word)));
  if (collection === undefined) return named;
  const path = collection === "notices" ? "/v0/hsr-early-termination-notices" : "/v0/dnc-complaints";
  return named.filter((shape) => shape.collection.path === path);
}

function weightedShape(shapes: readonly Shape[], random: () => number): Shape {
  const sum = shapes.reduce((total, shape) => total + shape.weight, 0);
  let at = random() * sum;
  for (const shape of shapes) {
    at -= shape.weight;
    if (at < 0) return shape;
  }
  return shapes.at(-1)!;
}

/**
 * Writes the wrk script that rotates through `paths` (each optionally with an ETag to send). With
 * `once`, each thread sends every path once and stops, so that no answer is served from the cache.
 */
function wrkScript(name: string, paths: Array<{ path: string; etag?: string }>, once = false): string {
  const list = join(cache, `load-${name}.paths`);
  writeFileSync(list, `${paths.map((entry) => `${entry.path}\t${entry.etag ?? ""}`).join("\n")}\n`);
  const script = join(cache, `load-${name}.lua`);
  writeFileSync(
    script,
    `local requests = {}
local counter = 0
local answered = 0
function init(args)
  for line in io.lines("${list}") do
    local path, etag = line:match("^([^\\t]*)\\t(.*)$")
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    if etag ~= "" then headers["If-None-Match"] = etag end
    requests[#requests + 1] = wrk.format("GET", path, headers)
  end
  counter = ${once ? "0" : "math.random(#requests)"}
end
function request()
  counter = counter % #requests + 1
  return requests[counter]
end
${once ? "function response(status, headers, body)\n  answered = answered + 1\n  if answered >= #requests then wrk.thread:stop() end\nend\n" : ""}`,
  );
  return script;
}

/** Peak resident memory (VmHWM) of a process and its children, MB each. */
function peakRss(child: ChildProcess): number[] {
  const pids = [child.pid!];
  try {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
    if (children) pids.push(...children.split(/\s+/).map(Number));
  } catch {}
  return pids.map((pid) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return 0;
    }
  });
}

/**
 * A baseline server answering every request with one fixed body of `bodyBytes` bytes: bare
 * node:http (the stricter baseline), or Fastify sending the body pre-serialised (issue 13's).
 */
function startBaseline(
  kind: "bare" | "fastify",
  bodyBytes: number,
): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  const body = `Buffer.from(JSON.stringify({ data: "x".repeat(Math.max(0, ${bodyBytes} - 11)) }))`;
  const program =
    kind === "bare"
      ? `
    const http = require("node:http");
    const body = ${body};
    http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
      res.end(body);
    }).listen(0, "127.0.0.1", function () { console.log("port " + this.address().port); });`
      : `
    const app = require("fastify")({ logger: false });
    const body = ${body};
    app.get("/*", (req, reply) => { reply.type("application/json; charset=utf-8").send(body); });
    app.listen({ port: 0, host: "127.0.0.1" }).then(() => console.log("port " + app.server.address().port));`;
  const child = spawn(process.execPath, ["-e", program], { cwd: ROOT });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`${kind} baseline server exited (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      const match = /port (\d+)/.exec(chunk.toString());
      if (match)
        resolve({
          url: `http://127.0.0.1:${match[1]}`,
          child,
          stop: () => {
            child.removeAllListeners("exit");
            child.kill("SIGTERM");
          },
        });
    });
  });
}

/**
 * Runs one workload (the shapes of `collection`, or of both when undefined) against ftcapi and the
 * two baselines sending a body of the same mean size, alternating, and adds its table to `lines`.
 */
async function compareWithBare(collection: string | undefined, samples: Samples, random: () => number) {
  const shapes = shapesOf(collection);
  const paths: Array<{ path: string; etag?: string }> = [];
  const count =
    mode === "popular"
      ? 20
      : mode === "distinct"
        ? Math.max(DISTINCT_REQUESTS, Number(values.requests))
        : Number(values.requests);
  const seen = new Set<string>();
  for (let attempt = 0; paths.length < count && attempt < count * 5; attempt++) {
    const path = await pathOf(weightedShape(shapes, random), samples, random);
    if (mode === "distinct" && seen.has(path)) continue;
    seen.add(path);
    paths.push({ path });
  }
  let bytes = 0;
  const measured = paths.slice(0, 500);
  for (const entry of measured) {
    const answer = await get(entry.path);
    bytes += Buffer.byteLength(answer.body);
    entry.etag = answer.etag;
  }
  const averageBytes = Math.round(bytes / measured.length);
  const bare = await startBaseline("bare", averageBytes);
  const fastify = await startBaseline("fastify", averageBytes);
  const tag = `${mode}-${collection ?? "both"}`;
  // Every plain variant reads this one list, without ETags: a list that carried them would make
  // "plain" requests conditional (wrk sends If-None-Match where a line has an ETag).
  const plainScript = wrkScript(
    `${tag}-plain`,
    paths.map(({ path }) => ({ path })),
  );
  const variants: Array<{ name: string; url: string; script: string }> = [
    { name: "ftcapi", url: base, script: plainScript },
  ];
  if (mode === "popular")
    variants.push({
      name: "ftcapi, If-None-Match (304)",
      url: base,
      script: wrkScript(`${tag}-etag`, paths),
    });
  variants.push(
    { name: "Fastify, pre-serialised body", url: fastify.url, script: plainScript },
    { name: "bare node:http, fixed body", url: bare.url, script: plainScript },
  );
  const results = new Map<string, WrkResult[]>(variants.map((variant) => [variant.name, []]));
  try {
    for (const variant of variants)
      wrk(`${variant.url}/`, {
        connections,
        seconds: Math.min(3, duration),
        headers,
        script: variant.script,
      });
    for (let run = 0; run < runs; run++)
      for (const variant of variants) {
        const result = wrk(`${variant.url}/`, {
          connections,
          seconds: duration,
          headers,
          script: variant.script,
        });
        results.get(variant.name)!.push(result);
        console.log(
          `run ${run + 1} ${variant.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms} ms`,
        );
      }
    const bareRate = summary(results.get(variants.at(-1)!.name)!).requestsPerSecond;
    const fastifyRate = summary(results.get(variants.at(-2)!.name)!).requestsPerSecond;
    const over = collection === undefined ? "both collections" : `the ${collection}`;
    lines.push(
      `# Load, ${mode} workload, ${collection ?? "both collections"}, ${data} (${dialect})`,
      "",
      `${stamp}; wrk 2 threads, ${connections} connections, ${duration} s x ${runs} runs per server, alternating; medians.`,
      mode === "popular"
        ? `Workload: the same ${paths.length} pages repeated (average answer ${averageBytes} bytes).`
        : `Workload: ${paths.length} ${mode === "distinct" ? "distinct " : ""}requests over ${shapes.length} shapes of ${over} (bench/support/workload.ts), random values, offsets spread up to each total, single records, phone filter, cycled (more than the answer cache holds, so answers are computed); average answer ${averageBytes} bytes.`,
      "",
      "| server | req/s | vs Fastify | vs bare | p50 ms | p99 ms | errors + non-2xx | peak RSS MB |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const variant of variants) {
      const s = summary(results.get(variant.name)!);
      const rss =
        variant.url === bare.url
          ? peakRss(bare.child)
          : variant.url === fastify.url
            ? peakRss(fastify.child)
            : peakRss(ftcapi.child);
      lines.push(
        `| ${variant.name} | ${s.requestsPerSecond.toFixed(0)} | ${(s.requestsPerSecond / fastifyRate).toFixed(2)} | ${(s.requestsPerSecond / bareRate).toFixed(2)} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ${s.errors + s.non2xx} | ${mb(rss)} |`,
      );
    }
    lines.push("");
  } finally {
    bare.stop();
    fastify.stop();
  }
}

const summary = (list: WrkResult[]) => ({
  requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
  p50Ms: median(list.map((r) => r.p50Ms)),
  p99Ms: median(list.map((r) => r.p99Ms)),
  errors: list.reduce((sum, r) => sum + r.errors, 0),
  non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
});
const mb = (values: number[]) => values.map((value) => value.toFixed(0)).join(" + ");

const lines: string[] = [];
// With --db the data is the file's, whatever --rows and --days say.
const data = values.db
  ? `the complaints and notices of ${basename(values.db)}`
  : `${rows.toLocaleString("en-US")} complaints over ${days} days and ${DEMO_NOTICES.rows.toLocaleString("en-US")} notices`;
const dataTag = values.db ? basename(values.db, ".db") : `${rows}${spanTag}`;
const stamp = `${new Date().toISOString()}; ${data} on ${dialect}; ftcapi ${workers} worker(s)${values["notices-on-loop"] ? " with --no-notice-thread" : ""}, key checked and counted on every request`;
try {
  console.log("sampling values and totals...");
  const samples = await sampleValues(readJson, seededRandom(11));
  const random = seededRandom(7);

  if (mode === "latency") {
    lines.push(
      `# Latency per query shape, ${data} (${dialect})`,
      "",
      `${stamp}; wrk, 1 connection; per shape, up to ${LATENCY_PATHS} distinct requests with random values, each sent once (none answered from the answer cache), at most ${duration} s.`,
      "",
      "The first request of each filter combination (its total, `items_per_page=1`, asked to draw the page's offset) is timed apart by the benchmark's own client (node:http, one kept connection, one request at a time; its own cost about 0.2 ms a request more than wrk's): `first` columns.",
      "",
      "| shape | requests | p50 ms | p99 ms | errors + non-2xx | first requests | first p50 ms | first p99 ms |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const shape of shapesOf(values.collection)) {
      const distinct = new Set<string>();
      for (let index = 0; index < LATENCY_PATHS; index++) distinct.add(await pathOf(shape, samples, random));
      const script = wrkScript(
        "latency",
        [...distinct].map((path) => ({ path })),
        true,
      );
      const result = wrk(`${base}/`, { connections: 1, threads: 1, seconds: duration, headers, script });
      const first = firstRequests.filter((request) => request.shape === shape).map((request) => request.ms);
      const row = `| ${shape.name} | ${result.requests} | ${result.p50Ms.toFixed(2)} | ${result.p99Ms.toFixed(2)} | ${result.errors + result.non2xx} | ${first.length} | ${quantile(first, 0.5).toFixed(2)} | ${quantile(first, 0.99).toFixed(2)} |`;
      lines.push(row);
      console.log(row);
    }
    lines.push(
      "",
      "Slowest first requests:",
      "",
      ...[...firstRequests]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, SLOWEST_FIRST_LISTED)
        .map(
          ({ ms, path, shape, atSeconds }) =>
            `- ${ms.toFixed(2)} ms, ${shape.name}, ${atSeconds.toFixed(1)} s after the start: \`${path}\``,
        ),
      "",
      `Peak RSS of ftcapi (MB, per process): ${mb(peakRss(ftcapi.child))}`,
    );
  } else {
    const groups =
      mode === "distinct" && values.collection === undefined
        ? ["complaints", "notices"]
        : [values.collection];
    for (const group of groups) await compareWithBare(group, samples, random);
  }
} finally {
  clientAgent.destroy();
  await ftcapi.stop();
  stopCluster();
}
const report = lines.join("\n");
console.log(`\n${report}`);
const directory = join(ROOT, "bench", "results");
mkdirSync(directory, { recursive: true });
const collectionTag = values.collection === undefined ? "" : `-${values.collection}`;
writeFileSync(
  join(
    directory,
    `load-${mode}${collectionTag}-${dialect}-${dataTag}-${workers}w${values["notices-on-loop"] ? "-notices-on-loop" : ""}${values.shapes ? "-some-shapes" : ""}.md`,
  ),
  `${report}\n`,
);
