import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import {
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  SqliteDialect,
  sql,
} from "kysely";
import pg from "pg";
import { type CounterFile, type CounterSchema, counterFileOf, openCounterFile } from "./counter-file.js";
import type { Schema } from "./schema.js";
import { type DriverStatement, StatementBudget } from "./sqlite-statement-budget.js";
import { isDatabaseReady, isQueryReadTimeout } from "./unavailable.js";

interface DatabaseBase {
  readonly db: Kysely<Schema>;
  /** The SQLite file (absolute), or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * Where the per-request counters (`rate_buckets`, `key_usage`) are: on SQLite the counter file
   * beside the database (opened, created and migrated on first use), on PostgreSQL the database.
   */
  counterDb(): Kysely<CounterSchema>;
  /**
   * Notes a commit this process made that changed `collection` (writers call it after committing):
   * SQLite's data_version does not change for a connection's own commits, and PostgreSQL's versions
   * are polled, so readers of this process learn of it here at once.
   */
  noteCommit(collection: string): void;
  /** How many commits changing `collection` this process has noted on this database. */
  localCommits(collection: string): number;
  /** True when a trivial query succeeds within a second. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Page cache while a file is written, in KiB. Rows come mostly in created order, so a first load
 * appends and a small cache loses nothing (2 million rows: the same time with 8, 16 or 64 MB); a
 * load into a large table updates its indexes at random places, which no cache that stays small
 * next to the table holds either (200,000 rows into 2 million: 13.5 s with 16 MB, 13.3 s with 64).
 * Writers put the connection's own cache back when the write ends.
 */
export const WRITE_CACHE_KIB = 16_384;

/** The embedded default: one SQLite file, shared by processes through its WAL. */
export interface SqliteDatabase extends DatabaseBase {
  readonly dialect: "sqlite";
  /** The driver, for the bulk writer's prepared statements. */
  readonly sqlite: BetterSqlite3.Database;
  /** The counter file (`<file>-counters`), opened on first use; the rate limiter counts there. */
  counters(): CounterFile;
  /**
   * `PRAGMA data_version`: changes whenever another connection commits to the file. A prepared
   * statement, since it is read on every request (`pragma()` prepares one on each call).
   */
  dataVersion(): number;
  /** Whether statements run under `OpenOptions.statementTimeoutMs` (false without it, or when the extension was not built). */
  readonly hasStatementBudget: boolean;
}

/** A PostgreSQL server, for several processes and machines. */
export interface PostgresDatabase extends DatabaseBase {
  readonly dialect: "postgres";
  /** The pool, for COPY. */
  readonly pool: pg.Pool;
}

/** An open store: Kysely over one of the two dialects, plus the driver for dialect-specific bulk work. */
export type Database = SqliteDatabase | PostgresDatabase;

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** True when `location` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return POSTGRES_URL.test(location);
}

// Counts, sums and times are 64-bit in PostgreSQL; every value ftcapi keeps fits a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => Number(text));

export interface OpenOptions {
  /** PostgreSQL connections in the pool. */
  poolSize?: number;
  /**
   * The time budget of each statement, in milliseconds, for a process that answers requests
   * (`serve`); undefined (imports, migrations, the other commands): no budget, since a COPY of
   * millions of rows or an index build takes minutes.
   *
   * SQLite: a watchdog thread interrupts a statement of the connection's Kysely that runs longer
   * (SQLITE_INTERRUPT; see `sqlite-statement-budget.ts`), so it holds the event loop no longer than
   * the budget. PostgreSQL: the server cancels a statement that runs longer (SQLSTATE 57014), and the client
   * gives up on a statement still unanswered `POSTGRES_REPLY_MARGIN_MS` after the budget ("Query
   * read timeout": a frozen, partitioned or overloaded server), and drops that connection. Both
   * errors count as the database being unavailable (`isDatabaseUnavailable`), so a request that
   * needs the database is answered 503 within budget + margin at most per statement.
   */
  statementTimeoutMs?: number;
}

