import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { Complaint } from "../domain/complaint.js";
import type { TimeRange } from "../domain/complaint-query.js";
import { SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import { type CollectionVersion, UNVERSIONED, VersionedLru } from "./collection-version.js";
import type { StoredComplaintQuery } from "./complaint-filters.js";
import type { Database } from "./database.js";
import { paddedInList } from "./padded-in-list.js";
import type { ComplaintPlaceViolationTable, FlagViolationDimension, Schema } from "./schema.js";

/**
 * A dimension of `complaint_counts`: a set of complaints that a filter selects whole (all of
 * them, one state, one city, ...), counted per day of `created_at` (or of `violation_at`). The
 * `shown_` dimensions and `subject` count by the value exactly as stored, for the counts endpoint's
 * groups (the `state`, `city` and `any_city`, a city in every state, dimensions count by match key,
 * for filters); `shown_area` is
 * counted per hour only (per day, `area` counts the same). `violated_on` counts, per hour of
 * `created_at`, the complaints of one violation day (its value: the day number, days since 1970), so
 * that a range of whole violation days has its matches per created hour from counts.
 */
export interface Dimension {
  name:
    | "all"
    | "state"
    | "city"
    | "any_city"
    | "area"
    | "robocall"
    | "violation"
    | "violated_on"
    | "shown_state"
    | "shown_city"
    | "shown_area"
    | "subject";
  value: string;
  column: "created_at" | "violation_at";
}

const SEPARATOR = "\u001f";

/**
 * Counts of complaints per dimension, value and day, summed in memory before they are written: the
 * one definition of which dimensions a stored complaint is counted in. Nested maps keyed by the
 * value and the day number, since building a key text for each of a row's six counts cost more
 * than the rest of writing the row.
 */
export class DimensionTally {
  /**
   * Counts per bucket of `bucketSeconds` (a day, or an hour for `complaint_hour_counts`), of the
   * dimensions in `only` (all when absent).
   */
  constructor(
    private readonly bucketSeconds: number = SECONDS_PER_DAY,
    private readonly only?: ReadonlySet<Dimension["name"]>,
  ) {}

  private readonly tallies: Record<Dimension["name"], Map<string, Map<number, number>>> = {
    all: new Map(),
    state: new Map(),
    city: new Map(),
    any_city: new Map(),
    area: new Map(),
    robocall: new Map(),
    violation: new Map(),
    violated_on: new Map(),
    shown_state: new Map(),
    shown_city: new Map(),
    shown_area: new Map(),
    subject: new Map(),
  };
  /** Distinct (dimension, value, day) counts held. */
  size = 0;

  /** Counts one complaint; `stateKey` and `cityKey` are its match keys. */
  add(complaint: Complaint, stateKey: string, cityKey: string): void {
    const bucket = Math.floor(complaint.createdAt / this.bucketSeconds);
    const only = this.only;
    if (!only || only.has("all")) this.bump(this.tallies.all, "", bucket);
    if (!only || only.has("state")) this.bump(this.tallies.state, stateKey, bucket);
    if (!only || only.has("city")) this.bump(this.tallies.city, `${stateKey}${SEPARATOR}${cityKey}`, bucket);
    if (!only || only.has("any_city")) this.bump(this.tallies.any_city, cityKey, bucket);
    if (!only || only.has("area")) this.bump(this.tallies.area, complaint.areaCode, bucket);
    if (!only || only.has("robocall")) this.bump(this.tallies.robocall, complaint.robocall, bucket);
    if (!only || only.has("violation"))
      this.bump(this.tallies.violation, "", Math.floor(complaint.violationAt / this.bucketSeconds));
    if (!only || only.has("violated_on"))
      this.bump(
        this.tallies.violated_on,
        String(Math.floor(complaint.violationAt / SECONDS_PER_DAY)),
        bucket,
      );
    if (!only || only.has("shown_state")) this.bump(this.tallies.shown_state, complaint.state, bucket);
    if (!only || only.has("shown_city")) this.bump(this.tallies.shown_city, complaint.city, bucket);
    if (!only || only.has("shown_area")) this.bump(this.tallies.shown_area, complaint.areaCode, bucket);
    if (!only || only.has("subject")) this.bump(this.tallies.subject, complaint.subject, bucket);
  }

  private bump(values: Map<string, Map<number, number>>, value: string, day: number): void {
    let days = values.get(value);
    if (days === undefined) {
      days = new Map();
      values.set(value, days);
    }
    const count = days.get(day);
    if (count === undefined) {
      days.set(day, 1);
      this.size++;
    } else days.set(day, count + 1);
  }

  /** Every count held, as (dimension, value, day, count). */
  *entries(): Generator<[name: Dimension["name"], value: string, day: number, count: number]> {
    for (const [name, values] of Object.entries(this.tallies) as Array<
      [Dimension["name"], Map<string, Map<number, number>>]
    >)
      for (const [value, days] of values) for (const [day, count] of days) yield [name, value, day, count];
  }

  clear(): void {
    for (const values of Object.values(this.tallies)) values.clear();
    this.size = 0;
  }
}

/**
 * Counts keyed by a fixed number of values (a state, a day, ...), summed in memory before they are
 * written: nested maps, one level a key, so that counting a row builds no key text. The writers
 * keep `complaint_state_violations` (state, created day, violation day),
 * `complaint_flag_violations` (robocall flag or subject, created day, violation day) and
 * `complaint_combination_counts` (state, robocall flag, subject, created day) with these.
 */
export class NestedTally<Keys extends ReadonlyArray<string | number>> {
  private readonly root = new Map<string | number, unknown>();
  /** Distinct keys held. */
  size = 0;

  add(...keys: Keys): void {
    this.addTimes(1, keys);
  }

  /** Adds `times` to the count of `keys`. */
  addTimes(times: number, keys: Readonly<Keys>): void {
    let level = this.root;
    for (let depth = 0; depth < keys.length - 1; depth++) {
      let next = level.get(keys[depth]!) as Map<string | number, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(keys[depth]!, next);
      }
      level = next;
    }
    const last = keys[keys.length - 1]!;
    const count = level.get(last) as number | undefined;
    if (count === undefined) {
      level.set(last, times);
      this.size++;
    } else level.set(last, count + times);
  }

  /**
   * Calls `write` with every count held, its keys then the count. The keys come in one array that
   * is reused from call to call (no allocation per count, for a flush of tens of thousands).
   */
  forEach(write: (keys: Readonly<Keys>, count: number) => void): void {
    const keys: Array<string | number> = [];
    const walk = (level: Map<string | number, unknown>, depth: number) => {
      for (const [key, value] of level) {
        keys[depth] = key;
        if (value instanceof Map) walk(value as Map<string | number, unknown>, depth + 1);
        else write(keys as unknown as Keys, value as number);
      }
    };
    walk(this.root, 0);
  }

  clear(): void {
    this.root.clear();
    this.size = 0;
  }
}

