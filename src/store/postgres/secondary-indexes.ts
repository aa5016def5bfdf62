import type pg from "pg";
import type { IndexDefinition } from "../database.js";

/** PostgreSQL's `secondaryIndexes`: from the catalog, with `pg_get_indexdef` as the statement. */
export async function postgresSecondaryIndexes(
  pool: pg.Pool,
  tables: readonly string[],
): Promise<IndexDefinition[]> {
  const { rows } = await pool.query<IndexDefinition>(
    `select index.relname as name, pg_get_indexdef(index.oid) as "create"
       from pg_index
       join pg_class as index on index.oid = pg_index.indexrelid
       join pg_class as indexed on indexed.oid = pg_index.indrelid
      where indexed.relname = any($1) and indexed.relnamespace = current_schema()::regnamespace
        and not pg_index.indisprimary and not pg_index.indisunique
      order by index.relname`,
    [tables],
  );
  return rows;
}
