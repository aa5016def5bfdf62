import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DEMO_KEY } from "../../src/access/api-keys.js";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { fetchRaw } from "../support/https-client.js";
import { type MetricSample, parseMetrics, sampleValue } from "../support/parse-metrics.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const COMPLAINTS = "/v0/dnc-complaints";
const NOTICES = "/v0/hsr-early-termination-notices";
const ROWS = 200;
/** The complaint list cache's documented limit (docs/metrics.md). */
const CACHE_LIMIT_CHARACTERS = 4 * 1024 * 1024;

/** A database of `ROWS` generated complaints (no notices), and the directory to serve it from. */
async function importedDatabase(
  dialect: (typeof DIALECTS)[number],
): Promise<{ db: string; directory: string }> {
  const directory = await makeTempDirectory();
  const db = dialect === "sqlite" ? join(directory, "ftcapi.db") : await freshDatabase(dialect);
  const csv = join(directory, "dnc.csv");
  const generated = await runCli(["generate", "dnc", "--rows", String(ROWS), "--seed", "5", "--out", csv]);
  assert.equal(generated.code, 0, generated.stderr);
  const imported = await runCli(["import", "dnc", "--quiet", "--db", db, csv]);
  assert.equal(imported.code, 0, imported.stderr);
  return { db, directory };
}

/**
 * A serve process with a metrics listener on a fresh `importedDatabase("sqlite")`, and a GET over
 * HTTPS with an unlimited key that expects 200 and gives the parsed body.
 */
async function servedWithMetrics(email: string) {
  const { db, directory } = await importedDatabase("sqlite");
  const key = await createKeyWithCli(db, email, "--unlimited");
  const server = await startServeProcess(localServeFlags(db, "--metrics-port", "0"), 120_000, directory);
  const ca = await readFile(server.certPath!, "utf8");
  const get = async (path: string) => {
    const res = await fetchRaw(`${server.httpsUrl}${path}`, { ca, headers: { "X-Api-Key": key } });
    assert.equal(res.status, 200, res.body);
    return res.json();
  };
  return { server, get };
}

/** Scrapes the server's metrics listener, checking the answer's status and type. */
async function scrape(server: ServeProcess): Promise<MetricSample[]> {
  assert.ok(server.metricsUrl, `the banner names no metrics address:\n${server.output()}`);
  const res = await fetchRaw(server.metricsUrl);
  assert.equal(res.status, 200, res.body);
  assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
  return parseMetrics(res.body);
}

/** The number of requests counted for a route, method and status (0 when none were). */
function requests(samples: readonly MetricSample[], route: string, status: number, method = "GET"): number {
  return sampleValue(samples, "ftcapi_http_requests_total", { route, method, status: String(status) }) ?? 0;
}

/** The latency histogram of one route and method: cumulative buckets that end at its count. */
function assertHistogram(samples: readonly MetricSample[], route: string, count: number): void {
  const labels = { route, method: "GET" };
  const buckets = samples
    .filter((sample) => sample.name === "ftcapi_http_request_duration_seconds_bucket")
    .filter((sample) => sample.labels.route === route && sample.labels.method === "GET");
  assert.ok(buckets.length > 5, `${route}: no latency buckets`);
  for (let index = 1; index < buckets.length; index++)
    assert.ok(buckets[index]!.value >= buckets[index - 1]!.value, `${route}: buckets are cumulative`);
  assert.equal(buckets.at(-1)!.labels.le, "+Inf");
  assert.equal(buckets.at(-1)!.value, count);
  assert.equal(sampleValue(samples, "ftcapi_http_request_duration_seconds_count", labels), count);
  assert.ok(sampleValue(samples, "ftcapi_http_request_duration_seconds_sum", labels)! > 0);
}

