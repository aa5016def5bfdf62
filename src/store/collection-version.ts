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
    if (!options.fresh && !this.maybeChanged(changes)) return this.stamp;
    this.reading ??= this.read(changes).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /**
   * The current stamp when it is known without a read (no commit seen since the last read, and on
   * PostgreSQL the poll interval not passed): what `current()` would answer at once; else undefined.
   */
  known(): VersionStamp | undefined {
    return this.maybeChanged(this.changesSeen()) ? undefined : this.stamp;
  }

  /**
   * Whether the collection may have changed since the stamp was read: SQLite's data_version already
   * says whether any connection committed; PostgreSQL has no such signal for other processes'
   * commits, so the row is read again once the interval has passed.
   */
  private maybeChanged(changes: string): boolean {
    return (
      changes !== this.seenChanges ||
      (this.database.dialect === "postgres" && Date.now() - this.readAt >= this.pollMs)
    );
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

/** `noteCommit` and `localCommits`, counted per open database. */
export function commitLedger(): Pick<Database, "noteCommit" | "localCommits"> {
  const commits = new Map<string, number>();
  return {
    noteCommit: (collection) => {
      commits.set(collection, (commits.get(collection) ?? 0) + 1);
    },
    localCommits: (collection) => commits.get(collection) ?? 0,
  };
}

/**
 * The version a `VersionedLru` starts at and keeps while it is asked for no other: a cache whose
 * entries do not follow a collection (carried series, prepared statements) is kept at it.
 */
export const UNVERSIONED = Number.NEGATIVE_INFINITY;

/**
 * A small least-recently-used map whose entries belong to one version of the data: `get` and `set`
 * take the version the caller read (versions only grow), and the first call with a newer version
 * drops everything; a caller still holding an older version is served nothing and keeps nothing.
 * The answer cache, the complaint count series and the notices' filter matches each keep one,
 * sized by a weight (characters or bytes) rather than a count, since their entries differ in size.
 * An entry weighs what its caller says its value weighs plus its key's length: a key may be as long
 * as a request allows (16 KB), and entries whose values weigh little must not hold long keys for free.
 */
export class VersionedLru<Value> {
  private readonly entries = new Map<string, { value: Value; weight: number }>();
  /** Loads under way, by version and key, so that concurrent misses share one (`getOrLoad`). */
  private readonly loading = new Map<string, Promise<Value>>();
  private weight = 0;
  private version = UNVERSIONED;

  /** `maxWeight`: the summed weight kept; the least recently used entries go first. */
  constructor(private readonly maxWeight: number) {}

  /** How many entries are kept now (those of an older version count until the next `get` drops them). */
  get size(): number {
    return this.entries.size;
  }

  /** The summed weight of the entries kept now. */
  get keptWeight(): number {
    return this.weight;
  }

  /** The value kept for `key` at `version`, or undefined (also when `version` is new). */
  get(key: string, version: number): Value | undefined {
    this.adopt(version);
    if (version !== this.version) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * The value kept for `key` at `version`, else the one `load` gives (kept with `weightOf` its
   * value's weight; not kept when that is undefined): callers that miss the same key at the same
   * version while it loads share one load.
   */
  async getOrLoad(
    key: string,
    version: number,
    load: () => Promise<Value>,
    weightOf: (value: Value) => number | undefined,
  ): Promise<Value> {
    const known = this.get(key, version);
    if (known !== undefined) return known;
    const loadingKey = `${version}\u0000${key}`;
    let pending = this.loading.get(loadingKey);
    if (!pending) {
      pending = load()
        .then((loaded) => {
          const weight = weightOf(loaded);
          if (weight !== undefined) this.set(key, loaded, version, weight);
          return loaded;
        })
        .finally(() => this.loading.delete(loadingKey));
      this.loading.set(loadingKey, pending);
    }
    return pending;
  }

  /**
   * Keeps `value` for `key` if it was computed at `version` and the map is still at it, weighing
   * `valueWeight` plus the key's length.
   */
  set(key: string, value: Value, version: number, valueWeight = 1): void {
    const weight = valueWeight + key.length;
    if (version !== this.version || weight > this.maxWeight) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.weight -= previous.weight;
    }
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, old] of this.entries) {
      if (this.weight <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.weight -= old.weight;
    }
  }

  private adopt(version: number): void {
    if (version <= this.version) return;
    this.entries.clear();
    this.weight = 0;
    this.version = version;
  }
}

/**
 * Which keys were asked for recently, so that a cache keeps a value from its key's second request
 * on: under distinct requests (clients walking days, offsets and filters), values asked for once
 * would otherwise push out the repeated ones, and each kept value outlives the young generation
 * only to be collected from the old one later, at the price of a full collection of the heap.
 * Remembers the last `remembered` to `2 * remembered` keys (two generations of a set each), a
 * number or what a function says when a generation is full; keys should be short digests, whatever
 * they stand for.
 */
export class AskedKeys {
  private now = new Set<string>();
  private earlier = new Set<string>();

  constructor(private readonly remembered: number | (() => number)) {}

  /** True when `key` was asked for recently; else notes it and says false. */
  askedBefore(key: string): boolean {
    if (this.now.has(key) || this.earlier.has(key)) return true;
    const remembered = this.remembered;
    if (this.now.size >= (typeof remembered === "number" ? remembered : remembered())) {
      this.earlier = this.now;
      this.now = new Set();
    }
    this.now.add(key);
    return false;
  }
}
