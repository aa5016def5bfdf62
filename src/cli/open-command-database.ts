import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Database } from "../store/database.js";
import { isPostgresUrl } from "../store/database.js";
import { openDatabase } from "../store/open-database.js";

/**
 * The page cache of a command's SQLite connection, in KiB. Commands write, or read a little: a
 * serving-sized cache (64 MB) only raised an import's peak memory, filled by the statistics it
 * gathers at the end. Writers set their own cache while they write (`WRITE_CACHE_KIB`).
 */
const COMMAND_CACHE_KIB = 2_048;

/**
 * Opens a command's database. A SQLite file that does not exist yet is created, and the command
 * says so on stderr (a mistyped `--db` would otherwise start an empty database without a word);
 * with `mustExist`, for commands that only read or change what is there, it is refused instead.
 * PostgreSQL databases are made by their server, not here, so they are opened as given.
 */
export function openCommandDatabase(location: string, options: { mustExist?: boolean } = {}): Database {
  if (!isPostgresUrl(location) && location !== ":memory:" && !existsSync(location)) {
    const path = resolve(location);
    if (options.mustExist) {
      throw new Error(
        `no database at ${path} (--db or FTCAPI_DB): check the path; a database is created by ftcapi serve, import or keys create`,
      );
    }
    process.stderr.write(`ftcapi: creating a new database at ${path}\n`);
  }
  return openDatabase(location, { cacheKib: COMMAND_CACHE_KIB });
}
