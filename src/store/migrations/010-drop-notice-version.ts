import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * PostgreSQL: drops `notice_version`, its bump function and the statement triggers on `notices`
 * and `notice_values` (migration 006). Every collection's change detection is now the `version` of
 * its `collection_updates` row (migration 008), which writers bump in the transaction that changes
 * it; the triggers cost a statement on every write and nothing reads their counter. SQLite never
 * had them.
 */
export const dropNoticeVersion: DialectMigration = (dialect) => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== "postgres") return;
    await sql`drop trigger if exists notices_version on notices`.execute(db);
    await sql`drop trigger if exists notice_values_version on notice_values`.execute(db);
    await sql`drop function if exists ftcapi_notice_version_bump()`.execute(db);
    await sql`drop table if exists notice_version`.execute(db);
  },
});
