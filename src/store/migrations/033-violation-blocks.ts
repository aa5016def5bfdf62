import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * `complaint_state_violation_blocks`, `complaint_flag_violation_blocks` and
 * `complaint_place_violation_blocks`: the counts of `complaint_state_violations` (migration 017),
 * `complaint_flag_violations` (020) and `complaint_place_violations` (031) summed over blocks of 16
 * violation days, each row's `violation_day` the first day of its block (a multiple of 16 days
 * since 1970). A range of violation days then sums a block's row for each of its whole blocks and
 * the days' rows only at its two ends. Before, a subject over two years of violation days summed
 * about 205,000 rows (one per created day and violation day) at 20 million complaints a year, 22 to
 * 35 ms; with blocks, a range of any length reads at most 30 day rows and a block row per 16 days
 * for each created day.
 *
 * Sums the counts already stored, written literally (the block width is frozen here: 16).
 */
export const violationBlocks: DialectMigration = (dialect) => {
  /** Clustered storage on SQLite; PostgreSQL has no equivalent and needs none. */
  const clustered = sql.raw(dialect === "sqlite" ? "without rowid" : "");
  /** The first day of a violation day's block, rounded down also before 1970 (`%` truncates). */
  const block = sql.raw("violation_day - ((violation_day % 16) + 16) % 16");
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("complaint_state_violation_blocks")
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_state_violation_blocks_pk", [
          "state_key",
          "created_day",
          "violation_day",
        ])
        .modifyEnd(clustered)
        .execute();
      await db.schema
        .createTable("complaint_flag_violation_blocks")
        .addColumn("dimension", "text", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_flag_violation_blocks_pk", [
          "dimension",
          "value",
          "created_day",
          "violation_day",
        ])
        .modifyEnd(clustered)
        .execute();
      await db.schema
        .createTable("complaint_place_violation_blocks")
        .addColumn("place", "text", (col) => col.notNull())
        .addColumn("value", "text", (col) => col.notNull())
        .addColumn("created_day", "integer", (col) => col.notNull())
        .addColumn("violation_day", "integer", (col) => col.notNull())
        .addColumn("state_key", "text", (col) => col.notNull())
        .addColumn("robocall", "text", (col) => col.notNull())
        .addColumn("count", "integer", (col) => col.notNull())
        .addPrimaryKeyConstraint("complaint_place_violation_blocks_pk", [
          "place",
          "value",
          "created_day",
          "violation_day",
          "state_key",
          "robocall",
        ])
        .modifyEnd(clustered)
        .execute();
      await sql`insert into complaint_state_violation_blocks (state_key, created_day, violation_day, count)
        select state_key, created_day, ${block}, sum(count) from complaint_state_violations
          group by state_key, created_day, ${block}`.execute(db);
      await sql`insert into complaint_flag_violation_blocks (dimension, value, created_day, violation_day, count)
        select dimension, value, created_day, ${block}, sum(count) from complaint_flag_violations
          group by dimension, value, created_day, ${block}`.execute(db);
      await sql`insert into complaint_place_violation_blocks
          (place, value, created_day, violation_day, state_key, robocall, count)
        select place, value, created_day, ${block}, state_key, robocall, sum(count) from complaint_place_violations
          group by place, value, created_day, ${block}, state_key, robocall`.execute(db);
    },
  };
};
