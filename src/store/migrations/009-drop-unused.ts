import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * Drops what earlier versions created and nothing uses; a database made by this version has none
 * of it, so every statement allows for its absence:
 * - `api_keys.last_used_at` (both dialects; once created by migration 001): never written. When a
 *   key was last used is read from `key_usage`.
 * - `ftcapi_rate_hit` (PostgreSQL; once created by migration 004): the one-call-per-request
 *   counting function that `ftcapi_rate_lease` (migration 007) replaced; nothing calls it.
 * - `rate_buckets` and `key_usage` in a SQLite database file: versions before the counter file
 *   (src/store/counter-file.ts) counted there; the counters are in the counter file now.
 */
export const dropUnused: DialectMigration = (dialect) => ({
  async up(db: Kysely<unknown>) {
    if (dialect === "postgres") {
      await sql`drop function if exists ftcapi_rate_hit(text[], bigint[], bigint[], bigint[], integer, bigint)`.execute(
        db,
      );
      await sql`alter table api_keys drop column if exists last_used_at`.execute(db);
      return;
    }
    // SQLite has no `drop column if exists`.
    const { rows } =
      await sql`select 1 from pragma_table_info('api_keys') where name = 'last_used_at'`.execute(db);
    if (rows.length > 0) await db.schema.alterTable("api_keys").dropColumn("last_used_at").execute();
    await db.schema.dropTable("rate_buckets").ifExists().execute();
    await db.schema.dropTable("key_usage").ifExists().execute();
  },
});
