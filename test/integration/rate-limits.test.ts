import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { createTestKey } from "../support/seed.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

async function createKey(db: string, ...flags: string[]): Promise<string> {
  const result = await runCli(["keys", "create", "--db", db, "--email", "limits@example.com", ...flags]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim().split("\n").at(-1)!;
}

// A key's hourly limit on each keyed route (the headers, 429 with Retry-After, refused requests not
// counted, HTTPS and the key before the limit) is part of the shared gateway-contract.test.ts.
for (const dialect of DIALECTS) {
  describe(`rate limits (${dialect})`, () => {
    let db: string;
    let server: TestServer;

    before(async () => {
      db = await freshDatabase(dialect);
      server = await startTestServer({ db, trustProxy: true });
    });
    after(() => server?.stop());

    it("DEMO_KEY is limited per client address: 30 an hour", async () => {
      const from = (address: string) =>
        server.get("/v0/dnc-complaints?items_per_page=1", {
          "X-Api-Key": "DEMO_KEY",
          "X-Forwarded-For": address,
        });
      for (let index = 0; index < 30; index++) assert.equal((await from("198.51.100.7")).status, 200);
      const refused = await from("198.51.100.7");
      assert.equal(refused.status, 429);
      assert.equal(refused.headers["x-ratelimit-limit"], "30");
      const other = await from("198.51.100.8");
      assert.equal(other.status, 200, "another address has its own allowance");
      assert.equal(other.headers["x-ratelimit-remaining"], "29");
    });

    it("DEMO_KEY is limited per client address: 50 a day", async () => {
      const generous = await startTestServer({ db, trustProxy: true, demoLimitPerHour: "1000" });
      try {
        const from = () =>
          generous.get("/v0/dnc-complaints?items_per_page=1", {
            "X-Api-Key": "DEMO_KEY",
            "X-Forwarded-For": "203.0.113.9",
          });
        for (let index = 0; index < 50; index++) assert.equal((await from()).status, 200);
        const refused = await from();
        assert.equal(refused.status, 429);
        assert.equal(refused.headers["x-ratelimit-limit"], "50");
        assert.ok(Number(refused.headers["retry-after"]) > 3600, "the day window frees later than an hour");
      } finally {
        await generous.stop();
      }
    });

    it("without --trust-proxy the address comes from the socket, not X-Forwarded-For", async () => {
      const direct = await startTestServer({ db, demoLimitPerHour: "3" });
      try {
        for (const address of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
          const res = await direct.get("/v0/dnc-complaints", {
            "X-Api-Key": "DEMO_KEY",
            "X-Forwarded-For": address,
          });
          assert.equal(res.status, 200);
        }
        const res = await direct.get("/v0/dnc-complaints", {
          "X-Api-Key": "DEMO_KEY",
          "X-Forwarded-For": "192.0.2.4",
        });
        assert.equal(res.status, 429);
      } finally {
        await direct.stop();
      }
    });

    it("an unlimited key is never refused; the default applies to keys without their own", async () => {
      const unlimited = await createTestKey(db, { email: "limits@example.com", limitPerHour: "unlimited" });
      const res = await server.get("/v0/dnc-complaints", { "X-Api-Key": unlimited });
      assert.equal(res.status, 200);
      assert.equal(res.headers["x-ratelimit-limit"], undefined);
      const ordinary = await createTestKey(db, { email: "limits@example.com" });
      const limited = await server.get("/v0/dnc-complaints", { "X-Api-Key": ordinary });
      assert.equal(limited.headers["x-ratelimit-limit"], "1000");
    });

    it("a limit changed with the CLI applies to a running server within seconds", async () => {
      const key = await createTestKey(db, { email: "limits@example.com" });
      assert.equal(
        (await server.get("/v0/dnc-complaints", { "X-Api-Key": key })).headers["x-ratelimit-limit"],
        "1000",
      );
      const changed = await runCli(["keys", "limit", key.slice(0, 6), "--per-hour", "2", "--db", db]);
      assert.equal(changed.code, 0, changed.stderr);
      let res = await server.get("/v0/dnc-complaints", { "X-Api-Key": key });
      for (let attempt = 0; attempt < 20 && res.headers["x-ratelimit-limit"] !== "2"; attempt++) {
        await sleep(250);
        res = await server.get("/v0/dnc-complaints", { "X-Api-Key": key });
      }
      assert.equal(res.headers["x-ratelimit-limit"], "2");
    });

    it("--disable-rate-limits switches API limits off", async () => {
      const open = await startTestServer({ db, disableRateLimits: true, demoLimitPerHour: "1" });
      try {
        for (let index = 0; index < 3; index++) {
          const res = await open.get("/v0/dnc-complaints", { "X-Api-Key": "DEMO_KEY" });
          assert.equal(res.status, 200);
          assert.equal(res.headers["x-ratelimit-limit"], undefined);
        }
      } finally {
        await open.stop();
      }
    });

    it("--rate-limit-window-seconds counts keys' limits over a shorter rolling window", async () => {
      const short = await startTestServer({ db, rateLimitWindowSeconds: "30" });
      try {
        const key = await createTestKey(db, { email: "limits@example.com", limitPerHour: 2 });
        for (let index = 0; index < 2; index++) {
          assert.equal((await short.get("/v0/status", { "X-Api-Key": key })).status, 200);
        }
        const refused = await short.get("/v0/status", { "X-Api-Key": key });
        assert.equal(refused.status, 429);
        const retryAfter = Number(refused.headers["retry-after"]);
        assert.ok(retryAfter >= 1 && retryAfter <= 30, `Retry-After ${retryAfter} within the window`);
      } finally {
        await short.stop();
      }
    });

    it("keys list shows prefixes only, with status and limit", async () => {
      const list = await runCli(["keys", "list", "--db", db]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /^PREFIX\s+EMAIL\s+CREATED\s+LAST USED\s+STATUS\s+LIMIT/);
      assert.match(list.stdout, /unlimited/);
      assert.match(list.stdout, /2\/hour/);
      for (const line of list.stdout.trim().split("\n").slice(1)) assert.match(line, /^\S{6}\s/);
    });

    it("keys list shows when a key was last used; keys delete removes the key and its usage", async () => {
      const used = await createTestKey(db, { email: "limits@example.com" });
      const unused = await createTestKey(db, { email: "limits@example.com" });
      for (let index = 0; index < 3; index++) {
        assert.equal((await server.get("/v0/status", { "X-Api-Key": used })).status, 200);
      }
      const lineOf = (list: string, key: string) =>
        list.split("\n").find((line) => line.startsWith(key.slice(0, 6))) ?? "";
      await eventually(async () => {
        const list = (await runCli(["keys", "list", "--db", db])).stdout;
        const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString().slice(0, 16);
        assert.ok(lineOf(list, used).includes(hour.replace("T", " ")), `last used this hour:\n${list}`);
        assert.match(lineOf(list, unused), /\bnever\b/);
      });

      const deleted = await runCli(["keys", "delete", used.slice(0, 6), "--db", db]);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(lineOf((await runCli(["keys", "list", "--db", db])).stdout, used), "");
      const usage = await runCli(["keys", "usage", used.slice(0, 6), "--db", db]);
      assert.notEqual(usage.code, 0);
      assert.match(usage.stderr, /no key starts with/);
    });
  });
}

describe("rate-limit counters beside a SQLite database", () => {
  it("are kept in <db>-counters, not in the database file", async () => {
    const db = await freshDatabase("sqlite");
    const key = await createKey(db, "--limit-per-hour", "10");
    assert.ok(existsSync(`${db}-counters`), "the counter file is made with the database");
    const server = await startTestServer({ db });
    try {
      const res = await server.get("/v0/status", { "X-Api-Key": key });
      assert.equal(res.status, 200);
      assert.equal(res.headers["x-ratelimit-remaining"], "9");
    } finally {
      await server.stop();
    }
    const usage = await runCli(["keys", "usage", key.slice(0, 6), "--db", db]);
    assert.match(usage.stdout, /^1 requests by /m);
    const main = new BetterSqlite3(db, { readonly: true });
    try {
      const counterTables = main
        .prepare("select name from sqlite_master where name in ('rate_buckets', 'key_usage')")
        .pluck()
        .all();
      assert.deepEqual(counterTables, []);
    } finally {
      main.close();
    }
  });

  it("a database made again beside an old counter file does not inherit its counts", async () => {
    const db = await freshDatabase("sqlite");
    const first = await createKey(db, "--limit-per-hour", "10");
    let server = await startTestServer({ db });
    try {
      for (let index = 0; index < 3; index++) {
        assert.equal((await server.get("/v0/status", { "X-Api-Key": first })).status, 200);
      }
    } finally {
      await server.stop();
    }
    // The database deleted and made again; its first key gets the same id as the old one.
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${db}${suffix}`, { force: true });
    assert.ok(existsSync(`${db}-counters`));
    const second = await createKey(db, "--limit-per-hour", "10");
    server = await startTestServer({ db });
    try {
      const res = await server.get("/v0/status", { "X-Api-Key": second });
      assert.equal(res.status, 200);
      assert.equal(res.headers["x-ratelimit-remaining"], "9");
    } finally {
      await server.stop();
    }
    const usage = await runCli(["keys", "usage", second.slice(0, 6), "--db", db]);
    assert.match(usage.stdout, /^1 requests by /m);
  });
});
