import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
  sql,
  type TransactionSettings,
} from "kysely";
import { type PageRendering, renderPage } from "../../domain/complaint-envelope.js";
import { commitLedger } from "../collection-version.js";
import {
  type CounterFile,
  DATA_VERSION_READ_MS,
  type OpenOptions,
  QUICK_READ_BUDGET_MS,
  READ_THREAD_CACHE_KIB,
  type ReadLaneFigures,
  type ReadPoolFigures,
  type SqliteDatabase,
} from "../database.js";
import type { Schema } from "../schema.js";
import { startWorker } from "../start-worker.js";
import { isDatabaseReady } from "../unavailable.js";
import { SqliteComplaintWriter } from "./complaint-writer.js";
import { counterFileOf, openCounterFile } from "./counter-file.js";
import { createPrivateFile } from "./create-private-file.js";
import { KeptStatements } from "./kept-statements.js";
import { loadNativeExtension } from "./native-extension.js";
import { SqliteRateLimitStore } from "./rate-limit-store.js";
import {
  type ReadAnswer,
  ReadConnection,
  type ReadConnectionOptions,
  type ReadRequest,
  resultOf,
} from "./read-connection.js";
import { sqliteSecondaryIndexes } from "./secondary-indexes.js";
import { openSqliteReadSnapshot } from "./sqlite-read-snapshot.js";
import { type DriverStatement, StatementBudget } from "./statement-budget.js";
import { writeWithoutWaiting } from "./write-without-waiting.js";

/** The connection that writes (and, without read threads, reads): created private, in WAL mode. */
function openMainConnection(file: string, options: OpenOptions): BetterSqlite3.Database {
  mkdirSync(dirname(file), { recursive: true });
  createPrivateFile(file);
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma(`cache_size = -${options.cacheKib ?? (options.readThreads ? 2_048 : 65_536)}`);
  sqlite.pragma("temp_store = MEMORY");
  return sqlite;
}

/**
 * The file's `data_version` as the connection sees it, read at most once per
 * `DATA_VERSION_READ_MS`: a request asks several times (its caches, its store, Last-Modified), and
 * each read opens a read transaction on the file (file locks, about 30 µs under load, 3 to 5% of a
 * request), while another process's commit seen 3 ms later is seen as promptly as any client can
 * tell.
 */
function dataVersionOf(sqlite: BetterSqlite3.Database): () => number {
  const statement = sqlite.prepare("pragma data_version").pluck();
  let seen = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - readAt >= DATA_VERSION_READ_MS) {
      seen = Number(statement.get());
      readAt = now;
    }
    return seen;
  };
}

/** Opens a SQLite file as the store (see `openDatabase`). */
export function openSqlite(location: string, options: OpenOptions): SqliteDatabase {
  const file = resolve(location);
  const sqlite = openMainConnection(file, options);
  const budget =
    options.statementTimeoutMs === undefined
      ? undefined
      : StatementBudget.load(sqlite, options.statementTimeoutMs);
  // The read threads' connections load it too (read-connection.ts): it is there on all or on none.
  const hasBucketCounts = loadNativeExtension(sqlite, "bucket-counts");
  const dialectConfig = { database: withStatementCache(sqlite, budget) };
  const readPool =
    options.readThreads === undefined || options.readThreads === 0
      ? undefined
      : new SqliteReadPool(
          file,
          options.readThreads,
          options.statementTimeoutMs,
          options.quickReadBudgetMs ?? QUICK_READ_BUDGET_MS,
          options.readThreadCacheKib ?? READ_THREAD_CACHE_KIB,
        );
  const db = new Kysely<Schema>({
    dialect: readPool
      ? new ReadRoutingSqliteDialect(dialectConfig, readPool)
      : new SqliteDialect(dialectConfig),
  });
  const rowStatements = withStatementCache(sqlite, budget, true);
  let counterFile: CounterFile | undefined;
  const counters = () => {
    counterFile ??= openCounterFile(counterFileOf(file), sqlite);
    return counterFile;
  };
  const dataVersion = dataVersionOf(sqlite);
  const database: SqliteDatabase = {
    db,
    dialect: "sqlite",
    sqlite,
    dataVersion,
    hasStatementBudget: budget !== undefined,
    hasBucketCounts,
    readPool: () => readPool?.figures(),
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
    selectRows: async (query) => {
      const { sql: text, parameters } = query;
      if (readPool) return (await readPool.select(text, parameters, true)) as unknown[][];
      return rowStatements.prepare(text).all(parameters) as unknown[][];
    },
    selectRendered: async (query, rendering) => {
      if (readPool) return readPool.selectRendered(query.sql, query.parameters, rendering);
      return renderPage(await database.selectRows(query), rendering);
    },
    writeWithoutWaiting: (query) => writeWithoutWaiting(database, query),
    secondaryIndexes: async (tables) => sqliteSecondaryIndexes(sqlite, tables),
    complaintWriter: () => new SqliteComplaintWriter(database),
    rateLimitStore: () => new SqliteRateLimitStore(database),
    openReadSnapshot: async () => openSqliteReadSnapshot(file, options.statementTimeoutMs),
  };
  return database;
}

