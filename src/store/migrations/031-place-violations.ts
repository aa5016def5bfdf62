import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_place_violations (place, value, created_day, violation_day, state_key, robocall) ->
 * count`: complaints per area code (`place` `area`, `value` the area code), per city (`city`,
 * `value` its match key, in every state: the state is a column) or per city and area code
 * (`city_area`, the two joined by U+001F), day of creation, day of violation, state (match key) and
 * robocall flag. A range of whole violation days with an area code and a state or the flag, or
 * with a city (in one state or in all, perhaps with the flag and an area code), then has its
 * matches per created day summed from the rows of its place, about 33,000 a year for an area code
 * at 20 million complaints. Before, the first request counted the place's index entries in the
 * range's created window: up to 300,000 for the largest area codes and 220,000 for the largest
 * cities at that size, 26 to 70 ms.
 *
 * Complaints with no city (an empty match key, which no city filter names) are not counted under
 * `city` or `city_area`. About 12.6 million rows at 20 million complaints a year in the generator's
 * data (4.4 million for the area codes, 3.3 and 4.9 million for the cities); a place holds as many
 * rows as it has distinct (created day, violation day, state, flag), so a small city's are about
 * its complaints.
 *
 * Counts the complaints already stored, in one pass over the table per place.
 */
export const placeViolations: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  const separator = sql.raw(dialect === "sqlite" ? "char(31)" : "chr(31)");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_place_violations")
        .addColumn("place", "text", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("robocall", "text", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_place_violations_pk", [
          "place",
          "value",
          "created_day",
          "violation_day",
          "state_key",
          "robocall",
        ])
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_place_violations (place, value, created_day, violation_day, state_key, robocall, count)
        select 'area', area_code, ${day}, violation_day, state_key, robocall, count(*) from complaints
          group by area_code, ${day}, violation_day, state_key, robocall`.execute(db);
      await sql`insert into complaint_place_violations (place, value, created_day, violation_day, state_key, robocall, count)
        select 'city', city_key, ${day}, violation_day, state_key, robocall, count(*) from complaints
          where city_key <> ''
          group by city_key, ${day}, violation_day, state_key, robocall`.execute(db);
      await sql`insert into complaint_place_violations (place, value, created_day, violation_day, state_key, robocall, count)
        select 'city_area', city_key || ${separator} || area_code, ${day}, violation_day, state_key, robocall, count(*)
          from complaints where city_key <> ''
          group by city_key, area_code, ${day}, violation_day, state_key, robocall`.execute(db);
    },
  };
};
