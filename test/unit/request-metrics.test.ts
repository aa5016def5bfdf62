import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { CollectionFreshness } from "../../src/http/collection-freshness.js";
import { databaseErrorCode } from "../../src/http/database-error-code.js";
import { registerRequestMetrics } from "../../src/http/request-metrics.js";
import { ServerMetrics } from "../../src/http/server-metrics.js";
import type { FreshnessStore } from "../../src/store/freshness-store.js";
import { parseMetrics, sampleValue } from "../support/parse-metrics.js";

/** An error as a driver throws it: a message and the driver's fields. */
function driverError(message: string, fields: Record<string, string>): Error {
  return Object.assign(new Error(message), fields);
}

describe("database errors in the metrics", () => {
  it("databaseErrorCode names the driver's code, and nothing for other errors", () => {
    assert.equal(
      databaseErrorCode(driverError("database is locked", { code: "SQLITE_BUSY" })),
      "SQLITE_BUSY",
    );
    assert.equal(
      databaseErrorCode(driverError("canceling statement", { code: "57014", severity: "ERROR" })),
      "57014",
    );
    assert.equal(
      databaseErrorCode(driverError("syntax error", { code: "42601", severity: "ERROR" })),
      "42601",
    );
    assert.equal(
      databaseErrorCode(driverError("connect ECONNREFUSED", { code: "ECONNREFUSED" })),
      "ECONNREFUSED",
    );
    assert.equal(databaseErrorCode(new Error("Query read timeout")), "query_read_timeout");
    assert.equal(databaseErrorCode(new Error("Connection terminated unexpectedly")), "connection");
    assert.equal(databaseErrorCode(new Error("something else")), undefined);
    assert.equal(databaseErrorCode(driverError("bad", { code: "ERR_INVALID_ARG" })), undefined);
    assert.equal(databaseErrorCode("text"), undefined);
  });

  it("a request that fails on the database is counted under its code, with its route and status", async () => {
    const metrics = new ServerMetrics({
      readPool: () => undefined,
      countSeries: () => ({ entries: 0, keptBytes: 0 }),
      freshness: new CollectionFreshness([], {} as FreshnessStore),
      pools: [],
    });
    const app = Fastify();
    registerRequestMetrics(app, metrics);
    app.get("/busy/:id", async () => {
      throw driverError("database is locked", { code: "SQLITE_BUSY" });
    });
    assert.equal((await app.inject({ method: "GET", url: "/busy/1?x=2" })).statusCode, 500);
    assert.equal((await app.inject({ method: "GET", url: "/busy/2" })).statusCode, 500);
    const samples = parseMetrics((await metrics.exposition()).body);
    assert.equal(sampleValue(samples, "ftcapi_database_errors_total", { code: "SQLITE_BUSY" }), 2);
    assert.equal(
      sampleValue(samples, "ftcapi_http_requests_total", {
        route: "/busy/:id",
        method: "GET",
        status: "500",
      }),
      2,
    );
    await app.close();
  });
});
