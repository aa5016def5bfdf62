/**
 * The store's seam between dialects: what every open database offers, whichever engine it is on.
 * The implementations live in `sqlite/` and `postgres/` (each folder holds the same parts: opening,
 * the complaint writer, the rate-limit store), and `open-database.ts` picks one; nothing here
 * imports them.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type pg from "pg";
import type { PageRendering } from "../domain/complaint-envelope.js";
import type { ComplaintWriter } from "./complaint-writer.js";
import type { RateLimitStore } from "./rate-limit-store.js";
import type { ReadSnapshot } from "./read-snapshot.js";
import type { CounterSchema, Schema } from "./schema.js";

/** How long a read of SQLite's `PRAGMA data_version` stands for the file's (`dataVersion`). */
export const DATA_VERSION_READ_MS = 3;

/** A lane's figures, for the metrics. */
export interface ReadLaneFigures {
  readonly lane: "quick" | "long";
  readonly threads: number;
  /** Threads running a statement now. */
  readonly busy: number;
  /** Statements waiting for a thread. */
  readonly waiting: number;
  /** Statements this lane has run since the pool opened (in the long lane, each was moved there). */
  readonly statements: number;
}

/** The read threads' figures, for the metrics. */
export interface ReadPoolFigures {
  readonly lanes: readonly ReadLaneFigures[];
  /**
   * Reads the event loop's own connection ran instead: inside a read transaction (the counts' few
   * reads that must see one snapshot), or a read the routing missed; no page needs one.
   */
  readonly loopReads: number;
  /** Reads run on the event loop's own read-only connection while it was idle (`SqliteReadPool`). */
  readonly idleLoopReads: number;
  /**
   * Of those, the reads that outran the idle loop's budget and were run again by a thread; after
   * each, the idle loop runs no read for a while (`SqliteReadPool`).
   */
  readonly idleLoopInterrupted: number;
}

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
  /**
   * Runs one small write that may wait (a sign-up's key) without ever blocking the event loop
   * while another process holds the write lock: SQLite retries on a timer and gives up with
   * SQLITE_BUSY after a few seconds (a 503); PostgreSQL's driver never blocks the loop.
   */
  writeWithoutWaiting<Row>(query: Compilable<Row> & { execute(): Promise<Row[]> }): Promise<Row | undefined>;
  /**
   * Runs a compiled select and returns its rows as arrays of the selected columns' values, in select order:
   * no object per row (on SQLite, making 50 rows of 9 columns objects cost as much as finding them).
   * Under the same statement budget as the Kysely instance.
   */
  selectRows(query: CompiledQuery): Promise<unknown[][]>;
  /**
   * The page of `selectRows`' rows, written as `rendering` says (UTF-8) where they were read: on
   * SQLite's read workers, off the event loop; elsewhere here.
   */
  selectRendered(query: CompiledQuery, rendering: PageRendering): Promise<Uint8Array>;
  /**
   * The indexes of `tables` other than primary keys and unique ones, each with the statement that
   * creates it as the migrations made it: a load into an empty table drops them and builds them
   * once at its end.
   */
  secondaryIndexes(tables: readonly string[]): Promise<IndexDefinition[]>;
  /** A writer of complaints on this database, with the dialect's fastest bulk path. */
  complaintWriter(): ComplaintWriter;
  /** The rate limiter's counters on this database (on SQLite, in the counter file beside it). */
  rateLimitStore(): RateLimitStore;
  /** A consistent view of the database on a connection of its own, for a long read (an export). */
  openReadSnapshot(): Promise<ReadSnapshot>;
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

/** An index as the database describes it (`secondaryIndexes`). */
export interface IndexDefinition {
  readonly name: string;
  /** The statement that creates it. */
  readonly create: string;
}

/** An open counter file: the driver for the rate limiter's prepared statements, Kysely for the rest. */
export interface CounterFile {
  readonly file: string;
  readonly sqlite: BetterSqlite3.Database;
  readonly db: Kysely<CounterSchema>;
  close(): Promise<void>;
}

