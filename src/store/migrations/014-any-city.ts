import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * A city in every state (`city` without `state`), served as a single filter is:
 *
 * - `complaints_any_city (city_key, created_at, id)`, so that a page is read straight off an index
 *   in the API's order (before, the rows were scanned for the city);
 * - `complaint_counts` gains the dimension `any_city`, the complaints per day of each city match
 *   key in all states, so that a total and a deep offset are read from counts.
 *
 * Counts the complaints already stored; building the index reads every complaint once.
 */
export const anyCity: DialectMigration = () => {
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("complaints_any_city")
        .on("complaints")
        .columns(["city_key", "created_at", "id"])
        .execute();
      await sql`insert into complaint_counts (dimension, value, day, count)
        select 'any_city', city_key, ${day}, count(*) from complaints
          group by city_key, ${day}`.execute(db);
    },
  };
};