/**
 * The one equality filter a range of whole violation days is counted with per created day
 * (`DimensionCounts.violatedWith`): a state (its match key), the robocall flag, a subject's
 * stored spellings, an area code, or a city (its match key, in every state unless `state` names
 * one).
 */
export interface ViolatedWith {
  dimension: "state" | "robocall" | "subject" | "area" | "city";
  values: readonly string[];
  /**
   * With a state, a subject or a place: only its complaints of this robocall flag (as stored),
   * counted in `complaint_flag_violations` as dimension `state_robocall` (migration 024), for a
   * subject `subject_robocall` or `state_subject_robocall` (migration 030), for a place in
   * `complaint_place_violations` (migration 031).
   */
  robocall?: string;
  /**
   * With a subject or a place: only its complaints of this state (match key), counted as dimension
   * `state_subject` or `state_subject_robocall` (migration 030), for a place in
   * `complaint_place_violations`.
   */
  state?: string;
  /** With a city: only its complaints of this area code, counted as place `city_area` (migration 031). */
  areaCode?: string;
}

/**
 * The dimension whose series counts one of `filter`'s values alone, by created time: for a city,
 * the city in its state, or with no state in every state.
 */
export function filterDimension({ dimension, state }: ViolatedWith, value: string): Dimension {
  return dimension === "city"
    ? cityDimension(value, state)
    : { name: dimension, value, column: "created_at" };
}

/** The dimension of a city (a match key) in `state`, or with no state in every state. */
function cityDimension(city: string, state: string | undefined): Dimension {
  return state === undefined
    ? { name: "any_city", value: city, column: "created_at" }
    : { name: "city", value: `${state}${SEPARATOR}${city}`, column: "created_at" };
}

/**
 * The `complaint_flag_violations` value of several filters' values (a state's match key, a subject
 * and a robocall flag as stored, in that order), joined by U+001F (migrations 024 and 030).
 */
export function combinedValue(...values: string[]): string {
  return values.join("\u001f");
}

/**
 * The `complaint_flag_violations` dimension and values that count `filter`'s complaints with its
 * flag or state besides, or undefined for a filter counted on its own (a state's in
 * `complaint_state_violations`, the others' under their own dimension).
 */
function combinedCells(
  filter: ViolatedWith,
): { dimension: FlagViolationDimension; values: string[] } | undefined {
  const { dimension, values, robocall, state } = filter;
  if (dimension === "state")
    return robocall === undefined
      ? undefined
      : { dimension: "state_robocall", values: values.map((stateKey) => combinedValue(stateKey, robocall)) };
  if (dimension !== "subject") return undefined;
  if (state !== undefined)
    return robocall === undefined
      ? { dimension: "state_subject", values: values.map((subject) => combinedValue(state, subject)) }
      : {
          dimension: "state_subject_robocall",
          values: values.map((subject) => combinedValue(state, subject, robocall)),
        };
  return robocall === undefined
    ? undefined
    : { dimension: "subject_robocall", values: values.map((subject) => combinedValue(subject, robocall)) };
}

/**
 * The `complaint_place_violations` place and values that count `filter` (migration 031): a city's
 * (with an area code, under `city_area`), or an area code's with a state or the flag; undefined
 * for any other filter (an area code alone has its fewer rows in `complaint_flag_violations`).
 */
function placeCells({
  dimension,
  values,
  areaCode,
  robocall,
  state,
}: ViolatedWith): { place: ComplaintPlaceViolationTable["place"]; values: string[] } | undefined {
  if (dimension === "city")
    return areaCode === undefined
      ? { place: "city", values: [...values] }
      : { place: "city_area", values: values.map((city) => combinedValue(city, areaCode)) };
  return dimension === "area" && (robocall !== undefined || state !== undefined)
    ? { place: "area", values: [...values] }
    : undefined;
}

/** A count table's rows with a created day, a violation day and a count. */
type ViolationCells = SelectQueryBuilder<
  Schema,
  | "complaint_state_violations"
  | "complaint_flag_violations"
  | "complaint_place_violations"
  | "complaint_state_violation_blocks"
  | "complaint_flag_violation_blocks"
  | "complaint_place_violation_blocks",
  object
>;

/** A filter's rows of a count table by violation day, or of its table by block when `blocks`. */
type ViolationCellsOf = (blocks: boolean) => ViolationCells;

/** Whole blocks a range must hold for its sum to read the blocks' table (each part costs a seek). */
const WHOLE_BLOCKS_MIN = 2;

