import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_city_area_counts (city_key, area_code, state_key, robocall, subject, created_day) ->
 * count`: complaints per city, area code, state, robocall flag, subject and day of creation, as
 * `complaint_city_combination_counts` (migration 026) with the area code. A city (in one state or
 * in every state) with an area code, and perhaps the flag or a subject, then has its total and the
 * day that holds its offset from counts. Before, its first page counted the city's index entries
 * (156,000 for the largest city at 20 million complaints a year: 20 to 60 ms), and with a subject
 * read each entry's row (up to a second).
 *
 * Its rows number about the distinct (city, area code, flag, subject) per day: 4.3 million at 20
 * million complaints a year (the synthetic data), more than the city's 1.8 million since a city
 * holds several area codes.
 *
 * Counts the complaints already stored, in one pass over the table.
 */
export const cityAreaCounts: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_city_area_counts")
        .addColumn("city_key", "text", (col) => col.notNull())
        .addColumn("area_code", "text", (col) => col.notNull())
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("robocall", "text", (col) => col.notNull())
        .addColumn("subject", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_city_area_counts_pk", [
          "city_key",
          "area_code",
          "state_key",
          "robocall",
          "subject",
          "created_day",
        ])
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_city_area_counts (city_key, area_code, state_key, robocall, subject, created_day, count)
        select city_key, area_code, state_key, robocall, subject, ${day}, count(*) from complaints
          group by city_key, area_code, state_key, robocall, subject, ${day}`.execute(db);
    },
  };
};
