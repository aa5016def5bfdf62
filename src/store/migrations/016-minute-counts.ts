import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_minute_counts (minute) -> count`: all complaints per minute of `created_at` (minutes
 * since 1970). A page of the created order alone (no filter, or a created range) at a deep offset
 * is placed within an hour by the hourly counts, and then within a minute by these, so that it
 * skips at most one minute's complaints instead of up to an hour's, row by row on the table.
 *
 * Counts the complaints already stored, reading the table once in its own order.
 */
export const minuteCounts: DialectMigration = () => {
  /** Minutes since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const minute = sql.raw("(created_at - ((created_at % 60) + 60) % 60) / 60");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_minute_counts")
        .addColumn("minute", "integer", (col) => col.primaryKey())
        .addColumn("count", "integer", (col) => col.notNull())
        .execute();
      await sql`insert into complaint_minute_counts (minute, count)
        select ${minute}, count(*) from complaints group by ${minute}`.execute(db);
    },
  };
};
