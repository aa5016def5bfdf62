import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/** Complaints and their daily counts, API keys, settings; on PostgreSQL also the rate-limit counters. */
export const complaintsKeysSettings: DialectMigration = (dialect) => {
  const sqlite = dialect === "sqlite";
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(sqlite ? "without rowid" : "");
  /** Seconds since the epoch; 64-bit on PostgreSQL, whose integer is 32-bit. */
  const seconds = sqlite ? "integer" : "bigint";
  /** Ids compare byte by byte on both engines, so both order pages the same way. */
  const bytewise = sql.raw(sqlite ? "" : 'collate "C"');
  return {
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
      // One index per filter, each ending in the API's order, plus the violation time.
      const secondary: Array<[string, string[]]> = [
        ["complaints_state", ["state_key", "created_at", "id"]],
        ["complaints_city", ["state_key", "city_key", "created_at", "id"]],
        ["complaints_area", ["area_code", "created_at", "id"]],
        ["complaints_robocall", ["robocall", "created_at", "id"]],
        ["complaints_phone", ["phone", "created_at", "id"]],
        ["complaints_violation", ["violation_at"]],
      ];
      for (const [name, columns] of secondary)
        await db.schema.createIndex(name).ifNotExists().on("complaints").columns(columns).execute();

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
        .execute();
      await db.schema.createIndex("api_keys_prefix").on("api_keys").column("prefix").execute();

      // Rolling-window rate limits: hits per subject (a key, or an address for DEMO_KEY and
      // sign-up) per bucket of a fraction of the window, and requests per key per hour; shared by
      // every process on the database. On SQLite they live in the counter file
      // (src/store/counter-file.ts), which has its own schema history.
      if (!sqlite) {
        await db.schema
          .createTable("rate_buckets")
          .addColumn("subject", "text", (col) => col.notNull())
          .addColumn("bucket", "bigint", (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("rate_buckets_pk", ["subject", "bucket"])
          .execute();
        await db.schema
          .createTable("key_usage")
          .addColumn("key_id", "integer", (col) => col.notNull())
          .addColumn("hour", "bigint", (col) => col.notNull())
          .addColumn("count", "integer", (col) => col.notNull())
          .addPrimaryKeyConstraint("key_usage_pk", ["key_id", "hour"])
          .execute();
      }

      await db.schema
        .createTable("settings")
        .addColumn("name", "text", (col) => col.primaryKey())
        .addColumn("value", "text", (col) => col.notNull())
        .execute();
    },
  };
};