/**
 * The parts a sum over the violation days `firstDay` to `lastDay` reads (`sumOfViolationDays`):
 * its day rows alone, or with WHOLE_BLOCKS_MIN whole blocks or more, the day rows before the first
 * whole block, the blocks' rows (`blocks`; `from` and `to` are then the first days of the first and
 * last block), and the day rows after the last.
 */
function violationParts(
  firstDay: number,
  lastDay: number,
): Array<[blocks: boolean, from: number, to: number]> {
  const firstWhole = violationBlockOf(firstDay + VIOLATION_BLOCK_DAYS - 1);
  const afterWhole = violationBlockOf(lastDay + 1);
  if (afterWhole - firstWhole < WHOLE_BLOCKS_MIN * VIOLATION_BLOCK_DAYS) return [[false, firstDay, lastDay]];
  const parts: Array<[blocks: boolean, from: number, to: number]> = [];
  if (firstDay < firstWhole) parts.push([false, firstDay, firstWhole - 1]);
  parts.push([true, firstWhole, afterWhole - VIOLATION_BLOCK_DAYS]);
  if (afterWhole <= lastDay) parts.push([false, afterWhole, lastDay]);
  return parts;
}

/**
 * How many rows a sum over the violation days `firstDay` to `lastDay` reads per created day (and
 * value): a day row for each day outside whole blocks, a block row for each whole block.
 */
export function summedRowsPerCreatedDay(firstDay: number, lastDay: number): number {
  return violationParts(firstDay, lastDay).reduce(
    (rows, [blocks, from, to]) => rows + (blocks ? (to - from) / VIOLATION_BLOCK_DAYS + 1 : to - from + 1),
    0,
  );
}

/**
 * The sums of `cellsOf`'s rows per created day, of the violation days `firstDay` to `lastDay`,
 * ascending, of the created days `createdDays` (one seek of the table's key each, per part). A
 * range holding WHOLE_BLOCKS_MIN whole blocks of violation days or more sums those blocks' rows
 * (`..._violation_blocks`, migration 033) and day rows only for its days outside them, in one
 * statement.
 */
async function sumOfViolationDays(
  db: Kysely<Schema>,
  cellsOf: ViolationCellsOf,
  firstDay: number,
  lastDay: number,
  createdDays: readonly number[],
): Promise<CountSeries> {
  const sums = violationParts(firstDay, lastDay).map(([blocks, from, to]) => {
    // Each table has the columns the sum reads: typed as the first, it is the same statement over any.
    const cells = cellsOf(blocks) as unknown as SelectQueryBuilder<
      Schema,
      "complaint_state_violations",
      object
    >;
    return cells
      .where("created_day", "in", [...createdDays])
      .select((eb) => ["created_day", eb.fn.sum<number>("count").as("count")])
      .where("violation_day", ">=", from)
      .where("violation_day", "<=", to)
      .groupBy("created_day");
  });
  const rows = await db
    .selectFrom(
      sums
        .slice(1)
        .reduce((union, sum) => union.unionAll(sum), sums[0]!)
        .as("parts"),
    )
    .select((eb) => ["created_day as bucket", eb.fn.sum<number>("count").as("count")])
    .groupBy("created_day")
    .orderBy("created_day")
    .execute();
  return seriesOf(SECONDS_PER_DAY, rows);
}

/**
 * The most created days `violatedWithCount` sums for a window alone (one seek each, not kept);
 * a wider window reads the range's series, which is kept, so that a client's later pages of the
 * same combination read nothing.
 */
const WINDOW_DAYS_SUMMED_MAX = 31;

/**
 * Violation days per row of the `..._violation_blocks` tables (migration 033, where it is frozen):
 * a range of violation days sums a block's row for each of its whole blocks, and day rows only for
 * the days at its two ends.
 */
export const VIOLATION_BLOCK_DAYS = 16;

/**
 * `violationBlockOf` of the column `violation_day` in SQL, on both dialects (their `%` truncates
 * toward zero, so it is brought back up before 1970).
 */
export const VIOLATION_BLOCK_SQL = `violation_day - ((violation_day % ${VIOLATION_BLOCK_DAYS}) + ${VIOLATION_BLOCK_DAYS}) % ${VIOLATION_BLOCK_DAYS}`;

/** The first day of `day`'s block of VIOLATION_BLOCK_DAYS (days since 1970, before 1970 too). */
export function violationBlockOf(day: number): number {
  return day - (((day % VIOLATION_BLOCK_DAYS) + VIOLATION_BLOCK_DAYS) % VIOLATION_BLOCK_DAYS);
}

/**
 * The filters of `ViolatedWith` also counted per created hour (`complaint_flag_violation_hours`,
 * migration 023, `DimensionCounts.violatedWithHourly`): those whose values each hold a large
 * share of every day's complaints, so that skipping within a day would cost thousands of entries.
 */
export const HOURLY_VIOLATED_WITH: ReadonlySet<ViolatedWith["dimension"]> = new Set(["robocall"]);

/**
 * The dimension whose daily counts give a query's total, or null when the query mixes filters no
 * dimension covers (those are counted from the rows through the best index). A subject (resolved,
 * see `StoredComplaintQuery`) alone or with a created range is its one stored spelling's `subject`
 * counts; with another filter, or spelled several ways in the store, it is counted on rows.
 */
