import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_hour_counts` gains the dimension `state_violated_on`: for each violation day and state
 * (the value, `<day number>:<state key>`), the complaints per hour of their creation. A state with
 * a range of whole violation days then has its matches per created hour from counts, as a range
 * alone has from `violated_on` (migration 015): before, its first page counted the state's rows,
 * which for a large state at 20 million complaints ran past the statement budget.
 *
 * Counts the complaints already stored, in one pass over the table.
 */
export const stateViolatedOn: DialectMigration = () => {
  /** Hours since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const hour = sql.raw("(created_at - ((created_at % 3600) + 3600) % 3600) / 3600");
  return {
    async up(db: Kysely<unknown>) {
      await sql`insert into complaint_hour_counts (dimension, value, hour, count)
        select 'state_violated_on', cast(violation_day as text) || ':' || state_key, ${hour}, count(*)
          from complaints
          group by violation_day, state_key, ${hour}`.execute(db);
    },
  };
};
