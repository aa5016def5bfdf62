import type { CompiledQuery, Kysely } from "kysely";
import { matchKey } from "../domain/complaint.js";
import type { CollectionVersion } from "./collection-version.js";
import type { Database } from "./database.js";
import type { Schema } from "./schema.js";

/** The dimensions of `complaint_counts` whose stored values are read whole (`StoredValues`). */
export type StoredDimension = "state" | "robocall" | "subject";

/**
 * The statement reading every value a dimension of `complaint_counts` holds, as stored (a state's
 * match key, a robocall flag, a subject as spelled): the writers count each per day in the same
 * transaction as the rows, so these are the values the complaints have. Each row holds one value.
 */
export function storedValuesQuery(db: Kysely<Schema>, dimension: StoredDimension): CompiledQuery {
  return db
    .selectFrom("complaint_counts")
    .select("value")
    .distinct()
    .where("dimension", "=", dimension)
    .compile();
}

/**
 * The stored subjects a `subject` filter matches: those whose match key (`matchKey`) is `key`, in
 * code point order. Usually one; none when no complaint has that subject.
 */
export function spellingsOf(stored: readonly string[], key: string): string[] {
  return stored.filter((subject) => matchKey(subject) === key).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The stored values of a dimension (`storedValuesQuery`), read once per version of the complaints
 * (`CollectionVersion`) and kept: a few dozen values each in practice (the states, the flags, the
 * FTC form's subjects). A subject filter resolves to its spellings from these, and a combination
 * without a state, flag or subject filter sums every value of it (`CombinationCounts`).
 */
export class StoredValues {
  private readonly kept = new Map<StoredDimension, { version: number; values: Promise<string[]> }>();

  constructor(
    private readonly database: Database,
    private readonly version: CollectionVersion,
  ) {}

  /** Every value `dimension` holds. */
  async of(dimension: StoredDimension): Promise<string[]> {
    const { version } = await this.version.current();
    let kept = this.kept.get(dimension);
    if (kept?.version !== version) {
      const values = this.database
        .selectRows(storedValuesQuery(this.database.db, dimension))
        .then((rows) => rows.map((row) => String(row[0])));
      kept = { version, values };
      this.kept.set(dimension, kept);
      // A failed read is not kept.
      values.catch(() => {
        if (this.kept.get(dimension)?.values === values) this.kept.delete(dimension);
      });
    }
    return kept.values;
  }

  /** The stored subjects whose match key is `key` (see `spellingsOf`). */
  async subjectsMatching(key: string): Promise<string[]> {
    return spellingsOf(await this.of("subject"), key);
  }
}