export function dimensionFor(query: StoredComplaintQuery): Dimension | null {
  if (query.phone !== undefined) return null;
  if (query.subject !== undefined) {
    const alone =
      query.subjects?.length === 1 &&
      query.state === undefined &&
      query.city === undefined &&
      query.areaCode === undefined &&
      query.robocall === undefined &&
      query.violation === undefined;
    return alone ? { name: "subject", value: query.subjects![0]!, column: "created_at" } : null;
  }
  // A combination of place filters is counted on rows; a city without a state is one place filter.
  const places =
    (query.state !== undefined || query.city !== undefined ? 1 : 0) +
    (query.areaCode !== undefined ? 1 : 0) +
    (query.robocall ? 1 : 0);
  if (places > 1) return null;
  if (query.violation) {
    const alone = !query.created && places === 0;
    return alone ? { name: "violation", value: "", column: "violation_at" } : null;
  }
  if (query.city !== undefined) return cityDimension(query.city, query.state);
  if (query.state !== undefined) return { name: "state", value: query.state, column: "created_at" };
  if (query.areaCode !== undefined) return { name: "area", value: query.areaCode, column: "created_at" };
  if (query.robocall !== undefined) return { name: "robocall", value: query.robocall, column: "created_at" };
  return { name: "all", value: "", column: "created_at" };
}

/**
 * The dimensions with many complaints a day, which `complaint_hour_counts` also counts per hour,
 * and what they are counted from: the stored value (a column, or for `violated_on` an expression
 * valid in both dialects) and the time.
 */
export const HOURLY_DIMENSIONS: ReadonlyArray<{
  name: Dimension["name"];
  value: string | null;
  column: "created_at" | "violation_at";
}> = [
  { name: "all", value: null, column: "created_at" },
  { name: "state", value: "state_key", column: "created_at" },
  { name: "robocall", value: "robocall", column: "created_at" },
  { name: "violation", value: null, column: "violation_at" },
  { name: "violated_on", value: "cast(violation_day as text)", column: "created_at" },
  { name: "shown_state", value: "state", column: "created_at" },
  { name: "shown_city", value: "city", column: "created_at" },
  { name: "shown_area", value: "area_code", column: "created_at" },
  { name: "subject", value: "subject", column: "created_at" },
];

/** The dimensions `complaint_counts` holds per day: all but `shown_area` (per day, `area` is the same). */
export const DAILY_DIMENSIONS: ReadonlySet<Dimension["name"]> = new Set([
  "all",
  "state",
  "city",
  "any_city",
  "area",
  "robocall",
  "violation",
  "shown_state",
  "shown_city",
  "subject",
]);

/** Whether `name` is counted per hour as well as per day. */
export function isHourly(name: Dimension["name"]): boolean {
  return HOURLY_DIMENSIONS.some((dimension) => dimension.name === name);
}

/**
 * What a kept `CountSeries` weighs in its cache (`VersionedLru`, which adds its key), in bytes: its
 * buckets (an Int32 and a Float64 each) and the entry around them. A series with no bucket is not
 * kept (undefined): one probe of an index finds it again, and keeping the series of distinct long
 * values that match nothing filled memory (18 MB of keys in 60 s of `bench:memory`).
 */
export function keptSeriesBytes(series: CountSeries): number | undefined {
  return series.length === 0
    ? undefined
    : 128 +
        series.buckets.BYTES_PER_ELEMENT * series.length +
        series.before.BYTES_PER_ELEMENT * (series.length + 1);
}

/** What a cache of count series holds (for the metrics). */
export interface CountSeriesFigures {
  readonly entries: number;
  /** Their weight in the cache: `keptSeriesBytes` of each, plus its key's length. */
  readonly keptBytes: number;
}

/**
 * One dimension's counts per day or per hour (`bucketSeconds`), ascending, with running sums: the
 * sum over any run of buckets and the bucket that holds a given position are found by binary
 * search, whatever the span. `buckets` holds bucket numbers (days or hours since the epoch).
 */
export class CountSeries {
  /**
   * `before[i]` is the sum of the counts of `buckets[0..i-1]`; it has one more entry than `buckets`.
   * In 32 bits while the sums fit (`runningSums`), which is a third less memory than 64.
   */
  constructor(
    readonly bucketSeconds: number,
    readonly buckets: Int32Array,
    readonly before: Uint32Array | Float64Array,
  ) {}

  get length(): number {
    return this.buckets.length;
  }

  /**
   * The buckets `first` to `last` (both included) of this series, sharing its arrays: its sums and
   * positions are those of the buckets kept.
   */
  slice(first: number, last: number): CountSeries {
    const from = this.firstAtOrAfter(first);
    const to = Math.max(from, this.firstAtOrAfter(last + 1));
    return new CountSeries(
      this.bucketSeconds,
      this.buckets.subarray(from, to),
      this.before.subarray(from, to + 1),
    );
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
  /**
   * Each violation day's `violated_on` series as last read, whatever the version (all kept at
   * `CARRIED_VERSION`), weighing at most `carriedMaxBytes`: held again at a later version when its
   * day has as many complaints then (`heldDays`).
   */
  private readonly carried: VersionedLru<CountSeries>;

  /**
   * `maxBytes`: series kept over all dimensions (`keptSeriesBytes`); the least recently used go
   * first. `carriedMaxBytes`: the violation days' series carried over from one version to the next.
   */
  constructor(
    private readonly database: Database,
    private readonly version: CollectionVersion,
    maxBytes = 32 * 1024 * 1024,
    carriedMaxBytes = 22 * 1024 * 1024,
  ) {
    this.series = new VersionedLru(maxBytes);
    this.carried = new VersionedLru(carriedMaxBytes);
  }

  /** The series kept now. */
  figures(): CountSeriesFigures {
    return { entries: this.series.size, keptBytes: this.series.keptWeight };
  }

  /** The counts of `dimension`, ascending by bucket. */
  async of(dimension: Dimension): Promise<CountSeries> {
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      `${dimension.name}\u0000${dimension.value}`,
      version,
      () => this.load(dimension),
      keptSeriesBytes,
    );
  }

