/**
 * SQLite reads off the event loop (`--read-threads`, store/sqlite/open-sqlite.ts), over real serve
 * processes: the same answers as reads on the event loop, a lone request's cheap reads on the idle
 * loop, a costly read moved to the long lane, and the lanes in the metrics. SQLite only: PostgreSQL's driver never blocks the loop.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { fetchRaw } from "../support/https-client.js";
import { type MetricSample, parseMetrics, sampleValue } from "../support/parse-metrics.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const COMPLAINTS = "/v0/dnc-complaints";
/** Enough rows that a scan outruns the 1 ms quick budget these servers get. */
const ROWS = 30_000;

/** Pages of every kind: read by index, counted from tables, and scanned (a wide violation range with another filter). */
const PAGES = [
  `${COMPLAINTS}?items_per_page=5`,
  `${COMPLAINTS}?state=California&offset=40`,
  `${COMPLAINTS}?violation_date_from=1900-01-01&violation_date_to=2099-12-31&is_robocall=true&offset=2000`,
  `${COMPLAINTS}?violation_date_from=1900-01-01&violation_date_to=2099-12-31&area_code=212&is_robocall=false`,
  "/v0/hsr-early-termination-notices?page[limit]=3",
];
/** Counts read the count tables in one read transaction, which the event loop's connection runs. */
const COUNTS = [`${COMPLAINTS}/counts?by=state`];
const REQUESTS = [...PAGES, ...COUNTS];
/** Sent all at once: more than a read thread is handed ahead, each answered with its own page. */
const CONCURRENT = Array.from({ length: 60 }, (_, index) =>
  index % 2 === 0
    ? `${COMPLAINTS}?offset=${index * 37}&items_per_page=3`
    : `${COMPLAINTS}?area_code=212&offset=${index}&items_per_page=2`,
);

async function scrape(server: ServeProcess): Promise<MetricSample[]> {
  assert.ok(server.metricsUrl, server.output());
  return parseMetrics((await fetchRaw(server.metricsUrl)).body);
}

async function answer(server: ServeProcess, key: string, ca: string, path: string) {
  const res = await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": key } });
  // Links name the server's own address, which differs between the two servers.
  return { status: res.status, body: res.body.replaceAll(server.httpsUrl, "https://server") };
}

/** The answers to `paths`, asked one after another, or all at once with `together`. */
async function answers(
  server: ServeProcess,
  key: string,
  paths: readonly string[] = REQUESTS,
  together = false,
): Promise<Array<{ status: number; body: string }>> {
  const ca = await readFile(server.certPath!, "utf8");
  if (together) return Promise.all(paths.map((path) => answer(server, key, ca, path)));
  const result = [];
  for (const path of paths) result.push(await answer(server, key, ca, path));
  return result;
}

describe("SQLite reads on worker threads (--read-threads, a real serve process)", () => {
  it("answers as reads on the event loop do, moves a read past the quick budget to the long lane, and shows both lanes in the metrics", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const csv = join(directory, "dnc.csv");
    const generated = await runCli(["generate", "dnc", "--rows", String(ROWS), "--seed", "3", "--out", csv]);
    assert.equal(generated.code, 0, generated.stderr);
    const imported = await runCli(["import", "dnc", "--quiet", "--db", db, csv]);
    assert.equal(imported.code, 0, imported.stderr);
    const key = await createKeyWithCli(db, "threads@example.com", "--unlimited");

    // Built, as operators run it: the worker's entry is then the compiled file. A page cache other
    // than the default changes no answer.
    const threaded = await startServeProcess(
      localServeFlags(
        db,
        "--read-threads",
        "2",
        "--quick-read-budget-ms",
        "1",
        "--read-thread-cache-mb",
        "8",
        "--metrics-port",
        "0",
      ),
      120_000,
      directory,
      true,
    );
    let withThreads: Array<{ status: number; body: string }>;
    try {
      const pages = await answers(threaded, key, PAGES);
      // Every read of the pages was routed to the pool, the combinations' counts on rows included:
      // asked one at a time, the cheap ones ran on the idle loop's own read connection, and none on
      // the loop's main connection.
      const sequential = await scrape(threaded);
      assert.equal(
        sampleValue(sequential, "ftcapi_sqlite_reads_total", { lane: "loop" }),
        0,
        threaded.output(),
      );
      assert.ok(sampleValue(sequential, "ftcapi_sqlite_reads_total", { lane: "idle-loop" })! > 0);
      withThreads = [
        ...pages,
        ...(await answers(threaded, key, COUNTS)),
        ...(await answers(threaded, key, CONCURRENT, true)),
      ];
      const samples = await scrape(threaded);
      assert.equal(sampleValue(samples, "ftcapi_sqlite_read_threads", { lane: "quick" }), 1);
      assert.equal(sampleValue(samples, "ftcapi_sqlite_read_threads", { lane: "long" }), 1);
      assert.ok(sampleValue(samples, "ftcapi_sqlite_reads_total", { lane: "quick" })! > 0);
      // The scans outran 1 ms in the quick lane and were answered by the long one.
      assert.ok(sampleValue(samples, "ftcapi_sqlite_reads_total", { lane: "long" })! > 0, threaded.output());
      assert.equal(sampleValue(samples, "ftcapi_sqlite_reads_waiting", { lane: "long" }), 0);
    } finally {
      assert.equal(await threaded.stop(), 0);
    }

    const onLoop = await startServeProcess(
      localServeFlags(db, "--read-threads", "0", "--metrics-port", "0"),
      120_000,
      directory,
    );
    try {
      const asked = [...REQUESTS, ...CONCURRENT];
      const expected = await answers(onLoop, key, asked);
      assert.deepEqual(
        withThreads.map((answer) => answer.status),
        asked.map(() => 200),
      );
      for (const [index, path] of asked.entries())
        assert.ok(withThreads[index]!.body === expected[index]!.body, `${path}: the answers differ`);
      const samples = await scrape(onLoop);
      assert.equal(
        samples.some((sample) => sample.name.startsWith("ftcapi_sqlite_read")),
        false,
      );
    } finally {
      assert.equal(await onLoop.stop(), 0);
    }
  });
});
