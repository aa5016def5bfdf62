import { UNVERSIONED, VersionedLru } from "../collection-version.js";

/**
 * The SQL text one connection's kept statements may add up to, each counted `STATEMENT_WEIGHT`
 * characters more. A prepared statement's memory grows with its text, some 30 bytes a character
 * (722 statements of 682,000 characters took 23 MB on a 20-million-complaint file), so the texts
 * bound it: about 8 MB a connection, which the few hundred texts a connection runs fit in.
 */
const KEPT_CHARACTERS = 256 * 1024;

/** What a kept statement weighs beyond its text, in characters. */
const STATEMENT_WEIGHT = 1_024;

/**
 * A connection's prepared statements (or what it keeps with them), by their SQL text, least
 * recently used dropped first once their texts outweigh `KEPT_CHARACTERS`: preparing costs more
 * than running most of ftcapi's statements, and statements do not follow the data.
 */
export class KeptStatements<Value> {
  private readonly kept = new VersionedLru<Value>(KEPT_CHARACTERS);

  get(sql: string): Value | undefined {
    return this.kept.get(sql, UNVERSIONED);
  }

  set(sql: string, value: Value): void {
    this.kept.set(sql, value, UNVERSIONED, STATEMENT_WEIGHT);
  }
}
