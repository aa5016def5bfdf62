/**
 * Direct access to a test database through its driver (better-sqlite3 or pg), bypassing every part
 * of ftcapi's store, for oracles that state what an answer should be in plain SQL.
 */
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { Dialect } from "./dialects.js";

/**
 * Collects a query's parameters and writes their placeholders in the dialect's syntax: `@pN` for
 * SQLite (named, so the order in which the SQL text is assembled does not matter) and `$N` with an
 * explicit type for PostgreSQL.
 */
export class SqlParameters {
  readonly values: Array<string | number> = [];

  constructor(readonly dialect: Dialect) {}

  text(value: string): string {
    this.values.push(value);
    const n = this.values.length;
    return this.dialect === "postgres" ? `CAST($${n} AS text)` : `@p${n}`;
  }

  integer(value: number): string {
    this.values.push(value);
    const n = this.values.length;
    return this.dialect === "postgres" ? `CAST($${n} AS bigint)` : `@p${n}`;
  }
}

export interface OracleDatabase {
  readonly dialect: Dialect;
  rows(text: string, parameters: SqlParameters): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** Opens the database at `location` (a SQLite file or a postgres:// URL) for plain SQL reads. */
export async function openOracleDatabase(dialect: Dialect, location: string): Promise<OracleDatabase> {
  if (dialect === "postgres") {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    return {
      dialect,
      async rows(text, parameters) {
        return (await client.query(text, parameters.values)).rows;
      },
      close: () => client.end(),
    };
  }
  const sqlite = new BetterSqlite3(location, { fileMustExist: true });
  return {
    dialect,
    async rows(text, parameters) {
      const named = Object.fromEntries(parameters.values.map((value, index) => [`p${index + 1}`, value]));
      return sqlite.prepare(text).all(named) as Array<Record<string, unknown>>;
    },
    async close() {
      sqlite.close();
    },
  };
}
