import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * The dimensions with many complaints a day (all, state, robocall, violation) are also counted per
 * hour, so that a deep offset is placed within an hour and a range given with times is cut at
 * hours: what is left to skip or count on rows is one hour's complaints, not one day's
 * (docs/query-design.md). Counts the complaints already stored.
 */
export const hourCounts: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_hour_counts")
        .addColumn("dimension", "text", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull())
        .addColumn("hour", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_hour_counts_pk", ["dimension", "value", "hour"])
        .modifyEnd(clustered)
        .execute();
      // Hours since the epoch; the value is the stored match key (state_key) or '' for a dimension
      // without values.
      await sql`insert into complaint_hour_counts (dimension, value, hour, count)
        select 'all', '', created_at / 3600, count(*) from complaints
          group by created_at / 3600
        union all
        select 'state', state_key, created_at / 3600, count(*) from complaints
          group by state_key, created_at / 3600
        union all
        select 'robocall', robocall, created_at / 3600, count(*) from complaints
          group by robocall, created_at / 3600
        union all
        select 'violation', '', violation_at / 3600, count(*) from complaints
          group by violation_at / 3600`.execute(db);
    },
  };
};
