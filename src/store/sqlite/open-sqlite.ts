import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { renderRows } from "../../domain/row-rendering.js";
import {
  type CounterFile,
  commitLedger,
  DATA_VERSION_READ_MS,
  type OpenOptions,
  QUICK_READ_BUDGET_MS,
  type SqliteDatabase,
} from "../database.js";
import type { Schema } from "../schema.js";
import { isDatabaseReady } from "../unavailable.js";
import { SqliteComplaintWriter } from "./complaint-writer.js";
import { counterFileOf, openCounterFile } from "./counter-file.js";
import { createPrivateFile } from "./create-private-file.js";
import { SqliteRateLimitStore } from "./rate-limit-store.js";
import { SqliteReadPool } from "./read-pool.js";
import { ReadRoutingSqliteDialect } from "./read-routing-dialect.js";
import { sqliteSecondaryIndexes } from "./secondary-indexes.js";
import { openSqliteReadSnapshot } from "./sqlite-read-snapshot.js";
import { type DriverStatement, StatementBudget } from "./statement-budget.js";
import { writeWithoutWaiting } from "./write-without-waiting.js";

/** Opens a SQLite file as the store (see `openDatabase`). */
export function openSqlite(location: string, options: OpenOptions): SqliteDatabase {
  const file = resolve(location);
  mkdirSync(dirname(file), { recursive: true });
  createPrivateFile(file);
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma(`cache_size = -${options.cacheKib ?? (options.readThreads ? 2_048 : 65_536)}`);
  sqlite.pragma("temp_store = MEMORY");
  const budget =
    options.statementTimeoutMs === undefined
      ? undefined
      : StatementBudget.load(sqlite, options.statementTimeoutMs);
  const dialectConfig = { database: withStatementCache(sqlite, budget) };
  const readPool =
    options.readThreads === undefined || options.readThreads === 0
      ? undefined
      : new SqliteReadPool(
          file,
          options.readThreads,
          options.statementTimeoutMs,
          options.quickReadBudgetMs ?? QUICK_READ_BUDGET_MS,
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
  const dataVersionStatement = sqlite.prepare("pragma data_version").pluck();
  // Read at most once per DATA_VERSION_READ_MS: a request asks several times (its caches, its store,
  // Last-Modified), and each read opens a read transaction on the file (file locks, about 30 µs
  // under load, 3 to 5% of a request), while another process's commit seen 3 ms later is seen as
  // promptly as any client can tell.
  let dataVersionSeen = 0;
  let dataVersionReadAt = Number.NEGATIVE_INFINITY;
  const dataVersion = () => {
    const now = performance.now();
    if (now - dataVersionReadAt >= DATA_VERSION_READ_MS) {
      dataVersionSeen = Number(dataVersionStatement.get());
      dataVersionReadAt = now;
    }
    return dataVersionSeen;
  };
  const database: SqliteDatabase = {
    db,
    dialect: "sqlite",
    sqlite,
    dataVersion,
    hasStatementBudget: budget !== undefined,
    readLanes: () => readPool?.figures() ?? [],
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
      return renderRows(await database.selectRows(query), rendering);
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
  const statements = new Map<string, { statement: BetterSqlite3.Statement; driver: DriverStatement }>();
  return {
    prepare(text: string): DriverStatement {
      const known = statements.get(text);
      if (known && !known.statement.busy) return known.driver;
      const statement = sqlite.prepare(text);
      if (rowsAsArrays) statement.raw(true);
      const driver = budget ? budget.wrap(statement) : (statement as unknown as DriverStatement);
      if (statements.size >= 2000) statements.clear();
      statements.set(text, { statement, driver });
      return driver;
    },
    close(): void {
      sqlite.close();
    },
  };
}
