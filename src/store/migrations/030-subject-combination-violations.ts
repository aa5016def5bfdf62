import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * A subject with a state, the robocall flag or both, and a range of whole violation days, counted
 * per created day as a subject alone is (migration 020): `complaint_flag_violations` gains the
 * rows of dimensions `subject_robocall` (value: the subject as stored and the flag joined by
 * U+001F), `state_subject` (the state's match key and the subject) and `state_subject_robocall`
 * (all three). Such a query was a combination counted on the subject's index on its first
 * request: at 20 million complaints a year the commonest subject's millions of entries, 0.5 to 1 s.
 * Its pages are read on the subject's index, which holds each entry's state, flag and violation day
 * (migration 027). About 9 million rows at that size (5.6 million of them for all three).
 *
 * Counts the complaints already stored in one pass over the table, into a scratch table (dropped
 * at the end; SQLite creates no temporary table within the migration's transaction) from which
 * the three dimensions are summed.
 */
export const subjectCombinationViolations: DialectMigration = (dialect) => {
  /** Days since the epoch, rounded down also before 1970 (SQLite's and PostgreSQL's `/` truncate). */
  const day = sql.raw("(created_at - ((created_at % 86400) + 86400) % 86400) / 86400");
  const separator = sql.raw(dialect === "sqlite" ? "char(31)" : "chr(31)");
  return {
    async up(db: Kysely<unknown>) {
      await sql`create table complaint_subject_cells_030 as
        select state_key, subject, robocall, ${day} as created_day, violation_day, count(*) as count
          from complaints group by state_key, subject, robocall, ${day}, violation_day`.execute(db);
      await sql`insert into complaint_flag_violations (dimension, value, created_day, violation_day, count)
        select 'state_subject_robocall', state_key || ${separator} || subject || ${separator} || robocall,
            created_day, violation_day, count
          from complaint_subject_cells_030`.execute(db);
      await sql`insert into complaint_flag_violations (dimension, value, created_day, violation_day, count)
        select 'state_subject', state_key || ${separator} || subject, created_day, violation_day, sum(count)
          from complaint_subject_cells_030 group by state_key, subject, created_day, violation_day`.execute(
        db,
      );
      await sql`insert into complaint_flag_violations (dimension, value, created_day, violation_day, count)
        select 'subject_robocall', subject || ${separator} || robocall, created_day, violation_day, sum(count)
          from complaint_subject_cells_030 group by subject, robocall, created_day, violation_day`.execute(
        db,
      );
      await sql`drop table complaint_subject_cells_030`.execute(db);
    },
  };
};