  /** The counts of `dimension` per day (`complaint_counts`), also for a dimension counted per hour. */
  async daily(dimension: Dimension): Promise<CountSeries> {
    if (!isHourly(dimension.name)) return this.of(dimension);
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      `daily\u0000${dimension.name}\u0000${dimension.value}`,
      version,
      () => this.loadDaily(dimension),
      keptSeriesBytes,
    );
  }

  /**
   * The complaints whose violation day is one of `firstDay` to `lastDay` (days since 1970), per
   * hour of their creation, ascending: the sum of those days' series, kept like a dimension's.
   * Each day's series (its `violated_on` counts) is read once per version and kept on its own, so
   * that a new range over days already read is summed in memory (tens of microseconds) instead of
   * reading every row of its days again (3.6 ms on average for ranges within 36 days of 2M
   * complaints).
   */
  async violatedOn(firstDay: number, lastDay: number): Promise<CountSeries> {
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      violatedOnRangeKey(firstDay, lastDay),
      version,
      async () => sumOfSeries(await this.violatedOnDays(daysFrom(firstDay, lastDay), version)),
      keptSeriesBytes,
    );
  }

  /**
   * The first and last created time (seconds, inclusive) of the complaints violated on `firstDay`
   * to `lastDay`, or undefined when there are none. From the days' `violated_on` series when memory
   * holds them (whole hours), else from one statement of two seeks a day on the days' index
   * (`complaints_violation_day`, exact to the second): reading the counts of the days not held
   * instead, to take only their first and last hours, cost about 1,850 rows a day at 20 million
   * complaints a year (10 ms on average for a combination's first request with a range).
   */
  async createdSpanOfViolationDays(firstDay: number, lastDay: number): Promise<TimeRange | undefined> {
    const { version } = await this.version.current();
    const summed = this.series.get(violatedOnRangeKey(firstDay, lastDay), version);
    const held = summed ? [summed] : await this.heldDays(daysFrom(firstDay, lastDay), version);
    if (held.every((series) => series !== undefined)) {
      let from = Number.POSITIVE_INFINITY;
      let to = Number.NEGATIVE_INFINITY;
      for (const series of held as CountSeries[]) {
        if (series.length === 0) continue;
        from = Math.min(from, series.buckets[0]! * series.bucketSeconds);
        to = Math.max(to, (series.buckets[series.length - 1]! + 1) * series.bucketSeconds - 1);
      }
      return from > to ? undefined : { from, to };
    }
    const { rows } = await sql<{ first: number | string | null; last: number | string | null }>`
      with recursive days (day) as (
        select cast(${firstDay} as integer) union all select day + 1 from days where day < ${lastDay}
      )
      select
        min((select created_at from complaints where violation_day = days.day order by created_at limit 1)) as first,
        max((select created_at from complaints where violation_day = days.day order by created_at desc limit 1)) as last
      from days`.execute(this.database.db);
    const { first, last } = rows[0] ?? { first: null, last: null };
    return first === null || last === null ? undefined : { from: Number(first), to: Number(last) };
  }

  /**
   * The complaints whose violation day is one of `days` and whose created hour is one of
   * `firstHour` to `lastHour`, from the `violated_on` counts: the days' series held in memory
   * summed there, the others read with one seek a day, not kept.
   */
  async violatedWithin(days: readonly number[], firstHour: number, lastHour: number): Promise<number> {
    // The days whose series are held (on SQLite every day's after `warmViolatedOn`) are summed in
    // memory: the statement seeks once a day (8 ms for 800 days at 2M).
    const { version } = await this.version.current();
    let held = 0;
    const missing: number[] = [];
    const series = await this.heldDays(days, version);
    days.forEach((day, index) => {
      const daySeries = series[index];
      if (daySeries === undefined) missing.push(day);
      else held += daySeries.sumOfBuckets(firstHour, lastHour);
    });
    if (missing.length === 0) return held;
    const row = await this.database.db
      .selectFrom("complaint_hour_counts")
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("count"), eb.lit(0)).as("count"))
      .where("dimension", "=", "violated_on")
      .where("value", "in", missing.map(String))
      .where("hour", ">=", firstHour)
      .where("hour", "<=", lastHour)
      .executeTakeFirstOrThrow();
    return held + Number(row.count);
  }

  /**
   * The complaints matching `filter` (a state, the robocall flag, a subject or an area code, a state
   * or a subject perhaps with the flag, a subject perhaps with a state) whose violation day
   * is one of `firstDay` to `lastDay`, per day of their creation, ascending, from
   * `complaint_state_violations` (migration 017) or `complaint_flag_violations` (migration 020),
   * kept like a dimension's. One statement sums the range's counts per created day, one seek of the
   * table's key per day (and value) the filter has complaints (its daily counts name them): about
   * 3.5 ms for California over 250 violation days at 20 million complaints a year, returning a
   * row per created day rather than per count.
   */
  async violatedWith(filter: ViolatedWith, firstDay: number, lastDay: number): Promise<CountSeries> {
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      this.violatedWithKey(filter, firstDay, lastDay),
      version,
      async () => {
        // Each part of the sum seeks each created day the filter has complaints on in its table's
        // key, instead of reading every violation day.
        const days = await this.createdDaysWithin(filter);
        if (days.length === 0) return seriesOf(SECONDS_PER_DAY, []);
        return sumOfViolationDays(this.database.db, this.cellsOf(filter), firstDay, lastDay, days);
      },
      keptSeriesBytes,
    );
  }

  /**
   * How many complaints matching `filter` (as `violatedWith` takes it) and violated on `firstDay`
   * to `lastDay` were created on `firstCreatedDay` to `lastCreatedDay`: from the range's series
   * when it is kept, else summed on those created days alone and not kept. A page weighing its
   * walks needs only its window's days, where the range's series reads every created day of the
   * filter (at 20 million complaints a year, a state over half a year: 1.7 to 2.4 ms a statement).
   */
  async violatedWithCount(
    filter: ViolatedWith,
    firstDay: number,
    lastDay: number,
    firstCreatedDay: number,
    lastCreatedDay: number,
  ): Promise<number> {
    const { version } = await this.version.current();
    const kept = this.series.get(this.violatedWithKey(filter, firstDay, lastDay), version);
    if (kept !== undefined) return kept.sumOfBuckets(firstCreatedDay, lastCreatedDay);
    const days = await this.createdDaysWithin(filter, firstCreatedDay, lastCreatedDay);
    if (days.length === 0) return 0;
    // A wide window costs about what the range's series does: read and kept, for the next pages.
    if (days.length > WINDOW_DAYS_SUMMED_MAX)
      return (await this.violatedWith(filter, firstDay, lastDay)).sumOfBuckets(
        firstCreatedDay,
        lastCreatedDay,
      );
    const window = await sumOfViolationDays(
      this.database.db,
      this.cellsOf(filter),
      firstDay,
      lastDay,
      paddedInList(days),
    );
    return window.sumOfBuckets(firstCreatedDay, lastCreatedDay);
  }

  /** The key of `violatedWith`'s series: every field of the filter, in a fixed order, so that a field added to `ViolatedWith` keys it too. */
  private violatedWithKey(filter: ViolatedWith, firstDay: number, lastDay: number): string {
    const fields = Object.entries(filter).sort(([a], [b]) => (a < b ? -1 : 1));
    return `violated_with\u0000${JSON.stringify(fields)}\u0000${firstDay}\u0000${lastDay}`;
  }

  /**
   * The created days from `firstCreatedDay` to `lastCreatedDay` (all, when omitted) on which
   * complaints match `filter`'s values, ascending: their daily counts name them, each read only
   * within the window.
   */
  private async createdDaysWithin(
    filter: ViolatedWith,
    firstCreatedDay = Number.NEGATIVE_INFINITY,
    lastCreatedDay = Number.POSITIVE_INFINITY,
  ): Promise<number[]> {
    const name = filter.dimension === "city" ? "any_city" : filter.dimension;
    const days = new Set<number>();
    for (const value of filter.values) {
      const series = await this.daily({ name, value, column: "created_at" });
      const { buckets } = series;
      const end = series.firstAtOrAfter(lastCreatedDay + 1);
      for (let index = series.firstAtOrAfter(firstCreatedDay); index < end; index++)
        days.add(buckets[index]!);
    }
    return [...days].sort((a, b) => a - b);
  }

  /**
   * The violation days of `firstDay` to `lastDay` on which complaints matching `filter` (as
   * `violatedWith` takes it) created on `firstCreatedDay` to `lastCreatedDay` were violated,
   * ascending: from the filter's rows of those created days in its count table (a seek of the
   * table's key per value and created day on which the filter has complaints). A page walking the days' index then seeks only the days that hold its
   * matches: a sparse combination's page can span months of created days, whose complaints were
   * violated on a few dozen of the range's days (at 20 million complaints a year, a state's subject
   * over a year of old violation days: 51 days of 348, and 11,000 entries read instead of 78,000).
   */
  async violationDaysWith(
    filter: ViolatedWith,
    firstDay: number,
    lastDay: number,
    firstCreatedDay: number,
    lastCreatedDay: number,
  ): Promise<number[]> {
    const createdDays = await this.createdDaysWithin(filter, firstCreatedDay, lastCreatedDay);
    if (createdDays.length === 0) return [];
    // Typed as the state's table: each has the columns read here.
    const cells = this.cellsOf(filter)(false) as unknown as SelectQueryBuilder<
      Schema,
      "complaint_state_violations",
      object
    >;
    const rows = await cells
      .select("violation_day")
      .distinct()
      // Each created day sought with its violation days' range (the table's key), rather than every
      // violation day of the created range read and tested.
      .where("created_day", "in", paddedInList(createdDays))
      .where("violation_day", ">=", firstDay)
      .where("violation_day", "<=", lastDay)
      .orderBy("violation_day")
      .execute();
    return rows.map((row) => Number(row.violation_day));
  }

  /** The rows that count `filter` (as `violatedWith` takes it), of its table by violation day, or by block. */
  private cellsOf(filter: ViolatedWith): ViolationCellsOf {
    const db = this.database.db;
    const { dimension, values, robocall, state } = filter;
    const place = placeCells(filter);
    if (place !== undefined)
      return (blocks) => {
        let cells = db
          .selectFrom(blocks ? "complaint_place_violation_blocks" : "complaint_place_violations")
          .where("place", "=", place.place)
          .where("value", "in", place.values);
        if (state !== undefined) cells = cells.where("state_key", "=", state);
        if (robocall !== undefined) cells = cells.where("robocall", "=", robocall);
        return cells;
      };
    if (dimension === "city") throw new Error("a city is counted in complaint_place_violations");
    const flag = combinedCells(filter) ?? (dimension === "state" ? undefined : { dimension, values });
    return (blocks) =>
      flag === undefined
        ? db
            .selectFrom(blocks ? "complaint_state_violation_blocks" : "complaint_state_violations")
            .where("state_key", "in", values)
        : db
            .selectFrom(blocks ? "complaint_flag_violation_blocks" : "complaint_flag_violations")
            .where("dimension", "=", flag.dimension)
            .where("value", "in", flag.values);
  }

  /**
   * As `violatedWith`, per hour of creation within `window` (whole days: a window of
   * `violatedWith`'s buckets), for a filter of HOURLY_VIOLATED_WITH: one seek of
   * `complaint_flag_violation_hours` per value, its rows of the window's hours and the range's
   * violation days summed per hour. Not kept: a window is a page's day or two.
   */
  async violatedWithHourly(
    { dimension, values }: ViolatedWith,
    firstDay: number,
    lastDay: number,
    window: TimeRange,
  ): Promise<CountSeries> {
    if (dimension !== "robocall") throw new Error(`${dimension} is not counted per hour`);
    const rows = await this.database.db
      .selectFrom("complaint_flag_violation_hours")
      .select((eb) => ["created_hour as bucket", eb.fn.sum<number>("count").as("count")])
      .where("dimension", "=", dimension)
      .where("value", "in", values)
      .where("created_hour", ">=", Math.floor(window.from / SECONDS_PER_HOUR))
      .where("created_hour", "<=", Math.floor(window.to / SECONDS_PER_HOUR))
      .where("violation_day", ">=", firstDay)
      .where("violation_day", "<=", lastDay)
      .groupBy("created_hour")
      .orderBy("created_hour")
      .execute();
    return seriesOf(SECONDS_PER_HOUR, rows);
  }

  /**
   * Reads and keeps the `violated_on` series of the violation days, newest first, `chunkDays` at a
   * time, until the series kept weigh `maxBytes` (and at most the newest `days` days, when given);
   * days already held are not read again: a range's first request then finds its days' series in
   * memory, instead of reading them (at 20 million complaints a year, about 1,850 counts and 2 ms a
   * day: a range of 200 days not held took 400 ms).
   */
  async warmViolatedOn(maxBytes: number, days?: number, chunkDays = 10): Promise<void> {
    const { version } = await this.version.current();
    const held = await this.violationDays();
    if (held === undefined) return;
    const newest = held.last;
    const oldest = days === undefined ? held.first : Math.max(held.first, newest - days + 1);
    for (let last = newest; last >= oldest && this.series.keptWeight < maxBytes; last -= chunkDays)
      await this.violatedOnDays(daysFrom(Math.max(oldest, last - chunkDays + 1), last), version);
  }

  /**
   * The first and last day (days since 1970) on which stored complaints were violated, from the
   * `violation` dimension's hourly counts; undefined when there are none.
   */
  async violationDays(): Promise<{ first: number; last: number } | undefined> {
    const violations = await this.of({ name: "violation", value: "", column: "violation_at" });
    if (violations.length === 0) return undefined;
    const hoursPerDay = SECONDS_PER_DAY / SECONDS_PER_HOUR;
    return {
      first: Math.floor(violations.buckets[0]! / hoursPerDay),
      last: Math.floor(violations.buckets[violations.length - 1]! / hoursPerDay),
    };
  }

  /** The `violated_on` series of each day, from memory, the days not held read in one statement. */
  private async violatedOnDays(days: readonly number[], version: number): Promise<CountSeries[]> {
    const held = await this.heldDays(days, version);
    const missing = days.filter((_, index) => held[index] === undefined);
    if (missing.length === 0) return held as CountSeries[];
    // Summed per day here rather than grouped in SQL: with GROUP BY, SQLite's planner prefers
    // walking every `violated_on` row in hour order (complaint_hour_counts_by_hour) to one seek
    // of the primary key per day, twenty times slower for a range of ten days.
    const rows = await this.database.db
      .selectFrom("complaint_hour_counts")
      .select(["value", "hour", "count"])
      .where("dimension", "=", "violated_on")
      .where("value", "in", missing.map(String))
      .orderBy("value")
      .orderBy("hour")
      .execute();
    // Each day's rows come together, in hour order (the primary key's).
    const byDay = new Map<number, Array<{ bucket: number; count: number }>>();
    for (const row of rows) {
      const day = Number(row.value);
      let list = byDay.get(day);
      if (list === undefined) {
        list = [];
        byDay.set(day, list);
      }
      list.push({ bucket: row.hour, count: Number(row.count) });
    }
    const read = new Map<number, CountSeries>();
    for (const day of missing) {
      const series = seriesOf(SECONDS_PER_HOUR, byDay.get(day) ?? []);
      read.set(day, series);
      const weight = keptSeriesBytes(series);
      if (weight === undefined) continue;
      this.series.set(violatedOnKey(day), series, version, weight);
      this.carried.set(violatedOnKey(day), series, CARRIED_VERSION, weight);
    }
    return days.map((day, index) => held[index] ?? read.get(day)!);
  }

  /**
   * The `violated_on` series of each of `days` held for `version`, undefined for a day not held.
   * A day's series read at an earlier version (`carried`) is held again when the day has as many
   * complaints at this version (the `violation` dimension's daily counts, one statement a
   * version): complaints are only ever added, never changed or removed, so a day with no more
   * complaints has the same series. After an import, only the days it added complaints to are
   * read again, not every day a range covers (about 2 ms a day at 20 million complaints a year).
   */
  private async heldDays(days: readonly number[], version: number): Promise<Array<CountSeries | undefined>> {
    const held = days.map((day) => this.series.get(violatedOnKey(day), version));
    if (this.carried.size === 0 || held.every((series) => series !== undefined)) return held;
    const perDay = await this.daily({ name: "violation", value: "", column: "violation_at" });
    days.forEach((day, index) => {
      if (held[index] !== undefined) return;
      // A day that gained complaints keeps its old series here until it is read again (and replaced).
      const carried = this.carried.get(violatedOnKey(day), CARRIED_VERSION);
      if (carried === undefined || carried.sumOf(0, carried.length) !== perDay.sumOfBuckets(day, day)) return;
      held[index] = carried;
      this.series.set(violatedOnKey(day), carried, version, keptSeriesBytes(carried) ?? 0);
    });
    return held;
  }

  private async load(dimension: Dimension): Promise<CountSeries> {
    if (!isHourly(dimension.name)) return this.loadDaily(dimension);
    const rows = await this.database.db
      .selectFrom("complaint_hour_counts")
      .select(["hour as bucket", "count"])
      .where("dimension", "=", dimension.name)
      .where("value", "=", dimension.value)
      .orderBy("hour", "asc")
      .execute();
    return seriesOf(SECONDS_PER_HOUR, rows);
  }

  private async loadDaily(dimension: Dimension): Promise<CountSeries> {
    const rows = await this.database.db
      .selectFrom("complaint_counts")
      .select(["day as bucket", "count"])
      .where("dimension", "=", dimension.name)
      .where("value", "=", dimension.value)
      .orderBy("day", "asc")
      .execute();
    return seriesOf(SECONDS_PER_DAY, rows);
  }
}

