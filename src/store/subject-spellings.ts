import type { CompiledQuery, Kysely } from "kysely";
import { matchKey } from "../domain/complaint.js";
import type { CollectionVersion } from "./collection-version.js";
import type { Database } from "./database.js";
import type { Schema } from "./schema.js";

/**
 * The statement reading every subject stored, as stored: the values of the `subject` dimension of
 * `complaint_counts` (one per spelling, counted per day by the writers in the same transaction as
 * the rows), so that a `subject` filter's match key becomes the few stored values it matches. Each
 * row holds one value.
 */
export function storedSubjectsQuery(db: Kysely<Schema>): CompiledQuery {
  return db
    .selectFrom("complaint_counts")
    .select("value")
    .distinct()
    .where("dimension", "=", "subject")
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
 * The stored subjects, read once per version of the complaints (`CollectionVersion`) and kept: a
 * subject filter then costs no query to resolve. A few dozen values in practice (the FTC's form
 * offers a fixed list).
 */
export class SubjectSpellings {
  private kept: { version: number; stored: Promise<string[]> } | undefined;

  constructor(
    private readonly database: Database,
    private readonly version: CollectionVersion,
  ) {}

  /** The stored subjects whose match key is `key` (see `spellingsOf`). */
  async matching(key: string): Promise<string[]> {
    const { version } = await this.version.current();
    if (this.kept?.version !== version) {
      const stored = this.database
        .selectRows(storedSubjectsQuery(this.database.db))
        .then((rows) => rows.map((row) => String(row[0])));
      this.kept = { version, stored };
      // A failed read is not kept.
      stored.catch(() => {
        if (this.kept?.stored === stored) this.kept = undefined;
      });
    }
    return spellingsOf(await this.kept.stored, key);
  }
}