/**
 * The driver as Kysely sees it, with prepared statements kept by their SQL: Kysely prepares every
 * query anew, which costs more than running most of ftcapi's (a few hundred distinct texts).
 * `rowsAsArrays`: statements in better-sqlite3's raw mode, for `selectRows`.
 */
function withStatementCache(
  sqlite: BetterSqlite3.Database,
  budget: StatementBudget | undefined,
  rowsAsArrays = false,
) {
  // Each statement is kept with its budgeted form, made once.
  const statements = new KeptStatements<{ statement: BetterSqlite3.Statement; driver: DriverStatement }>();
  return {
    prepare(text: string): DriverStatement {
      const known = statements.get(text);
      if (known && !known.statement.busy) return known.driver;
      const statement = sqlite.prepare(text);
      if (rowsAsArrays) statement.raw(true);
      const driver = budget ? budget.wrap(statement) : (statement as unknown as DriverStatement);
      statements.set(text, { statement, driver });
      return driver;
    },
    close(): void {
      sqlite.close();
    },
  };
}

/**
 * The young generation of each read worker's heap, in MB: what it allocates (rows, a page's text)
 * lives for one statement, so a small one is collected as cheaply and keeps the process's memory
 * within its budget (docs/deployment.md, Operations).
 */
const READ_WORKER_YOUNG_GENERATION_MB = 6;

interface Job {
  readonly request: ReadRequest;
  readonly resolve: (result: unknown[] | Uint8Array) => void;
  readonly reject: (err: Error) => void;
}

/**
 * Statements a read thread is handed ahead of its answers. A thread woken for each statement costs
 * the event loop a wake-up of the thread (an `eventfd` write, expensive under virtualisation) and
 * the thread one sleep per statement; handed several, it runs them back to back and its answers
 * arrive together. Each statement still runs under its lane's budget, so one queued behind another
 * waits at most that long.
 */
const STATEMENTS_AHEAD = 32;

/** One thread with its connection, running its jobs in the order they were handed to it. */
class ReadThread {
  private worker: Worker;
  /** Handed to the worker and not answered yet, in the order it answers them. */
  private readonly jobs: Job[] = [];

  constructor(
    private readonly options: ReadConnectionOptions,
    private readonly onAnswer: (thread: ReadThread) => void,
  ) {
    this.worker = this.start();
  }

  /** Jobs handed to the thread and not answered yet. */
  get load(): number {
    return this.jobs.length;
  }

  get hasRoom(): boolean {
    return this.jobs.length < STATEMENTS_AHEAD;
  }

  run(job: Job): void {
    if (this.jobs.length === 0) this.worker.ref();
    this.jobs.push(job);
    this.worker.postMessage(job.request);
  }

  terminate(): Promise<number> {
    this.worker.removeAllListeners();
    return this.worker.terminate();
  }

  private start(): Worker {
    const worker = startWorker("sqlite/read-worker", {
      workerData: this.options,
      resourceLimits: { maxYoungGenerationSizeMb: READ_WORKER_YOUNG_GENERATION_MB },
    });
    worker.on("message", (answer: ReadAnswer) => {
      // The worker answers one message at a time, in the order it was sent them.
      const job = this.jobs.shift();
      if (this.jobs.length === 0) worker.unref();
      try {
        job?.resolve(resultOf(answer));
      } catch (err) {
        job?.reject(err as Error);
      }
      this.onAnswer(this);
    });
    worker.on("error", (err) => this.replace(err));
    worker.on("exit", () => this.replace(new Error("a SQLite read worker stopped")));
    // A pool keeps its process alive only while a job is out (`run`): an idle pool, or one never
    // closed, does not. After the listeners, since adding a "message" listener references the
    // worker's port again (a pool closed before its workers had answered once then kept its process
    // from exiting).
    worker.unref();
    return worker;
  }

