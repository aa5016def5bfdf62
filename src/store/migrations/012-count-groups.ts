import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * What `GET /v0/dnc-complaints/counts` reads instead of the rows (docs/query-design.md, "Counts"):
 *
 * - `complaint_counts` gains the dimensions `shown_state`, `shown_city` and `subject`, counted by
 *   the value exactly as stored (the existing `state` and `city` count match keys, lowercased, and
 *   records show the stored text), and `complaint_hour_counts` gains the same and `shown_area`
 *   (the area code; per day, `area` already counts it), so that the partial days at the ends of a
 *   range given with times are read per hour, leaving at most two partial hours to group on rows;
 * - both count tables get an index by (dimension, day or hour, value, count), so that the counts
 *   of every value over a range of days are one contiguous, index-only read;
 * - `complaint_phone_totals` holds each caller number's complaints and newest created time, so that
 *   the numbers with at least N complaints in a range are looked for only among those with at least
 *   N at all and one since the range began.
 *
 * Counts the complaints already stored.
 */
export const countGroups: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  const seconds = dialect === "sqlite" ? "integer" : "bigint";
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = (column: string) => sql.raw(`(${column} - ((${column} % 86400) + 86400) % 86400) / 86400`);
  const hour = (column: string) => sql.raw(`(${column} - ((${column} % 3600) + 3600) % 3600) / 3600`);
  return {
    async up(db: Kysely<unknown>) {
      await sql`insert into complaint_counts (dimension, value, day, count)
        select 'shown_state', state, ${day("created_at")}, count(*) from complaints
          group by state, ${day("created_at")}
        union all
        select 'shown_city', city, ${day("created_at")}, count(*) from complaints
          group by city, ${day("created_at")}
        union all
        select 'subject', subject, ${day("created_at")}, count(*) from complaints
          group by subject, ${day("created_at")}`.execute(db);
      await sql`insert into complaint_hour_counts (dimension, value, hour, count)
        select 'shown_state', state, ${hour("created_at")}, count(*) from complaints
          group by state, ${hour("created_at")}
        union all
        select 'shown_city', city, ${hour("created_at")}, count(*) from complaints
          group by city, ${hour("created_at")}
        union all
        select 'shown_area', area_code, ${hour("created_at")}, count(*) from complaints
          group by area_code, ${hour("created_at")}
        union all
        select 'subject', subject, ${hour("created_at")}, count(*) from complaints
          group by subject, ${hour("created_at")}`.execute(db);
      await db.schema
        .createIndex("complaint_counts_by_day")
        .on("complaint_counts")
        .columns(["dimension", "day", "value", "count"])
        .execute();
      await db.schema
        .createIndex("complaint_hour_counts_by_hour")
        .on("complaint_hour_counts")
        .columns(["dimension", "hour", "value", "count"])
        .execute();
      await db.schema
        .createTable("complaint_phone_totals")
        .addColumn("phone", "text", (col) => col.notNull().primaryKey())
        .addColumn("count", "integer", (col) => col.notNull())
        .addColumn("newest_at", seconds, (col) => col.notNull())
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_phone_totals (phone, count, newest_at)
        select phone, count(*), max(created_at) from complaints group by phone`.execute(db);
      await db.schema
        .createIndex("complaint_phone_totals_by_count")
        .on("complaint_phone_totals")
        .columns(["count", "newest_at", "phone"])
        .execute();
    },
  };
};
