import { type Kysely, sql } from "kysely";
import type { DialectMigration } from "./migration.js";

/**
 * Indexes for the notices' orders and, on PostgreSQL, the notices' version number and trigram
 * indexes for text conditions.
 */
export const noticeSearch: DialectMigration = (dialect) => ({
  async up(db: Kysely<unknown>) {
    await createOrderIndexes(db);
    if (dialect === "postgres") {
      await createNoticeVersion(db);
      await createTrigramIndexes(db);
    }
  },
});

/**
 * Indexes in the exact order the store sorts notices by (absent values last ascending, first
 * descending, ties by id), so a page at any offset of these orders is read off an index, forwards
 * or backwards, instead of sorting the table.
 */
async function createOrderIndexes(db: Kysely<unknown>): Promise<void> {
  const orders: Array<[string, string]> = [
    ["notices_date_order", "(date is null), date, id"],
    ["notices_acquiring_party_order", "(acquiring_party is null), lower(acquiring_party), id"],
    ["notices_acquired_party_order", "(acquired_party is null), lower(acquired_party), id"],
    ["notices_transaction_number_order", "lower(transaction_number), id"],
  ];
  for (const [name, expression] of orders)
    await db.schema.createIndex(name).on("notices").expression(sql.raw(expression)).execute();
}

/**
 * PostgreSQL: `notice_version` and the statement triggers that increase it on every change to the
 * notices, so the store can keep exact totals per filter until the next change. SQLite needs no
 * table: its store reads `PRAGMA data_version`, which costs nothing per row written (a row trigger
 * made importing the demo notices several times slower).
 */
async function createNoticeVersion(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("notice_version")
    .addColumn("id", "integer", (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn("version", "bigint", (col) => col.notNull())
    .execute();
  await sql`insert into notice_version (id, version) values (1, 1)`.execute(db);
  await sql`create function ftcapi_notice_version_bump() returns trigger language plpgsql as $$
begin
  update notice_version set version = version + 1 where id = 1;
  return null;
end
$$`.execute(db);
  await sql`create trigger notices_version after insert or update or delete or truncate on notices for each statement execute function ftcapi_notice_version_bump()`.execute(
    db,
  );
  await sql`create trigger notice_values_version after insert or update or delete or truncate on notice_values for each statement execute function ftcapi_notice_version_bump()`.execute(
    db,
  );
}

/**
 * PostgreSQL: trigram GIN indexes (pg_trgm, part of PostgreSQL's own distribution) on the lowered
 * text fields and list values, which serve the store's `lower(column) like ...` conditions as they
 * are. Where the extension is not available to this database's owner (a server built without it),
 * the indexes are left out: the same queries give the same answers, only by scanning.
 */
async function createTrigramIndexes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ usable: boolean }>`
    select exists (select 1 from pg_available_extensions where name = 'pg_trgm')
      and (exists (select 1 from pg_extension where extname = 'pg_trgm')
        or has_database_privilege(current_database(), 'CREATE')) as usable`.execute(db);
  if (!rows[0]?.usable) return;
  await sql`create extension if not exists pg_trgm`.execute(db);
  const indexes: Array<[string, string, string]> = [
    ["notices_title_trigrams", "notices", "lower(title)"],
    ["notices_transaction_number_trigrams", "notices", "lower(transaction_number)"],
    ["notices_acquiring_party_trigrams", "notices", "lower(acquiring_party)"],
    ["notices_acquired_party_trigrams", "notices", "lower(acquired_party)"],
    ["notice_values_value_trigrams", "notice_values", "lower(value)"],
  ];
  for (const [name, table, expression] of indexes)
    await sql.raw(`create index ${name} on ${table} using gin (${expression} gin_trgm_ops)`).execute(db);
}