  /** A worker that failed is replaced; its jobs fail as an unavailable database (a 503). */
  private replace(err: Error): void {
    this.worker.removeAllListeners();
    const failed = Object.assign(new Error(`SQLite read worker: ${err.message}`), { code: "SQLITE_IOERR" });
    for (const job of this.jobs.splice(0)) job.reject(failed);
    this.worker = this.start();
    this.onAnswer(this);
  }
}

/** Threads sharing one queue, first come first served; a job goes to the least loaded thread with room. */
class Lane {
  private readonly queue: Job[] = [];
  private readonly threads: ReadThread[];
  private statements = 0;

  constructor(
    private readonly name: ReadLaneFigures["lane"],
    options: ReadConnectionOptions,
    threads: number,
  ) {
    this.threads = Array.from(
      { length: threads },
      () => new ReadThread(options, (thread) => this.next(thread)),
    );
  }

  figures(): ReadLaneFigures {
    return {
      lane: this.name,
      threads: this.threads.length,
      busy: this.threads.filter((thread) => thread.load > 0).length,
      // Jobs handed to a thread behind the one it runs wait as well.
      waiting:
        this.queue.length + this.threads.reduce((sum, thread) => sum + Math.max(0, thread.load - 1), 0),
      statements: this.statements,
    };
  }

  /** True when none of its threads has a statement and none waits. */
  get idle(): boolean {
    return this.queue.length === 0 && this.threads.every((thread) => thread.load === 0);
  }

  run(request: ReadRequest): Promise<unknown[] | Uint8Array> {
    this.statements++;
    return new Promise((resolve, reject) => {
      const job = { request, resolve, reject };
      const thread = this.leastLoaded();
      if (thread) thread.run(job);
      else this.queue.push(job);
    });
  }

  async close(): Promise<void> {
    const closed = new Error("the database is closed");
    for (const job of this.queue.splice(0)) job.reject(closed);
    await Promise.all(this.threads.map((thread) => thread.terminate()));
  }

  private leastLoaded(): ReadThread | undefined {
    let best: ReadThread | undefined;
    for (const thread of this.threads)
      if (thread.hasRoom && (best === undefined || thread.load < best.load)) best = thread;
    return best;
  }

  private next(thread: ReadThread): void {
    while (thread.hasRoom) {
      const job = this.queue.shift();
      if (job === undefined) return;
      thread.run(job);
    }
  }
}

/**
 * What a run of reads on the idle event loop may take, in milliseconds, before the loop has waited
 * for events again: enough for a request's few statements, little enough that a request arriving
 * meanwhile waits no longer than a thread's wake-up would have cost it.
 */
const IDLE_LOOP_ALLOWANCE_MS = 1;

/**
 * The budget of one read on the idle event loop: past it, it is interrupted and run by a thread.
 * A read that outruns it costs its request the budget and the thread's own reading of the same
 * pages; a request that arrives while it runs waits at most the budget. At 2 ms (until
 * 2026-12-06) the first requests of random filter combinations at 20 million complaints, one
 * client over HTTP, took p90 7.5 to 8.1 ms and p99 14.0 to 14.2; at 6 ms, 5.9 to 6.4 and 11.3 to
 * 11.4 (docs/performance.md). Under load the loop is never idle, and nothing runs on it.
 */
const IDLE_LOOP_BUDGET_MS = 6;

/**
 * How long the idle loop runs no read after the answer of one that outran its budget there (run
 * again by a thread): the reads that follow are most likely the same costly request's next
 * statements (a place's and subject's count, then its page), each of which would otherwise spend
 * the idle loop's budget again before a thread ran it.
 */
const IDLE_LOOP_PAUSE_MS = 50;

/**
 * The long lane's page cache at most, in KiB. Its statements are the costly ones, which read more
 * pages than any cache of a process's budget holds and find the rest in the file system's cache;
 * the quick lane and the idle loop, whose statements seek, keep the read threads' cache (the idle
 * loop answers a lone client's first requests). 1 MB instead of 4 for both the long lane and the
 * idle loop took about 3 MB off a worker's peak under the distinct workload at 20 million
 * complaints, in one run; the long lane's share of that was not measured apart.
 */
