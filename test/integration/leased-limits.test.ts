import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import type { TestResponse } from "../support/https-client.js";
import { createTestKey } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const PATH = "/v0/status";

/** Sends `total` requests with `key`, `concurrency` at a time, spread over `servers` in turn. */
async function burst(
  servers: TestServer[],
  key: string,
  total: number,
  concurrency: number,
): Promise<TestResponse[]> {
  const answers: TestResponse[] = [];
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total) {
        const server = servers[sent++ % servers.length]!;
        answers.push(await server.get(PATH, { "X-Api-Key": key }));
      }
    }),
  );
  return answers;
}

const statusCount = (answers: TestResponse[], status: number) =>
  answers.filter((answer) => answer.status === status).length;

/**
 * Requests through `server` until the key is refused while `expected` requests have been
 * admitted in all; refusals before that are retried (another server may still hold unused hits
 * it is about to hand back). Returns the requests this server admitted.
 */
async function drain(
  server: TestServer,
  key: string,
  admittedElsewhere: number,
  expected: number,
): Promise<number> {
  let admitted = 0;
  await eventually(async () => {
    for (;;) {
      const res = await server.get(PATH, { "X-Api-Key": key });
      if (res.status === 200) {
        admitted++;
        assert.ok(admittedElsewhere + admitted <= expected, "more requests admitted than the limit");
        continue;
      }
      assert.equal(res.status, 429, res.body);
      assert.equal(admittedElsewhere + admitted, expected, "refused while hits were still held elsewhere");
      return;
    }
  });
  return admitted;
}

for (const dialect of DIALECTS) {
  describe(`leased counting (${dialect})`, () => {
    let db: string;
    let one: TestServer;
    let two: TestServer;

    before(async () => {
      db = await freshDatabase(dialect);
      one = await startTestServer({ db });
      two = await startTestServer({ db });
    });
    after(async () => {
      await one?.stop();
      await two?.stop();
    });

    it("one server admits exactly L of many concurrent requests, each with its own X-RateLimit-Remaining", async () => {
      const limit = 25;
      const key = await createTestKey(db, { email: "exact@example.com", limitPerHour: limit });
      const answers = await burst([one], key, 70, 16);
      assert.equal(statusCount(answers, 200), limit);
      assert.equal(statusCount(answers, 429), 70 - limit);
      const remaining = answers
        .filter((answer) => answer.status === 200)
        .map((answer) => Number(answer.headers["x-ratelimit-remaining"]))
        .sort((a, b) => a - b);
      assert.deepEqual(
        remaining,
        Array.from({ length: limit }, (_, index) => index),
        "Remaining counts down from L-1 to 0, once each",
      );
      for (const answer of answers.filter((answer) => answer.status === 429)) {
        assert.equal(answer.headers["x-ratelimit-remaining"], "0");
        assert.ok(Number(answer.headers["retry-after"]) >= 1);
      }
    });

    it("one server, sequentially: L answers with Remaining L-1 .. 0, then 429", async () => {
      const limit = 70;
      const key = await createTestKey(db, { email: "sequential@example.com", limitPerHour: limit });
      for (let index = 0; index < limit; index++) {
        const res = await one.get(PATH, { "X-Api-Key": key });
        assert.equal(res.status, 200, `request ${index}`);
        assert.equal(res.headers["x-ratelimit-remaining"], String(limit - 1 - index));
      }
      assert.equal((await one.get(PATH, { "X-Api-Key": key })).status, 429);
    });

    it("two servers on one database never admit more than L together, and all L once leases are handed back", async () => {
      const limit = 60;
      const key = await createTestKey(db, { email: "shared@example.com", limitPerHour: limit });
      const answers = await burst([one, two], key, 200, 20);
      const admitted = statusCount(answers, 200);
      assert.ok(admitted <= limit, `${admitted} admitted with a limit of ${limit}`);
      assert.equal(statusCount(answers, 429), 200 - admitted);
      // Whatever either server still held goes back within about a second; then exactly L in all.
      const more = await drain(one, key, admitted, limit);
      assert.equal(admitted + more, limit);
      assert.equal((await two.get(PATH, { "X-Api-Key": key })).status, 429);
    });

    it("hits one server leased and did not use are handed back after a second idle, for the other to use", async () => {
      const limit = 40;
      const key = await createTestKey(db, { email: "idle@example.com", limitPerHour: limit });
      assert.equal((await one.get(PATH, { "X-Api-Key": key })).status, 200);
      // `one` leased more than the one hit it used; `two` gets the rest, early or after the hand-back.
      const admitted = await drain(two, key, 1, limit);
      assert.equal(admitted, limit - 1);
    });

    it("hits are handed back when a server stops", async () => {
      const limit = 40;
      const key = await createTestKey(db, { email: "stop@example.com", limitPerHour: limit });
      const third = await startTestServer({ db });
      const first = await third.get(PATH, { "X-Api-Key": key });
      assert.equal(first.headers["x-ratelimit-remaining"], String(limit - 1));
      await third.stop();
      const next = await two.get(PATH, { "X-Api-Key": key });
      assert.equal(next.status, 200);
      assert.equal(
        next.headers["x-ratelimit-remaining"],
        String(limit - 2),
        "the stopped server's unused hits are back",
      );
    });

    it("an unlimited key's requests are all recorded as usage: within seconds, and in full when the server stops", async () => {
      const key = await createTestKey(db, { email: "unlimited@example.com", limitPerHour: "unlimited" });
      const server = await startTestServer({ db });
      try {
        for (let index = 0; index < 7; index++) {
          const res = await server.get(PATH, { "X-Api-Key": key });
          assert.equal(res.status, 200);
          assert.equal(res.headers["x-ratelimit-limit"], undefined);
        }
        await eventually(async () => {
          const usage = await runCli(["keys", "usage", key.slice(0, 6), "--db", db]);
          assert.match(usage.stdout, /^7 requests by /m);
        });
        assert.equal((await server.get(PATH, { "X-Api-Key": key })).status, 200);
      } finally {
        await server.stop();
      }
      const usage = await runCli(["keys", "usage", key.slice(0, 6), "--db", db]);
      assert.match(
        usage.stdout,
        /^8 requests by /m,
        "every request is written by the time the server has stopped",
      );
    });
  });
}
