import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_area_combination_counts (area_code, state_key, robocall, subject, created_day) ->
 * count`: complaints per area code, state (match key), robocall flag and subject (as stored) and
 * day of creation, as `complaint_combination_counts` (migration 018) without the area code. An
 * area code with any of the other three (an area code with a state, with the flag, with a
 * subject, ...) then has its total and the day that holds its offset from counts: the rows of its
 * area code, about 10,000 a year at 20 million complaints. Before, its first page counted the area
 * code's index entries (25 to 80 ms for the largest at 20 million), and with a subject read each
 * entry's row (up to half a second).
 *
 * An area code belongs to a state or two, so the rows number about the area codes' distinct
 * (state, flag, subject) per day: 140,694 at 2 million complaints over 36 days.
 *
 * Counts the complaints already stored, in one pass over the table.
 */
export const areaCombinationCounts: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_area_combination_counts")
        .addColumn("area_code", "text", (col) => col.notNull())
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("robocall", "text", (col) => col.notNull())
        .addColumn("subject", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_area_combination_counts_pk", [
          "area_code",
          "state_key",
          "robocall",
          "subject",
          "created_day",
        ])
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_area_combination_counts (area_code, state_key, robocall, subject, created_day, count)
        select area_code, state_key, robocall, subject, ${day}, count(*) from complaints
          group by area_code, state_key, robocall, subject, ${day}`.execute(db);
    },
  };
};