/** The embedded default: one SQLite file, shared by processes through its WAL. */
export interface SqliteDatabase extends DatabaseBase {
  readonly dialect: "sqlite";
  /** The driver, for the bulk writer's prepared statements. */
  readonly sqlite: BetterSqlite3.Database;
  /** The counter file (`<file>-counters`), opened on first use; the rate limiter counts there. */
  counters(): CounterFile;
  /**
   * `PRAGMA data_version`: changes whenever another connection commits to the file, read at most
   * every few milliseconds (`DATA_VERSION_READ_MS`, 3), since it is asked on every request.
   */
  dataVersion(): number;
  /** The read threads' figures (`OpenOptions.readThreads`); undefined when reads run on the event loop. */
  readPool(): ReadPoolFigures | undefined;
  /** Whether statements run under `OpenOptions.statementTimeoutMs` (false without it, or when the extension was not built). */
  readonly hasStatementBudget: boolean;
  /**
   * Whether every connection has `ftcapi_bucket_counts` (native/bucket-counts.c: rows counted per
   * hour without SQLite's sort; false when the extension was not built).
   */
  readonly hasBucketCounts: boolean;
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

export interface OpenOptions {
  /** PostgreSQL connections in the pool. */
  poolSize?: number;
  /**
   * The time budget of each statement, in milliseconds, for a process that answers requests
   * (`serve`); undefined (imports, migrations, the other commands): no budget, since a COPY of
   * millions of rows or an index build takes minutes.
   *
   * SQLite: a watchdog thread interrupts a statement of the connection's Kysely that runs longer
   * (SQLITE_INTERRUPT; see `sqlite/statement-budget.ts`), so it holds the event loop no longer than
   * the budget. PostgreSQL: the server cancels a statement that runs longer (SQLSTATE 57014), and the client
   * gives up on a statement still unanswered `POSTGRES_REPLY_MARGIN_MS` after the budget ("Query
   * read timeout": a frozen, partitioned or overloaded server), and drops that connection. Both
   * errors count as the database being unavailable (`isDatabaseUnavailable`), so a request that
   * needs the database is answered 503 within budget + margin at most per statement.
   */
  statementTimeoutMs?: number;
  /**
   * SQLite: how many worker threads run the selects of this process off the event loop (see
   * `sqlite/open-sqlite.ts`): at least 2, one of them for statements that outrun the quick lane's
   * budget; 0 or undefined, selects run on the event loop. Ignored by PostgreSQL, whose driver
   * never blocks the loop.
   */
  readThreads?: number;
  /**
   * SQLite: the page cache of the process's own connection, in KiB. By default 2 MB with read
   * threads (the connection then reads little: counts, the notices' snapshot, and writes), else
   * 64 MB, since every read of the server runs on it.
   */
  cacheKib?: number;
  /** SQLite, with `readThreads`: the quick lane's budget per statement (default `QUICK_READ_BUDGET_MS`). */
  quickReadBudgetMs?: number;
  /**
   * SQLite, with `readThreads`: the page cache of each quick-lane thread's connection and of the
   * idle loop's, in KiB (default `READ_THREAD_CACHE_KIB`); the long lane's is at most 1 MB.
   */
  readThreadCacheKib?: number;
}

/**
 * The default page cache of each read thread's connection, in KiB: small, so that a process stays
 * within its memory budget; the file system caches the rest (docs/deployment.md, Operations).
 */
export const READ_THREAD_CACHE_KIB = 4_096;

/**
 * The quick lane's default budget per statement, in milliseconds. Every statement ftcapi's design
 * bounds (docs/query-design.md) takes well under it; one that outruns it is costly (a filter no
 * index or count table answers) and is run again in the long lane.
 */
export const QUICK_READ_BUDGET_MS = 25;

/**
 * How long past the statement budget the client still waits for an answer: the server's own
 * cancellation (checked between rows, sent back as an error) normally arrives within milliseconds of
 * the budget; one that has not come a second later will not come from a server that works.
 */
export const POSTGRES_REPLY_MARGIN_MS = 1000;
