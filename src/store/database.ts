import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Schema } from "./schema.js";

/** An open store: the Kysely handle plus, on SQLite, the driver for bulk writes. */
export interface Database {
  readonly db: Kysely<Schema>;
  readonly dialect: "sqlite";
  /** The SQLite connection, for the bulk writer's prepared statements. */
  readonly sqlite: BetterSqlite3.Database;
  /** The database file, absolute. */
  readonly location: string;
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) the SQLite database at `location`. WAL mode lets the service keep
 * serving while an importer in another process writes.
 */
export function openDatabase(location: string): Database {
  const file = resolve(location);
  mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("temp_store = MEMORY");
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    db,
    dialect: "sqlite",
    sqlite,
    location: file,
    async close() {
      await db.destroy();
    },
  };
}