const LONG_LANE_CACHE_KIB = 1_024;

/** Whether a read was stopped past its connection's budget (`SQLITE_INTERRUPT`). */
function wasInterrupted(answer: ReadAnswer): boolean {
  return "error" in answer && answer.error.code === "SQLITE_INTERRUPT";
}

/** Time the event loop must have waited for events since the last read, to count as idle. */
const LOOP_WAITED_MS = 0.02;

/**
 * SQLite reads off the event loop: selects run on worker threads, each with a read-only
 * connection to the file, so a costly statement never holds the loop that answers every other
 * request. Two lanes keep cheap requests cheap beside costly ones: every select starts in the
 * quick lane under a short budget (`QUICK_READ_BUDGET_MS` by default); one that outruns it is interrupted there and run again in
 * the long lane (one thread) under the request budget, so costly statements queue behind each
 * other, not in front of cheap ones.
 *
 * A server with nothing else to do pays for that in latency: two thread wake-ups per statement,
 * each costly under virtualisation, which tripled a lone client's wait for a page. So while the
 * loop is idle (it waited for events since the last read, and the quick lane has no statement), a
 * read runs on a read-only connection of the loop's own, for at most `IDLE_LOOP_ALLOWANCE_MS` of
 * reads before the loop waits again, each under `IDLE_LOOP_BUDGET_MS`; one that outruns it is
 * interrupted and handed to the quick lane, and the idle loop then runs no read until
 * `IDLE_LOOP_PAUSE_MS` after its answer. Under load the loop never counts as idle, and every
 * read goes to the threads as before.
 */
export class SqliteReadPool {
  private readonly quick: Lane;
  private readonly long: Lane;
  private loopReads = 0;
  private readonly idleLoop: ReadConnection | undefined;
  private idleLoopReads = 0;
  private idleLoopInterrupted = 0;
  private idleLoopPausedUntilMs = 0;
  private idleSeenMs = performance.eventLoopUtilization().idle;
  private allowanceMs = 0;

  /**
   * `threads` (at least 2): all but one serve the quick lane, one the long lane.
   * `budgetMs`: the request budget of each statement (undefined: unbounded); `quickBudgetMs`, the
   * quick lane's.
   */
  constructor(
    file: string,
    threads: number,
    budgetMs: number | undefined,
    quickBudgetMs: number,
    cacheKib: number,
  ) {
    if (threads < 2)
      throw new Error("a SQLite read pool needs at least 2 threads (a quick lane and a long one)");
    const quickLaneBudgetMs = budgetMs === undefined ? quickBudgetMs : Math.min(quickBudgetMs, budgetMs);
    this.quick = new Lane("quick", { file, budgetMs: quickLaneBudgetMs, cacheKib }, threads - 1);
    this.long = new Lane("long", { file, budgetMs, cacheKib: Math.min(cacheKib, LONG_LANE_CACHE_KIB) }, 1);
    const idleLoop = new ReadConnection({
      file,
      budgetMs: Math.min(IDLE_LOOP_BUDGET_MS, quickLaneBudgetMs),
      cacheKib,
    });
    // Without the budget's extension (not built), nothing would bound a read on the loop.
    if (idleLoop.hasBudget) this.idleLoop = idleLoop;
    else idleLoop.close();
  }

  /** The rows of a select, as objects or as arrays of the selected values. */
  async select(sql: string, parameters: readonly unknown[], rowsAsArrays: boolean): Promise<unknown[]> {
    return (await this.run({ sql, parameters, rowsAsArrays })) as unknown[];
  }

  /** The page of a select's rows, written on the worker that read them (see `PageRendering`). */
  async selectRendered(
    sql: string,
    parameters: readonly unknown[],
    rendering: PageRendering,
  ): Promise<Uint8Array> {
    return (await this.run({ sql, parameters, rowsAsArrays: true, rendering })) as Uint8Array;
  }

