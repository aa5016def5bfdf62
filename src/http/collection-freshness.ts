import type { CollectionFacts } from "../domain/collection-status.js";
import type { Collection } from "../domain/collections.js";
import type { CollectionVersion } from "../store/collection-version.js";
import type { FreshnessStore } from "../store/freshness-store.js";

/**
 * A collection as the freshness features see it: the collection, its change detection (the same
 * `CollectionVersion` its store and answer cache use), and how to count it.
 */
export interface FreshCollection {
  readonly collection: Collection;
  readonly version: CollectionVersion;
  /** Every record of the collection, exactly. */
  recordCount(): Promise<number>;
  /** The newest record's created date, formatted as the collection formats it. */
  newestCreated(): Promise<string | undefined>;
  /** The newest record's created time (seconds), or undefined when there are none; for the metrics. */
  newestCreatedAt(): Promise<number | undefined>;
}

/**
 * When collections last changed, for `/v0/status` and the metrics: the update time of each
 * collection's version stamp, the one answers' `Last-Modified` is taken from (`sendAnswer`), so that
 * every process sees other processes' imports and mirrors.
 */
export class CollectionFreshness {
  constructor(
    readonly collections: readonly FreshCollection[],
    private readonly store: FreshnessStore,
  ) {}

  /** Every collection's figures, read now (not within a poll interval): `/v0/status` promises exact ones. */
  async facts(): Promise<CollectionFacts[]> {
    return Promise.all(
      this.collections.map(async (fresh) => {
        const stamp = await fresh.version.current({ fresh: true });
        return {
          name: fresh.collection.name,
          path: fresh.collection.path,
          records: await fresh.recordCount(),
          newestCreated: await fresh.newestCreated(),
          lastUpdatedSeconds: stamp.updatedAtSeconds,
          lastMirroredSeconds: await this.store.lastChecked(fresh.collection.name),
          schedule: fresh.collection.schedule,
        };
      }),
    );
  }
}
