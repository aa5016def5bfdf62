import type { Dimension } from "./complaint-dimensions.js";
import type { Database } from "./database.js";
import { complaintCommitsTo } from "./local-commits.js";

/**
 * One dimension's daily counts, ascending by day, with running sums: the sum over any run of days
 * and the day that holds a given position are found by binary search, whatever the span.
 */
export class DaySeries {
  /** `before[i]` is the sum of the counts of `days[0..i-1]`; it has one more entry than `days`. */
  constructor(
    readonly days: Int32Array,
    readonly before: Float64Array,
  ) {}

  get length(): number {
    return this.days.length;
  }

  /** The first index whose day is `day` or later (`length` when none is). */
  firstAtOrAfter(day: number): number {
    let low = 0;
    let high = this.days.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.days[middle]! < day) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The count of the day at `index`. */
  countAt(index: number): number {
    return this.before[index + 1]! - this.before[index]!;
  }

  /** The sum of the counts of the days at indexes `from` (inclusive) to `to` (exclusive). */
  sumOf(from: number, to: number): number {
    return to > from ? this.before[to]! - this.before[from]! : 0;
  }

  /** The sum of the counts of the days from `fromDay` to `toDay`, both included (open ends when undefined). */
  sumOfDays(fromDay: number | undefined, toDay: number | undefined): number {
    const from = fromDay === undefined ? 0 : this.firstAtOrAfter(fromDay);
    const to = toDay === undefined ? this.days.length : this.firstAtOrAfter(toDay + 1);
    return this.sumOf(from, to);
  }

  /**
   * The index in [from, to) of the day that holds position `offset` (0-based) counting from
   * `from` upwards, or -1 when the days there hold `offset` or fewer rows.
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
   * The index in [from, to) of the day that holds position `offset` counting from `to - 1`
   * downwards, or -1 when the days there hold `offset` or fewer rows.
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

export interface DailyCountsOptions {
  /** Days kept over all dimensions; the least recently used dimensions go first. */
  maxDays?: number;
  /**
   * How often the data version is read, at most. 0 reads it on every use (SQLite, where it is a
   * pragma); PostgreSQL reads it once a second, so counts may lag another process's commit by that.
   */
  checkIntervalMs?: number;
}

/**
 * The daily counts of `complaint_counts`, loaded per dimension on first use and kept in memory
 * until the data changes: a total or the day that holds an offset then costs a binary search, not
 * a query. Rows are only added by imports, and every import changes the version this watches
 * (`readVersion`), so nothing kept is ever stale beyond `checkIntervalMs`.
 */
export class DailyCounts {
  private readonly series = new Map<string, DaySeries>();
  private readonly loading = new Map<string, Promise<DaySeries>>();
  private keptDays = 0;
  private version: number | undefined;
  private localCommits = 0;
  private checkedAt = 0;
  private readonly maxDays: number;
  private readonly checkIntervalMs: number;

  constructor(
    private readonly database: Database,
    private readonly readVersion: () => Promise<number>,
    options: DailyCountsOptions = {},
  ) {
    this.maxDays = options.maxDays ?? 2_000_000;
    this.checkIntervalMs = options.checkIntervalMs ?? 0;
  }

  /** The daily counts of `dimension`, ascending by day. */
  async of(dimension: Dimension): Promise<DaySeries> {
    await this.refresh();
    const key = `${dimension.name}\u0000${dimension.value}`;
    const known = this.series.get(key);
    if (known) {
      this.series.delete(key);
      this.series.set(key, known);
      return known;
    }
    let pending = this.loading.get(key);
    if (!pending) {
      const version = this.version;
      pending = this.load(dimension)
        .then((loaded) => {
          if (version === this.version) this.keep(key, loaded);
          return loaded;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private async load(dimension: Dimension): Promise<DaySeries> {
    const rows = await this.database.db
      .selectFrom("complaint_counts")
      .select(["day", "count"])
      .where("dimension", "=", dimension.name)
      .where("value", "=", dimension.value)
      .orderBy("day", "asc")
      .execute();
    const days = new Int32Array(rows.length);
    const before = new Float64Array(rows.length + 1);
    rows.forEach((row, index) => {
      days[index] = row.day;
      before[index + 1] = before[index]! + Number(row.count);
    });
    return new DaySeries(days, before);
  }

  private keep(key: string, loaded: DaySeries): void {
    this.series.set(key, loaded);
    this.keptDays += loaded.length;
    for (const [oldest, old] of this.series) {
      if (this.keptDays <= this.maxDays) break;
      this.series.delete(oldest);
      this.keptDays -= old.length;
    }
  }

  private async refresh(): Promise<void> {
    const now = Date.now();
    const localCommits = complaintCommitsTo(this.database.location);
    const recent = this.checkIntervalMs > 0 && now - this.checkedAt < this.checkIntervalMs;
    if (recent && localCommits === this.localCommits) return;
    this.checkedAt = now;
    const version = await this.readVersion();
    if (version !== this.version || localCommits !== this.localCommits) {
      this.localCommits = localCommits;
      this.series.clear();
      this.keptDays = 0;
      this.version = version;
    }
  }
}
