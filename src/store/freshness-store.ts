import { type CompiledQuery, sql } from "kysely";
import type { Database } from "./database.js";

/** A mirror's progress on one collection of one upstream. */
export interface MirrorProgress {
  /** The last created day (days since the epoch) whose records were copied for good, or null. */
  completeThroughDay: number | null;
  /** When a run last finished (seconds), or null. */
  checkedAt: number | null;
}

/**
 * How fresh each collection is: when its content last changed, and where mirrors of it stand.
 * Statements that must commit with a write (`markUpdated`, `progress`) are returned compiled, for
 * the writer to run inside its transaction.
 */
export class FreshnessStore {
  constructor(private readonly database: Database) {}

  /**
   * Records that `collection` changed at `atSeconds` (never moving the time backwards) and
   * increases its version by one: the statement a writer runs in the transaction that changed it.
   */
  markUpdated(collection: string, atSeconds: number): CompiledQuery {
    return this.database.db
      .insertInto("collection_updates")
      .values({ collection, updated_at: atSeconds, version: 1 })
      .onConflict((conflict) =>
        conflict.column("collection").doUpdateSet({
          updated_at: sql<number>`case when excluded.updated_at > collection_updates.updated_at
            then excluded.updated_at else collection_updates.updated_at end`,
          version: sql<number>`collection_updates.version + 1`,
        }),
      )
      .compile();
  }

  /** When `collection` last changed (seconds), or undefined when no update was recorded. */
  async lastUpdated(collection: string): Promise<number | undefined> {
    const row = await this.database.db
      .selectFrom("collection_updates")
      .select("updated_at")
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row?.updated_at;
  }

  async mirrorProgress(upstream: string, collection: string): Promise<MirrorProgress> {
    const row = await this.database.db
      .selectFrom("mirror_state")
      .select(["complete_through_day", "checked_at"])
      .where("upstream", "=", upstream)
      .where("collection", "=", collection)
      .executeTakeFirst();
    return { completeThroughDay: row?.complete_through_day ?? null, checkedAt: row?.checked_at ?? null };
  }

  /** Moves a mirror's completed day forward (never back). */
  progress(upstream: string, collection: string, completeThroughDay: number): CompiledQuery {
    return this.database.db
      .insertInto("mirror_state")
      .values({
        upstream,
        collection,
        complete_through_day: completeThroughDay,
        cursor: null,
        checked_at: null,
      })
      .onConflict((conflict) =>
        conflict.columns(["upstream", "collection"]).doUpdateSet({
          complete_through_day: sql<number>`case when mirror_state.complete_through_day is null
            or excluded.complete_through_day > mirror_state.complete_through_day
            then excluded.complete_through_day else mirror_state.complete_through_day end`,
        }),
      )
      .compile();
  }

  /** A mirror's text resume point (see `cursorStatement`), or undefined. */
  async mirrorCursor(upstream: string, collection: string): Promise<string | undefined> {
    const row = await this.database.db
      .selectFrom("mirror_state")
      .select("cursor")
      .where("upstream", "=", upstream)
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row?.cursor ?? undefined;
  }

  /** Sets a mirror's text resume point; to commit with the batch it follows (the notices sink). */
  cursorStatement(upstream: string, collection: string, cursor: string): CompiledQuery {
    return this.database.db
      .insertInto("mirror_state")
      .values({ upstream, collection, complete_through_day: null, cursor, checked_at: null })
      .onConflict((conflict) => conflict.columns(["upstream", "collection"]).doUpdateSet({ cursor }))
      .compile();
  }

  /** Records that a mirror run of `collection` from `upstream` finished at `atSeconds`. */
  async markChecked(upstream: string, collection: string, atSeconds: number): Promise<void> {
    await this.database.db
      .insertInto("mirror_state")
      .values({ upstream, collection, complete_through_day: null, cursor: null, checked_at: atSeconds })
      .onConflict((conflict) =>
        conflict.columns(["upstream", "collection"]).doUpdateSet({ checked_at: atSeconds }),
      )
      .execute();
  }

  /** When any mirror of `collection` last finished a run (seconds), or undefined. */
  async lastChecked(collection: string): Promise<number | undefined> {
    const row = await this.database.db
      .selectFrom("mirror_state")
      .select((eb) => eb.fn.max("checked_at").as("checked"))
      .where("collection", "=", collection)
      .executeTakeFirst();
    return row?.checked == null ? undefined : Number(row.checked);
  }
}
