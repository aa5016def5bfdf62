import type BetterSqlite3 from "better-sqlite3";
import type { IndexDefinition } from "../database.js";

/** SQLite's `secondaryIndexes`: from `sqlite_master`, whose `sql` is the statement that made each index. */
export function sqliteSecondaryIndexes(
  sqlite: BetterSqlite3.Database,
  tables: readonly string[],
): IndexDefinition[] {
  // Automatic indexes (primary keys, unique constraints) have no statement; unique ones are kept.
  return sqlite
    .prepare(
      `select name, sql as "create" from sqlite_master
        where type = 'index' and sql is not null and sql not like 'create unique%'
          and tbl_name in (select value from json_each(?))
        order by name`,
    )
    .all(JSON.stringify(tables)) as IndexDefinition[];
}
