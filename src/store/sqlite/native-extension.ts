import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type BetterSqlite3 from "better-sqlite3";

/**
 * The loadable extensions `npm run build` compiles from native/ (native/build.mjs):
 * `statement-budget` (a time budget per statement, `StatementBudget`) and `bucket-counts`
 * (`ftcapi_bucket_counts(value, width)`, an aggregate that counts rows per bucket
 * `floor(value / width)` without sorting them and answers a JSON array of bucket, count, ... in
 * ascending order of bucket).
 */
export type NativeExtension = "statement-budget" | "bucket-counts";

/**
 * Loads native/build/`name`.so into `sqlite`. False when it was not built (no C compiler at
 * install): each caller then falls back on what SQLite does alone.
 */
export function loadNativeExtension(sqlite: BetterSqlite3.Database, name: NativeExtension): boolean {
  const file = fileURLToPath(new URL(`../../../native/build/${name}.so`, import.meta.url));
  if (!existsSync(file)) return false;
  // SQLite derives the entry point from the file's name: sqlite3_statementbudget_init, ...
  sqlite.loadExtension(file);
  return true;
}