describe("Prometheus metrics (--metrics-port, a real serve process)", () => {
  for (const dialect of DIALECTS) {
    it(`counts requests by route and status, latency, refusals, the answer cache and freshness (${dialect}); /metrics is not on the API's ports`, async () => {
      const { db, directory } = await importedDatabase(dialect);
      const key = await createKeyWithCli(db, "metrics@example.com", "--limit-per-hour", "1");
      const startedSeconds = Date.now() / 1000;
      const server = await startServeProcess(
        localServeFlags(db, "--metrics-port", "0", "--demo-limit-per-hour", "3", "--trust-proxy"),
        120_000,
        directory,
      );
      try {
        // Loopback by default, whatever --host says.
        assert.match(server.metricsUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, server.output());
        const ca = await readFile(server.certPath!, "utf8");
        const get = async (path: string, apiKey?: string) =>
          (
            await fetchRaw(`${server.httpsUrl}${path}`, {
              ca,
              headers: apiKey ? { "X-Api-Key": apiKey } : {},
            })
          ).status;

        // DEMO_KEY, 3 an hour: twice the same page (the second from the answer cache), a complaint
        // that does not exist, then two refusals.
        const missingId = "0".repeat(32);
        const statuses = [
          await get(`${COMPLAINTS}?items_per_page=1`, DEMO_KEY),
          await get(`${COMPLAINTS}?items_per_page=1`, DEMO_KEY),
          await get(`${COMPLAINTS}/${missingId}`, DEMO_KEY),
          await get(`${COMPLAINTS}?items_per_page=2`, DEMO_KEY),
          await get(`${COMPLAINTS}?items_per_page=3`, DEMO_KEY),
          // A key of its own, 1 an hour.
          await get(NOTICES, key),
          await get(NOTICES, key),
          // Without a key, outside /v0/: no route.
          await get("/no-such-page"),
        ];
        assert.deepEqual(statuses, [200, 200, 404, 429, 429, 200, 429, 404]);

        // The public ports answer /metrics as any path they do not serve.
        const overHttps = await fetchRaw(`${server.httpsUrl}/metrics`, { ca });
        assert.equal(overHttps.status, 404);
        assert.deepEqual(overHttps.json(), {
          error: { code: "NOT_FOUND", message: "The requested URL was not found on this server." },
        });
        const overHttp = await fetchRaw(`${server.httpUrl}/metrics`);
        const unknownOverHttp = await fetchRaw(`${server.httpUrl}/no-such-page`);
        assert.equal(overHttp.status, 400);
        assert.equal(overHttp.json().error.code, unknownOverHttp.json().error.code);
        assert.doesNotMatch(overHttp.body, /ftcapi_|# HELP/);
        // Behind a proxy that says the client used HTTPS, the plain port serves: the same 404.
        const proxied = await fetchRaw(`${server.httpUrl}/metrics`, {
          headers: { "X-Forwarded-Proto": "https" },
        });
        assert.equal(proxied.status, 404);
        assert.deepEqual(proxied.json(), overHttps.json());

        // The metrics listener serves /metrics alone.
        const metricsBase = server.metricsUrl!.replace(/\/metrics$/, "");
        const elsewhere = await fetchRaw(`${metricsBase}/v0/status`);
        assert.equal(elsewhere.status, 404);
        assert.equal(elsewhere.json().error.code, "NOT_FOUND");
        assert.equal((await fetchRaw(server.metricsUrl!, { method: "POST" })).status, 405);

        // onResponse runs once the answer is written: wait for the last request to be counted.
        const samples = await eventually(async () => {
          const scraped = await scrape(server);
          assert.equal(requests(scraped, "unmatched", 400), 2);
          return scraped;
        });

        // Requests by route pattern and status; never a raw URL.
        assert.equal(requests(samples, COMPLAINTS, 200), 2);
        assert.equal(requests(samples, `${COMPLAINTS}/:id`, 404), 1);
        assert.equal(requests(samples, COMPLAINTS, 429), 2);
        assert.equal(requests(samples, NOTICES, 200), 1);
        assert.equal(requests(samples, NOTICES, 429), 1);
        assert.equal(
          requests(samples, "unmatched", 404),
          3,
          "/no-such-page, /metrics over HTTPS and proxied",
        );
        const routes = new Set(
          samples
            .filter((sample) => sample.name === "ftcapi_http_requests_total")
            .map((sample) => sample.labels.route),
        );
        assert.deepEqual([...routes].sort(), [COMPLAINTS, `${COMPLAINTS}/:id`, NOTICES, "unmatched"].sort());
        const text = JSON.stringify(samples);
        for (const secret of [key, missingId, "no-such-page", "items_per_page"])
          assert.ok(!text.includes(secret), `${secret} appears in the metrics`);

        // Latency histograms count every answer of the route, refusals included.
        assertHistogram(samples, COMPLAINTS, 4);
        assertHistogram(samples, NOTICES, 2);

        assert.equal(sampleValue(samples, "ftcapi_rate_limit_refusals_total", { limit: "demo_key" }), 2);
        assert.equal(sampleValue(samples, "ftcapi_rate_limit_refusals_total", { limit: "api_key" }), 1);
        assert.equal(
          sampleValue(samples, "ftcapi_rate_limit_refusals_total", { limit: "signup" }),
          undefined,
        );

        // The answer cache: one page asked twice (kept from its second request on), one notices
        // page once (not kept).
        const complaintsCache = { collection: "dnc-complaints" };
        const noticesCache = { collection: "hsr-early-termination-notices" };
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_hits_total", complaintsCache), 0);
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_misses_total", complaintsCache), 2);
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_hits_total", noticesCache), 0);
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_misses_total", noticesCache), 1);
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_entries", complaintsCache), 1);
        assert.equal(sampleValue(samples, "ftcapi_answer_cache_entries", noticesCache), 0);
        assert.ok(sampleValue(samples, "ftcapi_answer_cache_size_characters", complaintsCache)! > 100);
        assert.equal(
          sampleValue(samples, "ftcapi_answer_cache_limit_characters", complaintsCache),
          CACHE_LIMIT_CHARACTERS,
        );

        // Freshness: the import is the last update; the notices were never imported.
        const nowSeconds = Date.now() / 1000;
        assert.equal(sampleValue(samples, "ftcapi_collection_records", complaintsCache), ROWS);
        assert.equal(sampleValue(samples, "ftcapi_collection_records", noticesCache), 0);
        assert.equal(sampleValue(samples, "ftcapi_collection_version", complaintsCache), 1);
        assert.equal(sampleValue(samples, "ftcapi_collection_version", noticesCache), 0);
        const updated = sampleValue(
          samples,
          "ftcapi_collection_last_update_timestamp_seconds",
          complaintsCache,
        )!;
        assert.ok(updated > startedSeconds - 600 && updated <= nowSeconds + 1, `last update ${updated}`);
        assert.equal(
          sampleValue(samples, "ftcapi_collection_last_update_timestamp_seconds", noticesCache),
          undefined,
        );
        const newest = sampleValue(
          samples,
          "ftcapi_collection_newest_record_timestamp_seconds",
          complaintsCache,
        )!;
        assert.ok(newest > nowSeconds - 40 * 86_400 && newest <= nowSeconds, `newest record ${newest}`);
        assert.equal(
          sampleValue(samples, "ftcapi_collection_newest_record_timestamp_seconds", noticesCache),
          undefined,
        );
        assert.equal(
          sampleValue(samples, "ftcapi_collection_last_mirror_timestamp_seconds", complaintsCache),
          undefined,
        );
        assert.ok(
          sampleValue(samples, "ftcapi_collection_next_update_due_timestamp_seconds", complaintsCache)! >
            updated,
        );
        assert.ok([0, 1].includes(sampleValue(samples, "ftcapi_collection_overdue", complaintsCache)!));

        // Nothing failed; pools only on PostgreSQL.
        assert.equal(samples.filter((sample) => sample.name === "ftcapi_database_errors_total").length, 0);
        const maxConnections = sampleValue(samples, "ftcapi_database_pool_max_connections", {
          database: "primary",
        });
        if (dialect === "postgres") {
          assert.equal(maxConnections, 10);
          const open = samples.filter((sample) => sample.name === "ftcapi_database_pool_connections");
          assert.deepEqual(open.map((sample) => sample.labels.state).sort(), ["busy", "idle"]);
          assert.ok(open.reduce((sum, sample) => sum + sample.value, 0) >= 1);
          assert.equal(
            sampleValue(samples, "ftcapi_database_pool_waiting_clients", { database: "primary" }),
            0,
          );
        } else {
          assert.equal(maxConnections, undefined);
        }

        // prom-client's process metrics, and this one process.
        assert.equal(sampleValue(samples, "ftcapi_serving_processes"), 1);
        for (const name of [
          "process_cpu_user_seconds_total",
          "process_resident_memory_bytes",
          "nodejs_heap_size_used_bytes",
        ])
          assert.ok(sampleValue(samples, name)! > 0, `${name} is missing`);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }

  it("keeps the count series of values that match, not of long values that match nothing (sqlite)", async () => {
    const { server, get } = await servedWithMetrics("series@example.com");
    try {
      const kept = async () => sampleValue(await scrape(server), "ftcapi_count_series_kept_bytes")!;
      const before = await kept();
      assert.ok(before > 0, "the newest violation days' counts are read at start, before any request");
      // Forty distinct cities of 8,000 letters each, in every state: none matches.
      for (let index = 0; index < 40; index++) {
        const city = `${"x".repeat(7_990)}${String(index).padStart(10, "0")}`;
        assert.equal((await get(`${COMPLAINTS}?city=${city}`)).meta["record-total"], 0);
      }
      assert.ok((await kept()) - before < 8_000, "series of values that match nothing are not kept");
      const page = await get(`${COMPLAINTS}?items_per_page=50`);
      const city = page.data
        .map((record: { attributes: Record<string, string> }) => record.attributes["consumer-city"])
        .find((name: string) => name !== "");
      const found = await get(`${COMPLAINTS}?city=${encodeURIComponent(city)}`);
      assert.ok(found.meta["record-total"] > 0);
      assert.ok((await kept()) > before, "a city that matches keeps its series");
      assert.ok(sampleValue(await scrape(server), "ftcapi_count_series_entries")! >= 1);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("reads every violation day's counts and every state's, flag's and subject's series from the start (sqlite)", async () => {
    const directory = await makeTempDirectory();
    const db = join(directory, "ftcapi.db");
    const csv = join(directory, "dnc.csv");
    const generated = await runCli(["generate", "dnc", "--rows", "1500", "--days", "200", "--out", csv]);
    assert.equal(generated.code, 0, generated.stderr);
    const imported = await runCli(["import", "dnc", "--quiet", "--db", db, csv]);
    assert.equal(imported.code, 0, imported.stderr);
    const database = openDatabase(db);
    const distinct = async (column: "violation_day" | "state_key" | "robocall" | "subject") => {
      const { values } = await database.db
        .selectFrom("complaints")
        .select((eb) => eb.fn.count<number>(eb.fn("distinct", [column])).as("values"))
        .executeTakeFirstOrThrow();
      return Number(values);
    };
    const days = await distinct("violation_day");
    const values = (await distinct("state_key")) + (await distinct("robocall")) + (await distinct("subject"));
    await database.close();
    assert.ok(days > 150, `${days} violation days`);
    assert.ok(values > 60, `${values} states, flags and subjects`);
    const server = await startServeProcess(localServeFlags(db, "--metrics-port", "0"), 120_000, directory);
    try {
      // One series per violation day and per state, flag and subject, and a few for the dimensions
      // the warming reads first (on SQLite every day's before the server listens).
      await eventually(async () => {
        const entries = sampleValue(await scrape(server), "ftcapi_count_series_entries")!;
        assert.ok(
          entries >= days + values,
          `${entries} series for ${days} violation days and ${values} states, flags and subjects`,
        );
      });
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("with --workers 2, the primary's metrics port sums both workers", async () => {
    const { db, directory } = await importedDatabase("sqlite");
    const server = await startServeProcess(
      localServeFlags(db, "--metrics-port", "0", "--workers", "2", "--demo-limit-per-hour", "100"),
      120_000,
      directory,
    );
    try {
      assert.match(server.output(), /with 2 workers/);
      assert.match(server.metricsUrl ?? "", /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, server.output());
      const ca = await readFile(server.certPath!, "utf8");
      // A connection each: the primary hands connections to the workers in turn.
      const total = 10;
      for (let index = 0; index < total; index++) {
        const res = await fetchRaw(`${server.httpsUrl}${COMPLAINTS}?items_per_page=1`, {
          ca,
          headers: { "X-Api-Key": DEMO_KEY },
        });
        assert.equal(res.status, 200);
      }
      const overHttps = await fetchRaw(`${server.httpsUrl}/metrics`, { ca });
      assert.equal(overHttps.status, 404);

      const samples = await eventually(async () => {
        const scraped = await scrape(server);
        assert.equal(requests(scraped, "unmatched", 404), 1);
        return scraped;
      });
      assert.equal(sampleValue(samples, "ftcapi_serving_processes"), 2, "both workers answered the scrape");
      assert.equal(requests(samples, COMPLAINTS, 200), total);
      assertHistogram(samples, COMPLAINTS, total);
      // Each worker keeps its own cache, an answer from its second request on: two misses in each,
      // summed, show both served.
      const cache = { collection: "dnc-complaints" };
      assert.equal(sampleValue(samples, "ftcapi_answer_cache_misses_total", cache), 4);
      assert.equal(sampleValue(samples, "ftcapi_answer_cache_hits_total", cache), total - 4);
      assert.equal(
        sampleValue(samples, "ftcapi_answer_cache_limit_characters", cache),
        2 * CACHE_LIMIT_CHARACTERS,
      );
      // Both read the same database: its figures are not doubled.
      assert.equal(sampleValue(samples, "ftcapi_collection_records", cache), ROWS);
      assert.equal(sampleValue(samples, "ftcapi_collection_version", cache), 1);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it("keeps an answer only when its second request comes soon after its first: a page asked again after 140 others is not kept, one asked three times in a row is (sqlite)", async () => {
    const { server, get } = await servedWithMetrics("admission@example.com");
    try {
      const cache = { collection: "dnc-complaints" };
      const hits = async () => sampleValue(await scrape(server), "ftcapi_answer_cache_hits_total", cache);
      const page = `${COMPLAINTS}?items_per_page=1`;
      await get(page);
      // More distinct pages in between than the cache remembers as asked (twice what it holds, at
      // least 64 a generation of two): the page's second request is as good as its first.
      for (let offset = 1; offset <= 140; offset++)
        await get(`${COMPLAINTS}?items_per_page=1&offset=${offset}`);
      await get(page);
      await get(page);
      assert.equal(await hits(), 0, "the page was kept from a second request that came 140 requests late");
      await get(page);
      assert.equal(await hits(), 1, "the page asked twice in a row was kept, and its next request hit it");
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
