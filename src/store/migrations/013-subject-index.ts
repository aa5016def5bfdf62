import type { Kysely } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaints_subject (subject, created_at, id)`: the `subject` filter of the complaint list
 * (exact, any case; the store resolves the match key to the stored spellings from the `subject`
 * counts) reads a page straight off this index in the API's order, as every other filter's index
 * does, and counts the partial hours at the ends of a range given with times on it. Building it
 * reads every complaint once.
 */
export const subjectIndex: DialectMigration = () => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("complaints_subject")
      .on("complaints")
      .columns(["subject", "created_at", "id"])
      .execute();
  },
});