  private async run(request: ReadRequest): Promise<unknown[] | Uint8Array> {
    const answer = this.onIdleLoop(request);
    const interrupted = answer !== undefined && wasInterrupted(answer);
    // Interrupted past the idle loop's budget: the quick lane runs it, as any other.
    if (answer !== undefined && !interrupted) return resultOf(answer);
    try {
      return await this.quick.run(request);
    } catch (err) {
      if ((err as { code?: unknown }).code !== "SQLITE_INTERRUPT") throw err;
      return await this.long.run(request);
    } finally {
      if (interrupted) this.idleLoopPausedUntilMs = performance.now() + IDLE_LOOP_PAUSE_MS;
    }
  }

  /** The read run on the idle event loop (see the class), or undefined when the loop is not idle. */
  private onIdleLoop(request: ReadRequest): ReadAnswer | undefined {
    if (this.idleLoop === undefined || !this.quick.idle) return undefined;
    if (performance.now() < this.idleLoopPausedUntilMs) return undefined;
    const idleMs = performance.eventLoopUtilization().idle;
    if (idleMs - this.idleSeenMs > LOOP_WAITED_MS) this.allowanceMs = IDLE_LOOP_ALLOWANCE_MS;
    this.idleSeenMs = idleMs;
    if (this.allowanceMs <= 0) return undefined;
    const started = performance.now();
    const answer = this.idleLoop.answer(request);
    this.allowanceMs -= performance.now() - started;
    this.idleLoopReads++;
    if (wasInterrupted(answer)) this.idleLoopInterrupted++;
    return answer;
  }

  /** Counts a read that the event loop's own connection ran (inside a transaction, or missed by the routing). */
  noteLoopRead(): void {
    this.loopReads++;
  }

  figures(): ReadPoolFigures {
    return {
      lanes: [this.quick.figures(), this.long.figures()],
      loopReads: this.loopReads,
      idleLoopReads: this.idleLoopReads,
      idleLoopInterrupted: this.idleLoopInterrupted,
    };
  }

  async close(): Promise<void> {
    this.idleLoop?.close();
    await Promise.all([this.quick.close(), this.long.close()]);
  }
}

/**
 * Kysely's SQLite dialect with its selects sent to a `SqliteReadPool`, off the event loop. Everything
 * else (writes, raw SQL, and every statement of a transaction, selects included) runs as before on
 * the one connection of the process, under Kysely's lock: a select never waits for that lock, and a
 * transaction still sees its own writes.
 */
export class ReadRoutingSqliteDialect extends SqliteDialect {
  readonly #pool: SqliteReadPool;

  constructor(config: SqliteDialectConfig, pool: SqliteReadPool) {
    super(config);
    this.#pool = pool;
  }

  override createDriver(): Driver {
    return new ReadRoutingDriver(super.createDriver(), this.#pool);
  }
}

/** Whether a statement only reads: a select, built with Kysely or written as raw text. */
function isRead(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) || (RawNode.is(query.query) && /^\s*select\b/i.test(query.sql));
}

/** A connection as Kysely holds it: the main one is taken only when a statement needs it. */
class RoutedConnection implements DatabaseConnection {
  main: DatabaseConnection | undefined;

  constructor(
    private readonly driver: Driver,
    private readonly pool: SqliteReadPool,
  ) {}

  async mainConnection(): Promise<DatabaseConnection> {
    this.main ??= await this.driver.acquireConnection();
    return this.main;
  }

  async executeQuery<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    if (this.main === undefined && isRead(query))
      return { rows: (await this.pool.select(query.sql, query.parameters, false)) as Row[] };
    // Judged by the text alone, so that the count also shows a read the routing above missed.
    if (/^\s*(select|with)\b/i.test(query.sql)) this.pool.noteLoopRead();
    return (await this.mainConnection()).executeQuery<Row>(query);
  }

  async *streamQuery<Row>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<Row>> {
    yield* (await this.mainConnection()).streamQuery<Row>(query, chunkSize);
  }
}

class ReadRoutingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly pool: SqliteReadPool,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.inner, this.pool);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(await routed(connection).mainConnection(), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.commitTransaction(await routed(connection).mainConnection());
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.rollbackTransaction(await routed(connection).mainConnection());
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.savepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const main = routed(connection).main;
    if (main) await this.inner.releaseConnection(main);
  }

  async destroy(): Promise<void> {
    await this.pool.close();
    await this.inner.destroy();
  }
}

function routed(connection: DatabaseConnection): RoutedConnection {
  return connection as RoutedConnection;
}
