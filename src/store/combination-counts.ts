import { type SelectQueryBuilder, sql } from "kysely";
import type { TimeRange } from "../domain/complaint-query.js";
import { SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import type { CollectionVersion } from "./collection-version.js";
import { VersionedLru } from "./collection-version.js";
import {
  filterComplaints,
  indexedBy,
  isWholeDays,
  rowTestedColumns,
  type StoredComplaintQuery,
} from "./complaint-filters.js";
import type { Database } from "./database.js";
import {
  type CountSeries,
  type CountSeriesFigures,
  keptSeriesBytes,
  seriesOf,
  seriesOfPairs,
} from "./dimension-counts.js";
import type { Schema } from "./schema.js";
import type { StoredValues } from "./stored-values.js";

/** Hours since the epoch of `created_at`, rounded down also before 1970 (both engines' `/` truncate). */
const HOUR_OF_CREATED = sql<number>`(created_at - ((created_at % 3600) + 3600) % 3600) / 3600`;

/** Totals kept without their series, in bytes (a number each, weighed 8 plus its key's length). */
const TOTALS_KEPT = 1024 * 1024;

/**
 * The matches per hour of a query whose filters no dimension counts (two place filters, a subject
 * with another filter, a violation range with another filter, ...), within its created range:
 * counted on rows once, by one grouped statement on the most selective filter's index, and kept in
 * memory for the collection's version. Every further page of the same filters and range (a client
 * walking its offsets) then takes its total and the hour that holds its offset from memory, and
 * skips rows only within that hour, instead of counting and skipping on rows again.
 *
 * A combination of only a state, the robocall flag and a subject (with no created range, or one of
 * whole days) is not counted on rows: its matches per created day are summed from
 * `complaint_combination_counts` (migration 018) in one statement, and a page skips rows within
 * the day that holds it; with an area code or a city besides, from
 * `complaint_area_combination_counts` or `complaint_city_combination_counts` (migrations 025 and
 * 026), with both from `complaint_city_area_counts` (migration 029).
 */
export class CombinationCounts {
  private readonly series: VersionedLru<CountSeries>;
  /** Totals counted without their series (`totalOf`), by the same key. */
  private readonly totals: VersionedLru<number>;

  /** `maxBytes`: series kept over all combinations (`keptSeriesBytes`); the least recently used go first. */
  constructor(
    private readonly database: Database,
    private readonly version: CollectionVersion,
    private readonly stored: StoredValues,
    maxBytes = 8 * 1024 * 1024,
  ) {
    this.series = new VersionedLru(maxBytes);
    this.totals = new VersionedLru(TOTALS_KEPT);
  }

  /**
   * Whether a series costs little more than a count of the same entries: on SQLite with
   * `ftcapi_bucket_counts` (native/bucket-counts.c), which counts them per hour as the walk meets
   * them. Then a combination's first request loads its series, whose sum is the total and which
   * places every page, instead of a count (`totalOf`) and a first page sorted unplaced.
   */
  get seriesCostsAsCount(): boolean {
    return this.database.dialect === "sqlite" && this.database.hasBucketCounts;
  }

  /** The series kept now. */
  figures(): CountSeriesFigures {
    return { entries: this.series.size, keptBytes: this.series.keptWeight };
  }

  /**
   * The query's matches per hour of creation, ascending (the first and last hours cut by its range).
   * `walkIndex`: on SQLite, the index the count must walk (`INDEXED BY`): its planner's statistics,
   * sampled, rate every filter's index alike, and it would often walk the one with the most entries.
   */
  async of(query: StoredComplaintQuery, walkIndex?: string): Promise<CountSeries> {
    const { version } = await this.version.current();
    return this.series.getOrLoad(
      keyOf(query),
      version,
      () => (fromCombinationCounts(query) ? this.loadFromCounts(query) : this.load(query, walkIndex)),
      keptSeriesBytes,
    );
  }

  /**
   * The query's number of matches: the sum of its series when that is kept, else counted by one
   * statement on `walkIndex` (kept for the version), which reads the same index entries as the
   * series but neither groups nor sorts them (a place, a subject and most of a year's violation
   * days at 20M: 60,000 entries, 3 to 7 ms against 20 to 28).
   */
  async totalOf(query: StoredComplaintQuery, walkIndex?: string): Promise<number> {
    const { version } = await this.version.current();
    const key = keyOf(query);
    const series = this.series.get(key, version);
    if (series !== undefined) return series.sumOf(0, series.length);
    return this.totals.getOrLoad(
      key,
      version,
      () => this.count(query, walkIndex),
      () => 8,
    );
  }

  /** Whether the query's series is kept for the collection's current version. */
  async isKept(query: StoredComplaintQuery): Promise<boolean> {
    const { version } = await this.version.current();
    return this.series.get(keyOf(query), version) !== undefined;
  }

  /** The matches per created day of a query `fromCombinationCounts` accepts. */
  private async loadFromCounts(query: StoredComplaintQuery): Promise<CountSeries> {
    if (query.city !== undefined && query.areaCode !== undefined)
      return this.loadFromPlaceCounts(
        query,
        this.database.db
          .selectFrom("complaint_city_area_counts")
          .where("city_key", "=", query.city)
          .where("area_code", "=", query.areaCode),
      );
    if (query.areaCode !== undefined)
      return this.loadFromPlaceCounts(
        query,
        this.database.db
          .selectFrom("complaint_area_combination_counts")
          .where("area_code", "=", query.areaCode),
      );
    if (query.city !== undefined)
      return this.loadFromPlaceCounts(
        query,
        this.database.db.selectFrom("complaint_city_combination_counts").where("city_key", "=", query.city),
      );
    const states = query.state !== undefined ? [query.state] : await this.stored.of("state");
    const robocalls = query.robocall !== undefined ? [query.robocall] : await this.stored.of("robocall");
    const subjects = query.subjects ?? (await this.stored.of("subject"));
    if (states.length === 0 || robocalls.length === 0 || subjects.length === 0)
      return seriesOf(SECONDS_PER_DAY, []);
    const cells = this.database.db
      .selectFrom("complaint_combination_counts")
      .select((eb) => ["created_day as bucket", eb.fn.sum<number>("count").as("count")])
      .where("state_key", "in", states)
      .where("robocall", "in", robocalls)
      .where("subject", "in", [...subjects]);
    return sumPerDay(cells as unknown as DailyCells, query.created);
  }

  /**
   * The matches per created day of an area code, a city, or both, with any of a state, the robocall
   * flag and a subject: `place`, the rows of the area code in `complaint_area_combination_counts`,
   * of the city in `complaint_city_combination_counts` or of both in `complaint_city_area_counts`,
   * those of the other filters summed.
   */
  private async loadFromPlaceCounts<T extends PlaceCountTable>(
    query: StoredComplaintQuery,
    place: SelectQueryBuilder<Schema, T, object>,
  ): Promise<CountSeries> {
    // Each table has the columns the sum reads: typed as the first, it is the same statement over any.
    let select = (
      place as unknown as SelectQueryBuilder<Schema, "complaint_area_combination_counts", object>
    ).select((eb) => ["created_day as bucket", eb.fn.sum<number>("count").as("count")]);
    if (query.state !== undefined) select = select.where("state_key", "=", query.state);
    if (query.robocall !== undefined) select = select.where("robocall", "=", query.robocall);
    if (query.subjects !== undefined) select = select.where("subject", "in", [...query.subjects]);
    return sumPerDay(select, query.created);
  }

  private async count(query: StoredComplaintQuery, walkIndex: string | undefined): Promise<number> {
    const select = this.filtered(
      this.database.db.selectFrom("complaints").select((eb) => eb.fn.countAll<number>().as("count")),
      query,
      walkIndex,
    );
    const { rows } = await this.database.db.executeQuery<{ count: number }>(
      indexedBy(select.compile(), this.database.dialect, walkIndex),
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** The query's filters, tested as a walk of `walkIndex` tests them (`rowTestedColumns`). */
  private filtered<O>(
    select: SelectQueryBuilder<Schema, "complaints", O>,
    query: StoredComplaintQuery,
    walkIndex: string | undefined,
  ): SelectQueryBuilder<Schema, "complaints", O> {
    return filterComplaints(
      select,
      query,
      query.created,
      "day",
      rowTestedColumns(this.database.dialect, walkIndex),
    );
  }

  private async load(query: StoredComplaintQuery, walkIndex: string | undefined): Promise<CountSeries> {
    const database = this.database;
    if (this.seriesCostsAsCount) {
      // Counted per hour as the walk meets the entries, none sorted (native/bucket-counts.c): a
      // place, a subject and ten months of violation days at 20M, 60,000 entries on the index
      // that leads with the three, days apart in created order: 6 to 7 ms against 19 to 29 for GROUP BY.
      const compiled = this.filtered(
        database.db
          .selectFrom("complaints")
          .select(sql<string>`ftcapi_bucket_counts(created_at, ${sql.lit(SECONDS_PER_HOUR)})`.as("buckets")),
        query,
        walkIndex,
      ).compile();
      const { rows } = await database.db.executeQuery<{ buckets: string }>(
        indexedBy(compiled, database.dialect, walkIndex),
      );
      return seriesOfPairs(SECONDS_PER_HOUR, JSON.parse(rows[0]?.buckets ?? "[]") as number[]);
    }
    const compiled = this.filtered(
      database.db
        .selectFrom("complaints")
        .select((eb) => [HOUR_OF_CREATED.as("bucket"), eb.fn.countAll<number>().as("count")]),
      query,
      walkIndex,
    )
      .groupBy(HOUR_OF_CREATED)
      .orderBy("bucket", "asc")
      .compile();
    const { rows } = await database.db.executeQuery<{ bucket: number; count: number }>(
      indexedBy(compiled, database.dialect, walkIndex),
    );
    return seriesOf(SECONDS_PER_HOUR, rows);
  }
}

/** The key of a query's series and total: its filters and ranges. */
function keyOf(query: StoredComplaintQuery): string {
  return JSON.stringify([
    query.state,
    query.city,
    query.areaCode,
    query.robocall,
    query.phone,
    query.subjects,
    query.violation?.from,
    query.violation?.to,
    query.created?.from,
    query.created?.to,
  ]);
}

/** The per-day count tables of a place (an area code, a city, or both) with the other filters. */
type PlaceCountTable =
  | "complaint_area_combination_counts"
  | "complaint_city_combination_counts"
  | "complaint_city_area_counts";

/** Count cells of a per-day combination table, selected as (bucket, count). */
type DailyCells = SelectQueryBuilder<
  Schema,
  "complaint_area_combination_counts",
  { bucket: number; count: number }
>;

/** The sums of `cells` per created day, within `created` (whole days) when given. */
async function sumPerDay(cells: DailyCells, created: TimeRange | undefined): Promise<CountSeries> {
  const within = created
    ? cells
        .where("created_day", ">=", created.from / SECONDS_PER_DAY)
        .where("created_day", "<=", (created.to + 1) / SECONDS_PER_DAY - 1)
    : cells;
  const rows = await within.groupBy("created_day").orderBy("created_day").execute();
  return seriesOf(SECONDS_PER_DAY, rows);
}

/**
 * Whether a query's combination is counted in `complaint_combination_counts`: only a state, the
 * robocall flag and a subject among its filters, and no created range or one of whole days; or,
 * with an area code, a city or both besides, in `complaint_area_combination_counts`,
 * `complaint_city_combination_counts` or `complaint_city_area_counts`.
 */
export function fromCombinationCounts(query: StoredComplaintQuery): boolean {
  const created = query.created;
  return (
    query.phone === undefined &&
    query.violation === undefined &&
    (created === undefined || isWholeDays(created))
  );
}
