import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { createKeyWithCli } from "../support/cli.js";
import { DIALECTS, type Dialect, freshDatabase } from "../support/dialects.js";
import { fetchRaw, type TestResponse } from "../support/https-client.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const SIGNUP = JSON.stringify({
  first_name: "Ada",
  last_name: "Lovelace",
  email: "ada@example.org",
  use_description: "Call-blocking research",
  terms_and_conditions: true,
});

/** Another process's write lock on the key table, as an import holds it: taken now, released by the returned function. */
async function holdWriteLock(dialect: Dialect, db: string): Promise<() => Promise<void>> {
  if (dialect === "sqlite") {
    const other = new BetterSqlite3(db);
    other.exec("begin immediate");
    other.exec("insert into settings (name, value) values ('lock-holder', 'test')");
    return async () => {
      other.exec("rollback");
      other.close();
    };
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  await client.query("begin");
  await client.query("lock table api_keys in exclusive mode");
  return async () => {
    await client.query("rollback");
    await client.end();
  };
}

async function timed(request: Promise<TestResponse>): Promise<{ res: TestResponse; ms: number }> {
  const started = performance.now();
  const res = await request;
  return { res, ms: performance.now() - started };
}

for (const dialect of DIALECTS) {
  describe(`a sign-up waiting on another writer's lock stalls nothing else (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let key: string;

    before(async () => {
      db = await freshDatabase(dialect);
      key = await createKeyWithCli(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const signup = () =>
      fetchRaw(`${server.httpsUrl}/signup`, {
        method: "POST",
        ca: server.ca,
        body: SIGNUP,
        headers: { "Content-Type": "application/json" },
      });

    it("reads answer at once while the sign-up waits, and the sign-up succeeds once the lock goes", async () => {
      const release = await holdWriteLock(dialect, db);
      let pending: Promise<{ res: TestResponse; ms: number }> | undefined;
      try {
        pending = timed(signup());
        await sleep(300);
        for (const path of ["/v0/dnc-complaints?items_per_page=1", "/v0/status", "/health/live"]) {
          const { res, ms } = await timed(server.get(path, { "X-Api-Key": key }));
          assert.equal(res.status, 200, `${path}: ${res.body}`);
          assert.ok(ms < 1000, `${path} took ${Math.round(ms)} ms while a sign-up waited`);
        }
        await sleep(700);
      } finally {
        await release();
      }
      const { res } = await pending!;
      assert.equal(res.status, 201, res.body);
      const issued = res.json().api_key as string;
      assert.equal((await server.get("/v0/status", { "X-Api-Key": issued })).status, 200);
    });

    if (dialect === "sqlite") {
      it("a lock held past the wait gives that one sign-up a 503 with Retry-After", async () => {
        const release = await holdWriteLock(dialect, db);
        try {
          const { res, ms } = await timed(signup());
          assert.equal(res.status, 503, res.body);
          assert.equal(res.json().error.code, "SERVICE_UNAVAILABLE");
          assert.ok(Number(res.headers["retry-after"]) >= 1);
          assert.ok(ms < 8000, `the refusal took ${Math.round(ms)} ms`);
        } finally {
          await release();
        }
      });
    }
  });
}
