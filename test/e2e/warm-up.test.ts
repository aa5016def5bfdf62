/**
 * `serve` answers its own warm-up requests in process before it listens (http/warm-up.ts), through
 * an app of its own whose gateway checks nothing; real serve processes over both dialects, with
 * both collections imported. Every warm-up request is answered 200 (a warm-up path the API no
 * longer takes would say so in the log); none of them is logged as a request; and the server the
 * clients reach keeps its whole gateway from its first request. (That the warm-up leaves the
 * metrics and answer-cache counters at zero is test/e2e/metrics.test.ts's exact counts.)
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { fetchRaw } from "../support/https-client.js";
import { localServeFlags, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const WARMED = /warm-up: (\d+) requests answered in [\d.]+ s/;

for (const dialect of DIALECTS) {
  describe(`serve warms its request path before it listens (${dialect}, a real serve process)`, () => {
    it("answers every warm-up request 200, logs none of them, and checks keys from the first client request", async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      for (const [collection, rows] of [
        ["dnc", "2000"],
        ["notices", "300"],
      ] as const) {
        const csv = join(directory, `${collection}.csv`);
        const generated = await runCli(["generate", collection, "--rows", rows, "--seed", "3", "--out", csv]);
        assert.equal(generated.code, 0, generated.stderr);
        const imported = await runCli(["import", collection, "--quiet", "--db", db, csv]);
        assert.equal(imported.code, 0, imported.stderr);
      }
      const key = await createKeyWithCli(db, "warm-up@example.com", "--unlimited");
      const server = await startServeProcess(
        localServeFlags(db, "--log-level", "info"),
        120_000,
        directory,
        true,
      );
      try {
        const output = server.output();
        const [, requests] = WARMED.exec(output) ?? [];
        assert.ok(Number(requests) > 50, output);
        assert.doesNotMatch(output, /answered other than 200/);
        assert.doesNotMatch(output, /incoming request|request completed/, "warm-up requests are not logged");

        const ca = await readFile(server.certPath!, "utf8");
        const page = "/v0/hsr-early-termination-notices?page[offset]=7";
        const missing = await fetchRaw(`${server.httpsUrl}${page}`, { ca });
        assert.equal(missing.status, 403, missing.body);
        assert.equal(JSON.parse(missing.body).error.code, "API_KEY_MISSING");
        const invalid = await fetchRaw(`${server.httpsUrl}/v0/dnc-complaints?offset=30`, {
          ca,
          headers: { "X-Api-Key": "not-a-key" },
        });
        assert.equal(invalid.status, 403, invalid.body);
        const plain = await fetchRaw(`${server.httpUrl}${page}`, { headers: { "X-Api-Key": key } });
        assert.equal(plain.status, 400, plain.body);
        assert.equal(JSON.parse(plain.body).error.code, "HTTPS_REQUIRED");
        const keyed = await fetchRaw(`${server.httpsUrl}${page}`, { ca, headers: { "X-Api-Key": key } });
        assert.equal(keyed.status, 200, keyed.body);
        assert.match(server.output(), /incoming request/, "a client's request is logged");
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  });
}
