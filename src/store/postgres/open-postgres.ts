import { hash } from "node:crypto";
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from "kysely";
import pg from "pg";
import { renderPage } from "../../domain/complaint-envelope.js";
import { commitLedger } from "../collection-version.js";
import { type OpenOptions, POSTGRES_REPLY_MARGIN_MS, type PostgresDatabase } from "../database.js";
import type { CounterSchema, Schema } from "../schema.js";
import { isDatabaseReady, isQueryReadTimeout } from "../unavailable.js";
import { PostgresComplaintWriter } from "./complaint-writer.js";
import { openPostgresReadSnapshot } from "./postgres-read-snapshot.js";
import { PostgresRateLimitStore } from "./rate-limit-store.js";
import { postgresSecondaryIndexes } from "./secondary-indexes.js";

// Counts, sums and times are 64-bit in PostgreSQL; every value ftcapi keeps fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => Number(text));

/** Opens a PostgreSQL database as the store (see `openDatabase`). */
export function openPostgres(url: string, options: OpenOptions): PostgresDatabase {
  const budget = options.statementTimeoutMs;
  // Fail fast when the server is away: a request should get 503 within a second, not hang. The
  // same timeout bounds the wait for a free connection when every one is busy.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 1000,
    idleTimeoutMillis: 30_000,
    // An idle connection to a host that vanished (no FIN, no RST) is found dead by TCP keep-alive
    // and dropped by the pool, instead of by the first request that tries it. A frozen server's
    // kernel still answers the probes: there, query_timeout is what bounds a request.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Every statement planned for its own values, named (`preparedNames`) or not: a named one would
    // otherwise switch to a generic plan after five runs, which for these skewed filters cost the
    // server more than planning (1.7 to 1.8 ms a distinct page against 1.4 unnamed).
    options: "-c plan_cache_mode=force_custom_plan",
    // Sent at connection start, so it covers every statement on the connection, including lock
    // waits (the rate limiter's advisory lock) and the statements of `pool.query`.
    ...(budget === undefined
      ? {}
      : { statement_timeout: budget, query_timeout: budget + POSTGRES_REPLY_MARGIN_MS }),
  });
  // A dropped connection must not crash the process; the next query reports the failure.
  pool.on("error", () => {});
  const named = preparedNames();
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: droppingTimedOut(pool, named) }) });
  const shown = new URL(url);
  shown.password = "";
  const database: PostgresDatabase = {
    db,
    dialect: "postgres",
    pool,
    ...commitLedger(),
    location: shown.toString(),
    // The counter tables are plain tables of the database (migration 001).
    counterDb: () => db as unknown as Kysely<CounterSchema>,
    ready: () => isDatabaseReady(() => sql`select 1`.execute(db)),
    async close() {
      await db.destroy();
      // Kysely ends the pool only if it ran a query; one used only through `pool` is ended here.
      if (!pool.ending) await pool.end();
    },
    selectRows: async (query) => {
      const { sql: text, parameters } = query;
      // pool.query hands a timed-out connection back with its error, so the pool ends it.
      return (await pool.query({ name: named(text), text, values: [...parameters], rowMode: "array" })).rows;
    },
    selectRendered: async (query, rendering) => renderPage(await database.selectRows(query), rendering),
    writeWithoutWaiting: async (query) => (await query.execute())[0],
    secondaryIndexes: (tables) => postgresSecondaryIndexes(pool, tables),
    complaintWriter: () => new PostgresComplaintWriter(database),
    rateLimitStore: () => new PostgresRateLimitStore(database),
    openReadSnapshot: () => openPostgresReadSnapshot(pool),
  };
  return database;
}

/**
 * The pool as Kysely takes it, ending instead of reusing a connection on which a query timed out
 * on the client side. pg rejects such a query ("Query read timeout") but leaves it outstanding on
 * the connection: a later query there would queue behind an answer that may never come, or read
 * the stale one. `pool.query` releases a connection with the query's error, which makes the pool
 * end it (pg's `end()` destroys the socket of a connection with a query outstanding); Kysely
 * releases without one, so the error is handed to `release` here.
 */
function droppingTimedOut(pool: pg.Pool, named: (text: string) => string | undefined): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let timedOut: Error | undefined;
      const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
        try {
          return await client.query({ name: named(text), text, values: [...parameters] });
        } catch (err) {
          if (isQueryReadTimeout(err)) timedOut = err as Error;
          throw err;
        }
      };
      // Only the (text, parameters) form: no cursor is configured on the dialect, so Kysely never
      // passes one (the other overload).
      return {
        query: query as unknown as PostgresPoolClient["query"],
        release: () => client.release(timedOut),
      };
    },
    end: () => pool.end(),
  };
}

/** Statements a database's connections keep prepared by name, at most, and the longest text named. */
const PREPARED_STATEMENTS = 256;
const PREPARED_TEXT_CHARACTERS = 8 * 1024;

/**
 * The name under which each connection prepares a read statement once and then only binds and
 * executes it, or undefined for a statement sent unnamed (parsed and planned every time). An
 * unnamed statement's parse and plan cost the server more than running it: at 20 million
 * complaints a page's statement took 0.35 to 1.8 ms to parse and bind against 0.2 to 0.8 ms to run.
 * Named, the server spent 1.06 to 1.34 ms of processor time a distinct complaint page against 1.10 to 1.41
 * unnamed (steady state, alternating). Only reads are named (`select`, `with`), at most `PREPARED_STATEMENTS` texts for all
 * connections, each up to `PREPARED_TEXT_CHARACTERS`: each server process keeps every statement a
 * connection prepared, with its plans, for the connection's life.
 */
function preparedNames(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name !== undefined) return name;
    if (
      names.size >= PREPARED_STATEMENTS ||
      text.length > PREPARED_TEXT_CHARACTERS ||
      !/^\s*(select|with)\b/i.test(text)
    )
      return undefined;
    name = `ftcapi_${hash("sha1", text, "base64url").slice(0, 24)}`;
    names.set(text, name);
    return name;
  };
}
