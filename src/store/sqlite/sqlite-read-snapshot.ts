import BetterSqlite3 from "better-sqlite3";
import type { CompiledQuery } from "kysely";
import type { ReadSnapshot } from "../read-snapshot.js";
import { StatementBudget } from "./statement-budget.js";

/**
 * A read snapshot of the SQLite file (see ReadSnapshot): a read-only connection of its own, in a
 * transaction begun with a read, so that its view is fixed from the first statement. Statements run
 * under the budget when one is set (`budgetMs`), like the server's own connection's.
 */
export function openSqliteReadSnapshot(file: string, budgetMs: number | undefined): ReadSnapshot {
  const sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma("busy_timeout = 10000");
    // A small cache: an export reads each page once, in order; the file system caches the rest.
    sqlite.pragma("cache_size = -2048");
    const budget = budgetMs === undefined ? undefined : StatementBudget.load(sqlite, budgetMs);
    sqlite.exec("begin");
    // The first read starts the transaction's snapshot: from here on, commits are not seen.
    sqlite.prepare("select count(*) from sqlite_schema").get();
    const statements = new Map<string, BetterSqlite3.Statement>();
    let closed = false;
    return {
      async rows(query: CompiledQuery): Promise<unknown[][]> {
        let statement = statements.get(query.sql);
        if (statement === undefined) {
          statement = sqlite.prepare(query.sql).raw(true);
          statements.set(query.sql, statement);
        }
        const run = statement;
        const read = () => run.all(...(query.parameters as unknown[])) as unknown[][];
        return budget ? budget.run(read) : read();
      },
      async close(): Promise<void> {
        if (closed) return;
        closed = true;
        sqlite.close();
      },
    };
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
