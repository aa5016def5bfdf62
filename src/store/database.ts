import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { type CounterFile, type CounterSchema, counterFileOf, openCounterFile } from "./counter-file.js";
import type { Schema } from "./schema.js";
import { isDatabaseReady } from "./unavailable.js";

interface DatabaseBase {
  readonly db: Kysely<Schema>;
  /** The SQLite file (absolute), or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * Where the per-request counters (`rate_buckets`, `key_usage`) are: on SQLite the counter file
   * beside the database (opened, created and migrated on first use), on PostgreSQL the database.
   */
  counterDb(): Kysely<CounterSchema>;
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
}

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
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
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
function withStatementCache(sqlite: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(text: string): BetterSqlite3.Statement {
      const known = statements.get(text);
      if (known && !known.busy) return known;
      const statement = sqlite.prepare(text);
      if (statements.size >= 2000) statements.clear();
      statements.set(text, statement);
      return statement;
    },
    close(): void {
      sqlite.close();
    },
  };
}

function openPostgres(url: string, options: OpenOptions): PostgresDatabase {
  // Fail fast when the server is away: a request should get 503 within a second, not hang.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 1000,
    idleTimeoutMillis: 30_000,
  });
  // A dropped connection must not crash the process; the next query reports the failure.
  pool.on("error", () => {});
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  const shown = new URL(url);
  shown.password = "";
  return {
    db,
    dialect: "postgres",
    pool,
    location: shown.toString(),
    // The counter tables are plain tables of the database (migration 001).
    counterDb: () => db as unknown as Kysely<CounterSchema>,
    ready: () => isDatabaseReady(() => sql`select 1`.execute(db)),
    async close() {
      await db.destroy();
    },
  };
}
