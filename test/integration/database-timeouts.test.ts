import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { RateLimiter } from "../../src/access/rate-limiter.js";
import { POSTGRES_REPLY_MARGIN_MS, type PostgresDatabase } from "../../src/store/database.js";
import type { ApiKeyRecord } from "../../src/store/key-store.js";
import { openDatabase } from "../../src/store/open-database.js";
import type { RateLimitStore } from "../../src/store/rate-limit-store.js";
import { isDatabaseUnavailable } from "../../src/store/unavailable.js";
import { unlessDialect } from "../support/dialects.js";
import { createTestDatabase } from "../support/postgres.js";
import { makeTempDirectory } from "../support/test-server.js";

/** Runs `work`, returning its error (it must fail) and how long it took. */
async function failure(
  work: () => Promise<unknown>,
): Promise<{ err: Error & { code?: string }; elapsedMs: number }> {
  const started = performance.now();
  try {
    await work();
  } catch (err) {
    return { err: err as Error & { code?: string }, elapsedMs: performance.now() - started };
  }
  throw new Error("expected a failure");
}

async function backendPid(database: PostgresDatabase): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db);
  return rows[0]!.pid;
}

describe("PostgreSQL statement budget (OpenOptions.statementTimeoutMs)", {
  skip: unlessDialect("postgres"),
}, () => {
  let url: string;
  const opened: PostgresDatabase[] = [];
  const open = (statementTimeoutMs?: number) => {
    const database = openDatabase(url, { poolSize: 1, statementTimeoutMs }) as PostgresDatabase;
    opened.push(database);
    return database;
  };
  before(async () => {
    url = await createTestDatabase();
  });
  after(async () => {
    for (const database of opened) await database.close();
  });

  it("is absent unless asked for: imports, migrations and the CLI run without a budget", async () => {
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(open().db);
    assert.equal(rows[0]!.statement_timeout, "0");
  });

  it("a statement past the budget is cancelled by the server (57014), answered as unavailable, and the connection kept", async () => {
    const database = open(300);
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db);
    assert.equal(rows[0]!.statement_timeout, "300ms");
    const pid = await backendPid(database);
    const { err, elapsedMs } = await failure(() => sql`select pg_sleep(5)`.execute(database.db));
    assert.equal(err.code, "57014", err.message);
    assert.ok(elapsedMs < 300 + POSTGRES_REPLY_MARGIN_MS, `cancelled after ${elapsedMs} ms`);
    assert.ok(isDatabaseUnavailable(err), "a 503, not a 500");
    // The server's cancel leaves the connection ready for the next query: no reconnect needed.
    assert.equal(await backendPid(database), pid);
  });

  it("a statement left unanswered past budget + margin fails on the client ('Query read timeout'), and its connection is ended, not reused", async () => {
    const database = open(200);
    const pid = await backendPid(database);
    // Stands in for a frozen server: the only connection (poolSize 1) is told to ignore the budget,
    // so that nothing answers before the client's own timeout.
    await sql`set statement_timeout = 0`.execute(database.db);
    const { err, elapsedMs } = await failure(() => sql`select pg_sleep(6)`.execute(database.db));
    assert.equal(err.message, "Query read timeout");
    assert.ok(isDatabaseUnavailable(err), "a 503, not a 500");
    assert.ok(elapsedMs >= 200 + POSTGRES_REPLY_MARGIN_MS - 50, `gave up after ${elapsedMs} ms`);
    assert.ok(elapsedMs < 200 + POSTGRES_REPLY_MARGIN_MS + 500, `gave up after ${elapsedMs} ms`);
    // Reused, the connection would still owe pg_sleep's answer: the next query would wait seconds
    // behind it. Ended, the next query gets a new connection (another backend) at once.
    const started = performance.now();
    assert.notEqual(await backendPid(database), pid);
    assert.ok(performance.now() - started < 1000, `next query took ${performance.now() - started} ms`);
    const { rows } = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(database.db);
    assert.equal(rows[0]!.statement_timeout, "200ms", "the new connection has the budget again");
  });

  it("the same holds for pool.query (the rate limiter's statements)", async () => {
    const database = open(200);
    const pid = (await database.pool.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    await database.pool.query("set statement_timeout = 0");
    const { err } = await failure(() => database.pool.query("select pg_sleep(6)"));
    assert.equal(err.message, "Query read timeout");
    const started = performance.now();
    const next = (await database.pool.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    assert.notEqual(next, pid);
    assert.ok(performance.now() - started < 1000, `next query took ${performance.now() - started} ms`);
  });
});

describe("rate limiter: a lease renewal that fails", () => {
  it("fails every request waiting on it at once, not one renewal after another", async () => {
    const storeErr = new Error("Query read timeout");
    let leases = 0;
    const store: RateLimitStore = {
      async lease() {
        leases++;
        await new Promise((resolve) => setTimeout(resolve, 300));
        throw storeErr;
      },
      async settle() {},
      async purge() {},
    };
    const limiter = new RateLimiter(store);
    const key = { id: 1, unlimited: false, limitPerHour: null } as unknown as ApiKeyRecord;
    const started = performance.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => limiter.check(key, false, "127.0.0.1")),
    );
    const elapsedMs = performance.now() - started;
    for (const outcome of outcomes) {
      assert.equal(outcome.status, "rejected");
      assert.equal((outcome as PromiseRejectedResult).reason, storeErr);
    }
    assert.equal(leases, 1, "one renewal for all six");
    assert.ok(elapsedMs < 600, `all answered after ${elapsedMs} ms`);
    await limiter.close();
  });
});

describe("SQLite statement budget (OpenOptions.statementTimeoutMs)", () => {
  const slow = sql`with recursive counter(n) as (select 1 union all select n + 1 from counter where n < 200000000) select count(*) from counter`;
  let file: string;
  before(async () => {
    file = join(await makeTempDirectory(), "budget.db");
  });

  it("interrupts a statement past the budget (SQLITE_INTERRUPT, a 503), and the connection goes on", async () => {
    const database = openDatabase(file, { statementTimeoutMs: 150 });
    try {
      assert.equal(
        database.dialect === "sqlite" && database.hasStatementBudget,
        true,
        "npm run build made the extension",
      );
      const { err, elapsedMs } = await failure(() => slow.execute(database.db));
      assert.equal(err.code, "SQLITE_INTERRUPT", err.message);
      assert.ok(elapsedMs >= 140 && elapsedMs < 1000, `interrupted after ${elapsedMs} ms`);
      assert.ok(isDatabaseUnavailable(err), "a 503, not a 500");
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      assert.equal(rows[0]!.one, 1);
      // A statement that ends within the budget is never interrupted after it, by a late watchdog.
      for (let round = 0; round < 200; round++) await sql`select 1`.execute(database.db);
    } finally {
      await database.close();
    }
  });

  it("is absent unless asked for", async () => {
    const database = openDatabase(file);
    try {
      const quick = sql`with recursive counter(n) as (select 1 union all select n + 1 from counter where n < 300000) select count(*) as n from counter`;
      const started = performance.now();
      await quick.execute(database.db);
      assert.ok(database.dialect === "sqlite" && !database.hasStatementBudget);
      assert.ok(performance.now() - started > 0);
    } finally {
      await database.close();
    }
  });
});
