import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { CounterFile } from "../database.js";
import type { CounterSchema } from "../schema.js";
import { createPrivateFile } from "./create-private-file.js";

/**
 * The suffix of the SQLite counter file: `data/ftcapi.db` keeps its counters in
 * `data/ftcapi.db-counters` (with its own `-wal` and `-shm`), so copying or deleting `ftcapi.db*`
 * takes both.
 */
export const COUNTER_FILE_SUFFIX = "-counters";

/** The counter file beside a SQLite database file. */
export function counterFileOf(databaseFile: string): string {
  return `${databaseFile}${COUNTER_FILE_SUFFIX}`;
}

/**
 * The counter file's schema history, applied in order and recorded in `PRAGMA user_version`.
 * Only ever append: a file at version N runs the steps after N.
 */
const COUNTER_MIGRATIONS: readonly string[] = [
  // 1: the same tables (and keys) as migration 001 makes in a PostgreSQL database.
  `create table if not exists rate_buckets (
     subject text not null, bucket integer not null, count integer not null,
     constraint rate_buckets_pk primary key (subject, bucket)
   ) without rowid;
   create table if not exists key_usage (
     key_id integer not null, hour integer not null, count integer not null,
     constraint key_usage_pk primary key (key_id, hour)
   ) without rowid;`,
  // 2: which database the counters belong to (see bindToDatabase).
  "create table if not exists counted_database (identity text not null);",
];

/**
 * Opens (creating and migrating as needed) the counter file of a SQLite database. Its own file and
 * connection, so that counting a request never waits for the main file's write lock, which an
 * import holds for a whole extract. WAL, like the main file, so readers never wait on writers.
 *
 * `main` is the database's own connection, only read: the counter file is bound to that database
 * (see bindToDatabase).
 */
export function openCounterFile(file: string, main?: BetterSqlite3.Database): CounterFile {
  createPrivateFile(file);
  const sqlite = new BetterSqlite3(file);
  try {
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("busy_timeout = 10000");
    migrateCounterFile(sqlite);
    if (main) bindToDatabase(sqlite, main);
  } catch (err) {
    sqlite.close();
    throw err;
  }
  const db = new Kysely<CounterSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    file,
    sqlite,
    db,
    async close() {
      await db.destroy();
    },
  };
}

function migrateCounterFile(sqlite: BetterSqlite3.Database): void {
  const current = () => sqlite.pragma("user_version", { simple: true }) as number;
  if (current() >= COUNTER_MIGRATIONS.length) return;
  // IMMEDIATE: two processes starting at once serialise here; the second sees the first's version.
  sqlite
    .transaction(() => {
      const from = current();
      for (let version = from; version < COUNTER_MIGRATIONS.length; version++) {
        sqlite.exec(COUNTER_MIGRATIONS[version]!);
      }
      sqlite.pragma(`user_version = ${COUNTER_MIGRATIONS.length}`);
    })
    .immediate();
}

/**
 * Empties the counters when they belong to another database than `main`: a database deleted and
 * made again (its key ids start over) must not inherit the old keys' counts through a counter file
 * left behind. A database is known by when its first migration ran, which only reading it tells.
 */
function bindToDatabase(sqlite: BetterSqlite3.Database, main: BetterSqlite3.Database): void {
  const identity = databaseIdentity(main);
  if (identity === undefined) return;
  const bound = sqlite.prepare("select identity from counted_database").pluck();
  if (bound.get() === identity) return;
  sqlite
    .transaction(() => {
      const current = bound.get() as string | undefined;
      if (current === identity) return;
      if (current !== undefined) sqlite.exec("delete from rate_buckets; delete from key_usage;");
      sqlite.exec("delete from counted_database");
      sqlite.prepare("insert into counted_database (identity) values (?)").run(identity);
    })
    .immediate();
}

function databaseIdentity(main: BetterSqlite3.Database): string | undefined {
  const migrations = main
    .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
    .get();
  if (!migrations) return undefined;
  return main
    .prepare("select timestamp from kysely_migration where name = '001-complaints-keys-settings'")
    .pluck()
    .get() as string | undefined;
}
