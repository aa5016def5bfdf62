import { SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import type { CollectionVersion } from "./collection-version.js";
import { type Dimension, isHourly } from "./complaint-dimensions.js";
import type { Database } from "./database.js";
import { VersionedLru } from "./versioned-lru.js";

/**
 * One dimension's counts per day or per hour (`bucketSeconds`), ascending, with running sums: the
 * sum over any run of buckets and the bucket that holds a given position are found by binary
 * search, whatever the span. `buckets` holds bucket numbers (days or hours since the epoch).
 */
export class CountSeries {
  /** `before[i]` is the sum of the counts of `buckets[0..i-1]`; it has one more entry than `buckets`. */
  constructor(
    readonly bucketSeconds: number,
    readonly buckets: Int32Array,
    readonly before: Float64Array,
  ) {}

  get length(): number {
    return this.buckets.length;
  }

  /** The first index whose bucket is `bucket` or later (`length` when none is). */
  firstAtOrAfter(bucket: number): number {
    let low = 0;
    let high = this.buckets.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.buckets[middle]! < bucket) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The sum of the counts of the buckets at indexes `from` (inclusive) to `to` (exclusive). */
  sumOf(from: number, to: number): number {
    return to > from ? this.before[to]! - this.before[from]! : 0;
  }

  /** The sum of the counts of the buckets `first` to `last`, both included (open ends when undefined). */
  sumOfBuckets(first: number | undefined, last: number | undefined): number {
    const from = first === undefined ? 0 : this.firstAtOrAfter(first);
    const to = last === undefined ? this.buckets.length : this.firstAtOrAfter(last + 1);
    return this.sumOf(from, to);
  }

  /**
   * The index in [from, to) of the bucket that holds position `offset` (0-based) counting from
   * `from` upwards, or -1 when the buckets there hold `offset` or fewer rows.
   */
  ascendingIndexOf(from: number, to: number, offset: number): number {
    const target = this.before[from]! + offset;
    // The first index i with before[i + 1] > target.
    let low = from;
    let high = to;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.before[middle + 1]! > target) high = middle;
      else low = middle + 1;
    }
    return low < to ? low : -1;
  }

  /**
   * The index in [from, to) of the bucket that holds position `offset` counting from `to - 1`
   * downwards, or -1 when the buckets there hold `offset` or fewer rows.
   */
  descendingIndexOf(from: number, to: number, offset: number): number {
    const target = this.before[to]! - offset;
    // The last index i with before[i] < target.
    let low = from;
    let high = to;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.before[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low - 1 >= from ? low - 1 : -1;
  }
}

/**
 * The counts of `complaint_counts` (per day) and `complaint_hour_counts` (per hour, for the
 * dimensions with many complaints a day), loaded per dimension on first use and kept in memory
 * for the collection's current version: a total or the bucket that holds an offset then costs a
 * binary search, not a query. Rows are only added by writers, which change the version
 * (`CollectionVersion`), so nothing kept outlives the data it counts by more than the version's
 * poll interval.
 */
export class DimensionCounts {
  private readonly series: VersionedLru<CountSeries>;

  /** `maxBuckets`: buckets kept over all dimensions; the least recently used dimensions go first. */
  constructor(
    private readonly database: Database,
    private readonly version: CollectionVersion,
    maxBuckets = 4_000_000,
  ) {
    this.series = new VersionedLru(maxBuckets);
  }

  /** The counts of `dimension`, ascending by bucket. */
  async of(dimension: Dimension): Promise<CountSeries> {
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      `${dimension.name}\u0000${dimension.value}`,
      version,
      () => this.load(dimension),
      (loaded) => Math.max(1, loaded.length),
    );
  }

  private async load(dimension: Dimension): Promise<CountSeries> {
    const rows = isHourly(dimension.name)
      ? await this.database.db
          .selectFrom("complaint_hour_counts")
          .select(["hour as bucket", "count"])
          .where("dimension", "=", dimension.name)
          .where("value", "=", dimension.value)
          .orderBy("hour", "asc")
          .execute()
      : await this.database.db
          .selectFrom("complaint_counts")
          .select(["day as bucket", "count"])
          .where("dimension", "=", dimension.name)
          .where("value", "=", dimension.value)
          .orderBy("day", "asc")
          .execute();
    const buckets = new Int32Array(rows.length);
    const before = new Float64Array(rows.length + 1);
    rows.forEach((row, index) => {
      buckets[index] = row.bucket;
      before[index + 1] = before[index]! + Number(row.count);
    });
    return new CountSeries(isHourly(dimension.name) ? SECONDS_PER_HOUR : SECONDS_PER_DAY, buckets, before);
  }
}
