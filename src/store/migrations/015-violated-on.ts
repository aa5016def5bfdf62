import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_hour_counts` gains the dimension `violated_on`: for each violation day (the value, the
 * day number as text), the complaints per hour of their creation. A range of whole violation days
 * then has its matches per created hour from counts, so that a page at any offset reads only the
 * hours that hold it (before, a deep offset in a wide range skipped rows one by one).
 *
 * Counts the complaints already stored, reading the `(violation_day, created_at, id)` index once.
 */
export const violatedOn: DialectMigration = () => {
  /** Hours since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const hour = sql.raw("(created_at - ((created_at % 3600) + 3600) % 3600) / 3600");
  return {
    async up(db: Kysely<unknown>) {
      await sql`insert into complaint_hour_counts (dimension, value, hour, count)
        select 'violated_on', cast(violation_day as text), ${hour}, count(*) from complaints
          group by violation_day, ${hour}`.execute(db);
    },
  };
};
