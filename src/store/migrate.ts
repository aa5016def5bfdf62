import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { createSecondaryIndexStatements } from "./complaint-indexes.js";
import type { Database } from "./database.js";

type Dialect = Database["dialect"];

/**
 * The schema's history. Each migration may differ by dialect where the engines do (SQLite's
 * WITHOUT ROWID tables, PostgreSQL's identity columns and byte-order collation); the tables,
 * columns and indexes are the same on both.
 */
function migrationsFor(dialect: Dialect): Record<string, Migration> {
  const sqlite = dialect === "sqlite";
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(sqlite ? "without rowid" : "");
  /** Seconds since the epoch; 64-bit on PostgreSQL, whose integer is 32-bit. */
  const seconds = sqlite ? "integer" : "bigint";
  /** Ids compare byte by byte on both engines, so both order pages the same way. */
  const bytewise = sql.raw(sqlite ? "" : 'collate "C"');
  return {
    "001-complaints-keys-settings": {
      async up(db: Kysely<unknown>) {
        // WITHOUT ROWID: rows are kept in (created_at, id) order, the API's order, and every
        // secondary index ends in that key, so pages in any filter come straight off an index.
        await db.schema
          .createTable("complaints")
          .addColumn("created_at", seconds, (col) => col.notNull())
          .addColumn("id", "text", (col) => col.notNull().modifyEnd(bytewise))
          .addColumn("violation_at", seconds, (col) => col.notNull())
          .addColumn("phone", "text", (col) => col.notNull())
          .addColumn("city", "text", (col) => col.notNull())
          .addColumn("state", "text", (col) => col.notNull())
          .addColumn("area_code", "text", (col) => col.notNull())
          .addColumn("subject", "text", (col) => col.notNull())
          .addColumn("robocall", "text", (col) => col.notNull())
          .addColumn("state_key", "text", (col) => col.notNull())
          .addColumn("city_key", "text", (col) => col.notNull())
          .addPrimaryKeyConstraint("complaints_pk", ["created_at", "id"])
          .modifyEnd(clustered)
          .execute();
        await db.schema.createIndex("complaints_id").unique().on("complaints").column("id").execute();
        for (const statement of createSecondaryIndexStatements(db)) await sql.raw(statement).execute(db);

        await db.schema
          .createTable("complaint_counts")
          .addColumn("dimension", "text", (col) => col.notNull())
          .addColumn("value", "text", (col) => col.notNull())
          .addColumn("day", "integer", (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("complaint_counts_pk", ["dimension", "value", "day"])
          .modifyEnd(clustered)
          .execute();

        await db.schema
          .createTable("api_keys")
          .addColumn("id", sqlite ? "integer" : "serial", (col) =>
            sqlite ? col.primaryKey().autoIncrement() : col.primaryKey(),
          )
          .addColumn("prefix", "text", (col) => col.notNull())
          .addColumn("hash", "text", (col) => col.notNull().unique())
          .addColumn("email", "text", (col) => col.notNull())
          .addColumn("first_name", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("last_name", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("use_text", "text", (col) => col.notNull().defaultTo(""))
          .addColumn("status", "text", (col) => col.notNull().defaultTo("active"))
          .addColumn("limit_per_hour", "integer")
          .addColumn("unlimited", "integer", (col) => col.notNull().defaultTo(0))
          .addColumn("created_at", seconds, (col) => col.notNull())
          .addColumn("last_used_at", seconds)
          .execute();
        await db.schema.createIndex("api_keys_prefix").on("api_keys").column("prefix").execute();

        // Rolling-window rate limits: hits per subject (a key, or an address for DEMO_KEY and
        // sign-up) per bucket of a fraction of the window; shared by every process on the database.
        await db.schema
          .createTable("rate_buckets")
          .addColumn("subject", "text", (col) => col.notNull())
          .addColumn("bucket", seconds, (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("rate_buckets_pk", ["subject", "bucket"])
          .modifyEnd(clustered)
          .execute();
        await db.schema
          .createTable("key_usage")
          .addColumn("key_id", "integer", (col) => col.notNull())
          .addColumn("hour", seconds, (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("key_usage_pk", ["key_id", "hour"])
          .modifyEnd(clustered)
          .execute();

        await db.schema
          .createTable("settings")
          .addColumn("name", "text", (col) => col.primaryKey())
          .addColumn("value", "text", (col) => col.notNull())
          .execute();
      },
    },
    // Independent of other migrations after 001: freshness of each collection, and mirror progress.
    "003-mirror-state": {
      async up(db: Kysely<unknown>) {
        // When each collection's content last changed (an import or mirror commit that added
        // records), read by every process for Last-Modified and /v0/status.
        await db.schema
          .createTable("collection_updates")
          .addColumn("collection", "text", (col) => col.primaryKey())
          .addColumn("updated_at", seconds, (col) => col.notNull())
          .execute();
        // Per upstream and collection: the last created day copied for good (complaints), or a
        // collection's own resume point as text (notices: a created time), and when a run last finished.
        await db.schema
          .createTable("mirror_state")
          .addColumn("upstream", "text", (col) => col.notNull())
          .addColumn("collection", "text", (col) => col.notNull())
          .addColumn("complete_through_day", "integer")
          .addColumn("cursor", "text")
          .addColumn("checked_at", seconds)
          .addPrimaryKeyConstraint("mirror_state_pk", ["upstream", "collection"])
          .execute();
      },
    },
  };
}

/** Brings the schema up to date; safe to run at every start and from several processes. */
export async function migrate(database: Database): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(database.dialect) };
  // Unordered: a database that ran 003 before 002 existed (branches merged later) still migrates.
  const migrator = new Migrator({ db: database.db, provider, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