/**
 * How long past the statement budget the client still waits for an answer: the server's own
 * cancellation (checked between rows, sent back as an error) normally arrives within milliseconds of
 * the budget; one that has not come a second later will not come from a server that works.
 */
export const POSTGRES_REPLY_MARGIN_MS = 1000;

/**
 * Opens the store at `location`: a `postgres://` URL, or a SQLite file path (created with its
 * directory if needed). WAL mode lets SQLite keep serving while an importer in another process writes;
 * the counters every request writes are in a separate file (see `counterFileOf`), so they never wait
 * for an importer's write lock on this one.
 */
export function openDatabase(location: string, options: OpenOptions = {}): Database {
  if (isPostgresUrl(location)) return openPostgres(location, options);
  const file = resolve(location);
  mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("temp_store = MEMORY");
  const budget = options.statementTimeoutMs === undefined ? undefined : StatementBudget.load(sqlite);
  budget?.set(options.statementTimeoutMs ?? 0);
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, budget) }),
  });
  let counterFile: CounterFile | undefined;
  const counters = () => {
    counterFile ??= openCounterFile(counterFileOf(file), sqlite);
    return counterFile;
  };
  const dataVersion = sqlite.prepare("pragma data_version").pluck();
  return {
    db,
    dialect: "sqlite",
    sqlite,
    dataVersion: () => Number(dataVersion.get()),
    hasStatementBudget: budget !== undefined,
    ...commitLedger(),
    location: file,
    counters,
    counterDb: () => counters().db,
    ready: () =>
      isDatabaseReady(async () => {
        await sql`select 1`.execute(db);
        if (counterFile) await sql`select 1`.execute(counterFile.db);
      }),
    async close() {
      await counterFile?.close();
      await db.destroy();
    },
  };
}

/**
 * The driver as Kysely sees it, with prepared statements kept by their SQL: Kysely prepares every
 * query anew, which costs more than running most of ftcapi's (a few hundred distinct texts).
 */
/** `noteCommit` and `localCommits`, counted per open database. */
function commitLedger(): Pick<DatabaseBase, "noteCommit" | "localCommits"> {
  const commits = new Map<string, number>();
  return {
    noteCommit: (collection) => {
      commits.set(collection, (commits.get(collection) ?? 0) + 1);
    },
    localCommits: (collection) => commits.get(collection) ?? 0,
  };
}

function withStatementCache(sqlite: BetterSqlite3.Database, budget: StatementBudget | undefined) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const cached = (text: string): BetterSqlite3.Statement => {
    const known = statements.get(text);
    if (known && !known.busy) return known;
    const statement = sqlite.prepare(text);
    if (statements.size >= 2000) statements.clear();
    statements.set(text, statement);
    return statement;
  };
  return {
    prepare(text: string): DriverStatement {
      const statement = cached(text);
      return budget ? budget.wrap(statement) : (statement as unknown as DriverStatement);
    },
    close(): void {
      sqlite.close();
    },
  };
}

function openPostgres(url: string, options: OpenOptions): PostgresDatabase {
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
    // Sent at connection start, so it covers every statement on the connection, including lock
    // waits (the rate limiter's advisory lock) and the statements of `pool.query`.
    ...(budget === undefined
      ? {}
      : { statement_timeout: budget, query_timeout: budget + POSTGRES_REPLY_MARGIN_MS }),
  });
  // A dropped connection must not crash the process; the next query reports the failure.
  pool.on("error", () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: droppingTimedOut(pool) }) });
  const shown = new URL(url);
  shown.password = "";
  return {
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
  };
}

/**
 * The pool as Kysely takes it, ending instead of reusing a connection on which a query timed out
 * on the client side. pg rejects such a query ("Query read timeout") but leaves it outstanding on
 * the connection: a later query there would queue behind an answer that may never come, or read
 * the stale one. `pool.query` releases a connection with the query's error, which makes the pool
 * end it (pg's `end()` destroys the socket of a connection with a query outstanding); Kysely
 * releases without one, so the error is handed to `release` here.
 */
function droppingTimedOut(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let timedOut: Error | undefined;
      const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
        try {
          return await client.query(text, [...parameters]);
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
