/**
 * A worker thread of `SqliteReadPool`: one read-only connection to the file, answering one select at
 * a time under its lane's statement budget. Started with `ReadWorkerOptions` as its data; each
 * message is a `ReadRequest`, each answer a `ReadAnswer`.
 */
import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import { type PageRendering, renderPage } from "../../domain/complaint-envelope.js";
import { StatementBudget } from "./statement-budget.js";

/** What a read worker is started with. */
export interface ReadWorkerOptions {
  readonly file: string;
  /** Its lane's budget per statement; undefined: unbounded. */
  readonly budgetMs: number | undefined;
  /** Its page cache, in KiB. */
  readonly cacheKib: number;
}

/**
 * One select to run: rows as objects, or as arrays of the selected values (`rowsAsArrays`), or
 * written as text here (`rendering`, which implies arrays).
 */
export interface ReadRequest {
  readonly id: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly rowsAsArrays: boolean;
  readonly rendering?: PageRendering;
}

/**
 * The rows of a `ReadRequest` (or their text, its bytes transferred, not copied), or the SQLite
 * error it met (`code` as better-sqlite3 names it).
 */
export type ReadAnswer =
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly page: Uint8Array }
  | { readonly id: number; readonly error: { readonly code: string | undefined; readonly message: string } };

const options = workerData as ReadWorkerOptions;
const sqlite = new BetterSqlite3(options.file, { readonly: true, fileMustExist: true });
sqlite.pragma("busy_timeout = 10000");
sqlite.pragma(`cache_size = -${options.cacheKib}`);
sqlite.pragma("temp_store = MEMORY");
const budget = options.budgetMs === undefined ? undefined : StatementBudget.load(sqlite, options.budgetMs);

// Kept by their SQL, as on the main connection: preparing costs more than running most of them.
const statements = new Map<string, BetterSqlite3.Statement>();
const arrayStatements = new Map<string, BetterSqlite3.Statement>();

function statementFor(sql: string, rowsAsArrays: boolean): BetterSqlite3.Statement {
  const kept = rowsAsArrays ? arrayStatements : statements;
  let statement = kept.get(sql);
  if (statement === undefined) {
    statement = sqlite.prepare(sql);
    if (!statement.reader)
      throw Object.assign(new Error("a read worker runs selects only"), { code: "SQLITE_READONLY" });
    if (rowsAsArrays) statement.raw(true);
    if (kept.size >= 2000) kept.clear();
    kept.set(sql, statement);
  }
  return statement;
}

parentPort?.on("message", (request: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    const statement = statementFor(request.sql, request.rowsAsArrays || request.rendering !== undefined);
    const read = () => statement.all(...request.parameters);
    const rows = budget ? budget.run(read) : read();
    if (request.rendering) {
      const page = renderPage(rows as unknown[][], request.rendering);
      parentPort?.postMessage({ id: request.id, page } satisfies ReadAnswer, [page.buffer as ArrayBuffer]);
      return;
    }
    answer = { id: request.id, rows };
  } catch (err) {
    const { code, message } = err as { code?: unknown; message?: unknown };
    answer = {
      id: request.id,
      error: { code: typeof code === "string" ? code : undefined, message: String(message) },
    };
  }
  parentPort?.postMessage(answer);
});
