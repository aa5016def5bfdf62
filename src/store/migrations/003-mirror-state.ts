import type { Kysely } from "kysely";
import type { DialectMigration } from "./migration.js";

/** Freshness of each collection, and mirror progress. */
export const mirrorState: DialectMigration = (dialect) => {
  /** Seconds since the epoch; 64-bit on PostgreSQL, whose integer is 32-bit. */
  const seconds = dialect === "sqlite" ? "integer" : "bigint";
  return {
    async up(db: Kysely<unknown>) {
      // When each collection's content last changed (an import or mirror commit that added
      // records), read by every process for Last-Modified and /v0/status.
      await db.schema
        .createTable("collection_updates")
        .addColumn("collection", "text", (col) => col.primaryKey())
        .addColumn("updated_at", seconds, (col) => col.notNull())
        .execute();
      // Per upstream and collection: the last created day copied for good (complaints), or a
      // collection's own resume point as text (notices: a JSON cursor), and when a run last finished.
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
  };
};