/**
 * The one version of `DimensionCounts`' carried series, which outlive the collection's versions
 * and are checked when used.
 */
const CARRIED_VERSION = UNVERSIONED;

/** The key of a range's summed `violated_on` series in `DimensionCounts`' cache. */
function violatedOnRangeKey(firstDay: number, lastDay: number): string {
  return `violated_on\u0000${firstDay}\u0000${lastDay}`;
}

/** The key of one violation day's `violated_on` series in `DimensionCounts`' cache. */
function violatedOnKey(day: number): string {
  return `violated_on\u0000${day}`;
}

/** The day numbers `first` to `last`, both included. */
export function daysFrom(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, index) => first + index);
}

/**
 * The sum of series of the same bucket size: per bucket, the counts of every series that has it.
 * Added up in an array over the span of their buckets when that span is at most
 * `DENSE_SPAN_MAX` buckets (always, for hours within a few years), else in a map.
 */
export function sumOfSeries(parts: readonly CountSeries[]): CountSeries {
  const bucketSeconds = parts[0]?.bucketSeconds ?? SECONDS_PER_HOUR;
  const present = parts.filter((part) => part.length > 0);
  if (present.length === 0) return seriesOf(bucketSeconds, []);
  if (present.length === 1) return present[0]!;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const part of present) {
    first = Math.min(first, part.buckets[0]!);
    last = Math.max(last, part.buckets[part.length - 1]!);
  }
  if (last - first + 1 > DENSE_SPAN_MAX) {
    const byBucket = new Map<number, number>();
    for (const part of present)
      for (let index = 0; index < part.length; index++)
        byBucket.set(
          part.buckets[index]!,
          (byBucket.get(part.buckets[index]!) ?? 0) + part.sumOf(index, index + 1),
        );
    const buckets = [...byBucket.keys()].sort((a, b) => a - b);
    return seriesOf(
      bucketSeconds,
      buckets.map((bucket) => ({ bucket, count: byBucket.get(bucket)! })),
    );
  }
  const counts = new Float64Array(last - first + 1);
  for (const part of present)
    for (let index = 0; index < part.length; index++)
      counts[part.buckets[index]! - first]! += part.before[index + 1]! - part.before[index]!;
  let filled = 0;
  for (let at = 0; at < counts.length; at++) if (counts[at]! > 0) filled++;
  const buckets = new Int32Array(filled);
  let index = 0;
  for (let at = 0; at < counts.length; at++) if (counts[at]! > 0) buckets[index++] = first + at;
  return new CountSeries(
    bucketSeconds,
    buckets,
    runningSums(filled, (at) => counts[buckets[at]! - first]!),
  );
}

