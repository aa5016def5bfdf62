import BetterSqlite3 from "better-sqlite3";
import { type PageRendering, renderPage } from "../../domain/complaint-envelope.js";
import { KeptStatements } from "./kept-statements.js";
import { loadNativeExtension } from "./native-extension.js";
import { StatementBudget } from "./statement-budget.js";

/** How a read connection is opened. */
export interface ReadConnectionOptions {
  readonly file: string;
  /** Its budget per statement; undefined: unbounded. */
  readonly budgetMs: number | undefined;
  /** Its page cache, in KiB. */
  readonly cacheKib: number;
}

/**
 * One select to run: rows as objects, or as arrays of the selected values (`rowsAsArrays`), or
 * written as text here (`rendering`, which implies arrays).
 */
export interface ReadRequest {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly rowsAsArrays: boolean;
  readonly rendering?: PageRendering;
}

/**
 * The rows of a `ReadRequest` (or their text, as bytes that own their buffer), or the SQLite error
 * it met (`code` as better-sqlite3 names it).
 */
export type ReadAnswer =
  | { readonly rows: unknown[] }
  | { readonly page: Uint8Array }
  | { readonly error: { readonly code: string | undefined; readonly message: string } };

/** The rows or the page of an answer; its error thrown, with its `code`. */
export function resultOf(answer: ReadAnswer): unknown[] | Uint8Array {
  if ("error" in answer) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
  return "page" in answer ? answer.page : answer.rows;
}

/**
 * A read-only connection to the file that answers selects one at a time, each under its budget: a
 * read thread's (read-worker.ts), or the event loop's own while it has nothing else to do
 * (`SqliteReadPool`).
 */
export class ReadConnection {
  private readonly sqlite: BetterSqlite3.Database;
  private readonly budget: StatementBudget | undefined;
  // As on the main connection; a text's statement for rows as objects and the one for rows as
  // arrays are kept together.
  private readonly statements = new KeptStatements<{
    objects?: BetterSqlite3.Statement;
    arrays?: BetterSqlite3.Statement;
  }>();

  constructor(options: ReadConnectionOptions) {
    this.sqlite = new BetterSqlite3(options.file, { readonly: true, fileMustExist: true });
    this.sqlite.pragma("busy_timeout = 10000");
    this.sqlite.pragma(`cache_size = -${options.cacheKib}`);
    this.sqlite.pragma("temp_store = MEMORY");
    this.budget =
      options.budgetMs === undefined ? undefined : StatementBudget.load(this.sqlite, options.budgetMs);
    loadNativeExtension(this.sqlite, "bucket-counts");
  }

  /** Whether its statements run under the budget it was opened with (false when the extension was not built). */
  get hasBudget(): boolean {
    return this.budget !== undefined;
  }

  /** Runs the request; every failure is in the answer, none thrown. */
  answer(request: ReadRequest): ReadAnswer {
    try {
      const statement = this.statementFor(
        request.sql,
        request.rowsAsArrays || request.rendering !== undefined,
      );
      const read = () => statement.all(...request.parameters);
      const rows = this.budget ? this.budget.run(read) : read();
      if (request.rendering) return { page: renderPage(rows as unknown[][], request.rendering) };
      return { rows };
    } catch (err) {
      const { code, message } = err as { code?: unknown; message?: unknown };
      return { error: { code: typeof code === "string" ? code : undefined, message: String(message) } };
    }
  }

  close(): void {
    this.sqlite.close();
  }

  private statementFor(sql: string, rowsAsArrays: boolean): BetterSqlite3.Statement {
    const forms = this.statements.get(sql) ?? {};
    let statement = rowsAsArrays ? forms.arrays : forms.objects;
    if (statement === undefined) {
      statement = this.sqlite.prepare(sql);
      if (!statement.reader)
        throw Object.assign(new Error("a read connection runs selects only"), { code: "SQLITE_READONLY" });
      if (rowsAsArrays) forms.arrays = statement.raw(true);
      else forms.objects = statement;
      this.statements.set(sql, forms);
    }
    return statement;
  }
}
