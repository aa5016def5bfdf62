import { type Database, isPostgresUrl, type OpenOptions } from "./database.js";
import { openPostgres } from "./postgres/open-postgres.js";
import { openSqlite } from "./sqlite/open-sqlite.js";

/**
 * Opens the store at `location`: a `postgres://` URL, or a SQLite file path (created with its
 * directory if needed). WAL mode lets SQLite keep serving while an importer in another process writes;
 * the counters every request writes are in a separate file (see `counterFileOf`), so they never wait
 * for an importer's write lock on this one.
 */
export function openDatabase(location: string, options: OpenOptions = {}): Database {
  return isPostgresUrl(location) ? openPostgres(location, options) : openSqlite(location, options);
}