/** The widest span of buckets `sumOfSeries` adds up in an array (about 114 years of hours). */
const DENSE_SPAN_MAX = 1_000_000;

/** A `CountSeries` of bucket, count, bucket, count, ... ascending by bucket (`ftcapi_bucket_counts`). */
export function seriesOfPairs(bucketSeconds: number, pairs: readonly number[]): CountSeries {
  const length = pairs.length / 2;
  const buckets = new Int32Array(length);
  for (let index = 0; index < length; index++) buckets[index] = pairs[2 * index]!;
  return new CountSeries(
    bucketSeconds,
    buckets,
    runningSums(length, (index) => pairs[2 * index + 1]!),
  );
}

/** A `CountSeries` of rows of (bucket, count), ascending by bucket. */
export function seriesOf(
  bucketSeconds: number,
  rows: ReadonlyArray<{ bucket: number; count: number | string | bigint }>,
): CountSeries {
  // A loop: `Int32Array.from` with a mapping function cost 330 µs for a year of hours, against 10 to 17.
  const buckets = new Int32Array(rows.length);
  for (let index = 0; index < rows.length; index++) buckets[index] = Number(rows[index]!.bucket);
  return new CountSeries(
    bucketSeconds,
    buckets,
    runningSums(rows.length, (index) => Number(rows[index]!.count)),
  );
}

/** The largest running sum a `CountSeries` keeps in 32 bits. */
const MAX_32_BIT_SUM = 0xffff_ffff;

/**
 * A series' running sums (`CountSeries.before`) of the counts `countAt(0)` to `countAt(length - 1)`:
 * in 32 bits when their total fits, as it does for any collection of fewer than 4 billion
 * complaints, else in 64-bit floats.
 */
function runningSums(length: number, countAt: (index: number) => number): Uint32Array | Float64Array {
  let total = 0;
  for (let index = 0; index < length; index++) total += countAt(index);
  const before = total <= MAX_32_BIT_SUM ? new Uint32Array(length + 1) : new Float64Array(length + 1);
  for (let index = 0; index < length; index++) before[index + 1] = before[index]! + countAt(index);
  return before;
}
