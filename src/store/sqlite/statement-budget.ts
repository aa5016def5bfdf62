import type BetterSqlite3 from "better-sqlite3";
import { loadNativeExtension } from "./native-extension.js";

/** A statement as Kysely's SQLite driver uses it. */
export interface DriverStatement {
  readonly reader: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

/**
 * A time budget for each statement of one SQLite connection: `wrap` returns a statement whose
 * `all` and `run` arm a watchdog thread (native/statement-budget.c) that interrupts the statement
 * once `budgetMs` have passed, so that it fails with SQLITE_INTERRUPT instead of holding the event
 * loop. Arming and disarming cost about a microsecond a statement.
 */
export class StatementBudget {
  private constructor(
    private readonly arm: BetterSqlite3.Statement,
    private readonly budgetMs: number,
  ) {}

  /**
   * Loads the extension into `sqlite`, for statements of `budgetMs` at most; undefined when it was
   * not built (no C compiler at install).
   */
  static load(sqlite: BetterSqlite3.Database, budgetMs: number): StatementBudget | undefined {
    if (!loadNativeExtension(sqlite, "statement-budget")) return undefined;
    return new StatementBudget(sqlite.prepare("select ftcapi_statement_budget(?)"), budgetMs);
  }

  /** Runs `work` (one statement of this connection, run synchronously) under the budget. */
  run<T>(work: () => T): T {
    this.arm.get(this.budgetMs);
    try {
      return work();
    } finally {
      this.arm.get(0);
    }
  }

  /** The statement, with its `all` and `run` under the budget. */
  wrap(statement: BetterSqlite3.Statement): DriverStatement {
    const budgetMs = this.budgetMs;
    const arm = this.arm;
    return {
      reader: statement.reader,
      all(parameters) {
        arm.get(budgetMs);
        try {
          return statement.all(parameters);
        } finally {
          arm.get(0);
        }
      },
      run(parameters) {
        arm.get(budgetMs);
        try {
          return statement.run(parameters);
        } finally {
          arm.get(0);
        }
      },
      iterate: (parameters) => statement.iterate(parameters),
    };
  }
}
