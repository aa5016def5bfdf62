/**
 * A small least-recently-used map whose entries belong to one version of the data: `get` and `set`
 * take the version the caller read (versions only grow), and the first call with a newer version
 * drops everything; a caller still holding an older version is served nothing and keeps nothing.
 * The answer cache and the complaint count series each keep one, sized by a
 * weight (characters, buckets, entries) rather than a count when their entries differ in size.
 */
export class VersionedLru<Value> {
  private readonly entries = new Map<string, { value: Value; weight: number }>();
  /** Loads under way, by version and key, so that concurrent misses share one (`getOrLoad`). */
  private readonly loading = new Map<string, Promise<Value>>();
  private weight = 0;
  private version = Number.NEGATIVE_INFINITY;

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
   * weight): callers that miss the same key at the same version while it loads share one load.
   */
  async getOrLoad(
    key: string,
    version: number,
    load: () => Promise<Value>,
    weightOf: (value: Value) => number,
  ): Promise<Value> {
    const known = this.get(key, version);
    if (known !== undefined) return known;
    const loadingKey = `${version}\u0000${key}`;
    let pending = this.loading.get(loadingKey);
    if (!pending) {
      pending = load()
        .then((loaded) => {
          this.set(key, loaded, version, weightOf(loaded));
          return loaded;
        })
        .finally(() => this.loading.delete(loadingKey));
      this.loading.set(loadingKey, pending);
    }
    return pending;
  }

  /** Keeps `value` for `key` if it was computed at `version` and the map is still at it. */
  set(key: string, value: Value, version: number, weight = 1): void {
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
