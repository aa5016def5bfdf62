import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type BetterSqlite3 from "better-sqlite3";

/** The loadable extension `npm run build` compiles from native/bucket-counts.c. */
const EXTENSION = fileURLToPath(new URL("../../../native/build/bucket-counts.so", import.meta.url));

/**
 * Loads `ftcapi_bucket_counts(value, width)` into `sqlite`: an aggregate that counts rows per
 * bucket `floor(value / width)` without sorting them, answering a JSON array of bucket, count,
 * bucket, count, ... in ascending order of bucket (native/bucket-counts.c). False when the
 * extension was not built (no C compiler at install): the same counts are then grouped in SQL.
 */
export function loadBucketCounts(sqlite: BetterSqlite3.Database): boolean {
  if (!existsSync(EXTENSION)) return false;
  // SQLite derives the entry point, sqlite3_bucketcounts_init, from the file's name.
  sqlite.loadExtension(EXTENSION);
  return true;
}
