import type { Collection } from "../domain/collections.js";
import { DATA_VERSION_READ_MS, type Database } from "./database.js";

/** What a collection's readers key their memory on: one read of its `collection_updates` row. */
export interface VersionStamp {
  /** Grows by one with every commit that changed the collection, in any process; 0 before the first. */
  readonly version: number;
  /** When the collection last changed (seconds), or undefined before the first change. */
  readonly updatedAtSeconds: number | undefined;
}

/**
 * How stale a process's view of another process's commit may be, per dialect. SQLite: none beyond
 * the 3 ms for which a read of `PRAGMA data_version` (a counter in shared memory, which says whether
 * any other connection committed) stands; the row is read again only when it changed. PostgreSQL: the row is read at most this often.
 * This process's own commits are seen at once on both.
 */
export const VERSION_POLL_MS = { sqlite: DATA_VERSION_READ_MS, postgres: 1000 } as const;

const NEVER: VersionStamp = Object.freeze({ version: 0, updatedAtSeconds: undefined });

/**
 * The one answer to "did this collection change?" for every cache of a process: the answer cache,
 * the complaint count series, the notice snapshot, `Last-Modified` and `/v0/status` all read the same
 * stamp, so they never disagree about which version they show. Writers bump the version in the
 * transaction that changes the collection and note the commit on the database (see
 * `collection-commit.ts`).
 */
export class CollectionVersion {
  private stamp: VersionStamp = NEVER;
  private readAt = Number.NEGATIVE_INFINITY;
  /** What the stamp was read at: SQLite's data_version and this process's commits. */
  private seenChanges = "";
  private reading: Promise<VersionStamp> | undefined;
  private readonly pollMs: number;

  constructor(
    private readonly database: Database,
    readonly collection: Collection,
  ) {
    this.pollMs = VERSION_POLL_MS[database.dialect];
  }

  /**
   * The collection's current stamp. With `fresh`, read from the database now whatever the poll
   * interval (for `/v0/status`, which promises exact figures).
   */
  async current(options: { fresh?: boolean } = {}): Promise<VersionStamp> {
    const changes = this.changesSeen();
    // SQLite's data_version already says whether any connection committed; PostgreSQL has no such
    // signal for other processes' commits, so the row is read again once the interval has passed.
    const maybeChanged =
      changes !== this.seenChanges ||
      (this.database.dialect === "postgres" && Date.now() - this.readAt >= this.pollMs);
    if (!options.fresh && !maybeChanged) return this.stamp;
    this.reading ??= this.read(changes).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private changesSeen(): string {
    const local = this.database.localCommits(this.collection.name);
    return this.database.dialect === "sqlite" ? `${this.database.dataVersion()}:${local}` : String(local);
  }

  private async read(changes: string): Promise<VersionStamp> {
    const row = await this.database.db
      .selectFrom("collection_updates")
      .select(["version", "updated_at"])
      .where("collection", "=", this.collection.name)
      .executeTakeFirst();
    const stamp = row ? { version: Number(row.version), updatedAtSeconds: Number(row.updated_at) } : NEVER;
    // Versions only grow: a slow read that lost a race with a newer one does not move the stamp back.
    if (stamp.version >= this.stamp.version) this.stamp = stamp;
    this.seenChanges = changes;
    this.readAt = Date.now();
    return this.stamp;
  }
}
