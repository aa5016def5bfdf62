import type { Kysely } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `collection_updates.version`: a number that writers increase in the same transaction as they
 * set `updated_at`, so that a process can tell that a collection changed by reading one integer.
 * Existing rows start at 0.
 */
export const collectionVersion: DialectMigration = () => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("collection_updates")
      .addColumn("version", "integer", (col) => col.notNull().defaultTo(0))
      .execute();
  },
});
