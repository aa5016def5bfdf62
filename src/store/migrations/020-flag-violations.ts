import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * The robocall flag and a subject with a range of whole violation days, counted and read like a
 * state with one (migration 017):
 *
 * - `complaint_flag_violations (dimension, value, created_day, violation_day) -> count`, where
 *   `dimension` is `robocall` or `subject` and `value` the flag or the subject as stored:
 *   complaints per value, day of creation and day of violation (days since 1970). Such a query has
 *   its total and the created day that holds its offset from counts; before, its first page
 *   counted the flag's rows, seconds (a 503 past the statement budget) at 20 million a year.
 * - `complaints_robocall` and `complaints_subject` gain `violation_day` after their
 *   (value, created_at, id), so that a page read on them tests each entry's violation day without
 *   reading its row. The order of the indexes, and so of every page read on them, is unchanged.
 *
 * Counts the complaints already stored, one pass over the table per dimension, and rebuilds the
 * two indexes.
 */
export const flagViolations: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_flag_violations")
        .addColumn("dimension", "text", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_flag_violations_pk", [
          "dimension",
          "value",
          "created_day",
          "violation_day",
        ])
        .modifyEnd(clustered)
        .execute();
      for (const column of ["robocall", "subject"]) {
        const value = sql.ref(column);
        await sql`insert into complaint_flag_violations (dimension, value, created_day, violation_day, count)
          select ${column}, ${value}, ${day}, violation_day, count(*) from complaints
            group by ${value}, ${day}, violation_day`.execute(db);
      }
      for (const [index, column] of [
        ["complaints_robocall", "robocall"],
        ["complaints_subject", "subject"],
      ] as const) {
        await db.schema.dropIndex(index).execute();
        await db.schema
          .createIndex(index)
          .on("complaints")
          .columns([column, "created_at", "id", "violation_day"])
          .execute();
      }
    },
  };
};
