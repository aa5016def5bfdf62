import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * A state with a range of whole violation days, counted and read like a range alone:
 *
 * - `complaint_state_violations (state_key, created_day, violation_day) -> count`: complaints per
 *   state (match key), day of creation and day of violation (days since 1970). Such a query then
 *   has its total and the created day that holds its offset from counts, summed per created day
 *   in one statement; before, its first page counted the state's rows, which for a large state at
 *   20 million complaints ran past the statement budget.
 * - `complaints_state` gains `violation_day` after its (state_key, created_at, id), so that a page
 *   read on it within the created days the counts name tests each entry's violation day without
 *   reading its row. The order of the index, and so of every page read on it, is unchanged.
 *
 * Counts the complaints already stored in one pass over the table, and rebuilds the index.
 */
export const stateViolatedOn: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_state_violations")
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_state_violations_pk", [
          "state_key",
          "created_day",
          "violation_day",
        ])
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_state_violations (state_key, created_day, violation_day, count)
        select state_key, ${day}, violation_day, count(*) from complaints
          group by state_key, ${day}, violation_day`.execute(db);
      await db.schema.dropIndex("complaints_state").execute();
      await db.schema
        .createIndex("complaints_state")
        .on("complaints")
        .columns(["state_key", "created_at", "id", "violation_day"])
        .execute();
    },
  };
};
