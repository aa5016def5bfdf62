import { type CompiledQuery, type SelectQueryBuilder, sql } from "kysely";
import { COMPLAINTS } from "../domain/collections.js";
import { type Complaint, type ComplaintRow, complaintFromRow, matchKey } from "../domain/complaint.js";
import type { ComplaintCountQuery } from "../domain/complaint-count-query.js";
import { renderPage } from "../domain/complaint-envelope.js";
import type { ComplaintQuery, TimeRange } from "../domain/complaint-query.js";
import type { CountResult } from "../domain/count-options.js";
import { formatDateTime, SECONDS_PER_DAY, SECONDS_PER_HOUR, SECONDS_PER_MINUTE } from "../domain/time.js";
import { CollectionVersion } from "./collection-version.js";
import { CombinationCounts, fromCombinationCounts } from "./combination-counts.js";
import { ComplaintCountStore } from "./complaint-count-store.js";
import { type ComplaintExport, openComplaintExport } from "./complaint-export.js";
import {
  COMPLAINT_COLUMNS,
  equalityColumns,
  filterComplaints,
  indexedBy,
  isEmptyRange,
  isWholeDays,
  placeSubjectIndexOf,
  rowColumn,
  rowTestedColumns,
  type StoredComplaintQuery,
  singleFilters,
  splitRange,
  testedColumns,
  type ViolationTest,
  violationDay,
  type WalkColumn,
  walksDaysApart,
} from "./complaint-filters.js";
import { indexLedBy, SECONDARY_INDEXES } from "./complaint-indexes.js";
import type { Database } from "./database.js";
import {
  type CountSeries,
  type CountSeriesFigures,
  type Dimension,
  DimensionCounts,
  daysFrom,
  dimensionFor,
  filterDimension,
  HOURLY_VIOLATED_WITH,
  summedRowsPerCreatedDay,
  type ViolatedWith,
} from "./dimension-counts.js";
import { paddedInList } from "./padded-in-list.js";
import type { Schema } from "./schema.js";
import { StoredValues } from "./stored-values.js";

/** A page of complaints, as rows, and the exact number of complaints the query matches. */
export interface ComplaintPage {
  total: number;
  rows: ComplaintRow[];
}

/** Offsets up to this are skipped on the index directly; deeper ones start from a daily count. */
const DIRECT_OFFSET_MAX = 1_000;

/**
 * Deeper offsets within an hour of the created order alone are placed within a minute first
 * (`complaint_minute_counts`): one small read instead of stepping over more rows of the table.
 */
const MINUTE_PLACING_MIN = 200;

/**
 * The most violation days a range may span (after cutting it to the days with violations) for its
 * pages to be read day by day from the `violated_on` counts: one index seek per day.
 */
const MAX_VIOLATED_DAYS = 2_000;

/**
 * The most the per-day violation counts `warm` reads may weigh, of the 32 MB `DimensionCounts`
 * keeps: at 20 million complaints a year every violation day's (2,196 days, most of them before
 * the year, sparse) weigh about 17.5 MB and take 2 s to read on SQLite, 9 to 14 s on PostgreSQL.
 */
const WARM_VIOLATION_BYTES = 22 * 1024 * 1024;

/**
 * The most every series `warm` reads may weigh, of the 32 MB `DimensionCounts` keeps: after the
 * violation days, the hourly series of every state, robocall flag and subject (about 70 series,
 * 4.9 MB and 0.34 s on SQLite at 20 million complaints a year, 1.3 s on PostgreSQL), which a
 * combination's first request weighs to choose the index it walks (about 5 ms each to read there).
 */
const WARM_SERIES_BYTES = 30 * 1024 * 1024;

/** The newest violation days `warm` reads on PostgreSQL (see `warm`). */
const WARM_FIRST_VIOLATION_DAYS = 90;

/**
 * The entries of its filter's index a filtered page within a violation range walks, at most,
 * without weighing the days' index instead (`filterInDays`): the statement that counts the days'
 * entries in the window (`violatedWithin`, one seek a day) costs about as much as walking that
 * many (about 1 ms). Beyond it the smaller walk is taken: a violation day's robocalls created three
 * days later are a few hundred among the flag's 27,000 entries of that created day at 20 million
 * complaints a year (up to 480 ms from a cold cache on the flag's index).
 */
const FILTER_WALK_ENTRIES_MAX = 10_000;

/**
 * The matches a violation range's page skips within its days above which the hour that holds it is
 * looked up (`DimensionCounts.violatedWithHourly`): that statement reads a few thousand count rows
 * at 20 million complaints a year (about 0.3 ms), the cost of skipping a few thousand index entries.
 */
const HOUR_PLACING_MIN = 2_000;

/**
 * How many rows of the window a violation range's page walks on the primary key, at most, for
 * each of its matches there (`daysInWindow`): at 2M complaints over 36 days, an hour's page at
 * offset 1,000 of a 20-day range took 0.13 to 0.18 ms on the key (most rows match) against 0.76
 * to 1.7 ms on the days' index (twenty seeks, then the hour's 2,000 matches sorted).
 */
const PRIMARY_KEY_WALK_RATIO = 3;

/**
 * What an entry read on the days' index costs when its row is read for the filter's value (a
 * subject, which that index does not hold), against an entry of the filter's index, which holds
 * the violation day: measured for a state at 20 million complaints, 1.8 µs against 107 ns.
 */
const ROW_READ_COST = 16;

/**
 * What one seek of an index costs, in entries read: 317 seeks of an area code's and subject's index
 * (one per violation day) and their 100 entries took 0.3 ms at 20M, about 1 µs a seek.
 */
const SEEK_COST = 10;

/**
 * What weighing a violation range's walks on the counts costs, in index entries per row its sums
 * read for each created day (`filterInDays`; a violation day's, or a block's, `summedRowsPerCreatedDay`):
 * two or three statements, each reading those rows of its created days, about 30 µs a day at 20M
 * before blocks (205,000 cells of subject Other over 22 months in 22 ms; a large state's 21 months
 * in 18): 60 to 90 µs a day, 600 entries at about 107 ns.
 */
const WEIGHING_COST_PER_DAY = 600;

/**
 * How many of a place's entries are read for each that passes a state, flag or area code tested on
 * them (`walkOnPlaceSubjectIndex`): the flag's rarer value holds about a third of a place's
 * complaints, and most of a city's are in one state.
 */
const OTHER_FILTERS_SHARE = 4;

/**
 * The single columns whose candidate's matches (`singleFilters`) hold every entry of the place's
 * and subject's index in a violation range: an area code, a city in every state, the subject.
 */
const HOLDS_PLACE_SUBJECT: ReadonlySet<WalkColumn> = new Set(["area_code", "city_key", "subject"]);

/**
 * The matches from a page's end within which a place's and subject's page over several violation
 * days is read unplaced (`sortsUnplaced`): keeping 500 matches in the sort cost 2 to 3 ms more
 * than the first 50 at 20M (60,000 entries in the range), grouping them per hour 20 to 28 ms.
 */
const UNPLACED_SORT_MAX = 500;

/**
 * Where a page is read: in `order` (the query's, or the other near the end, `reversed`), `offset`
 * rows skipped within `created`, on the index led by `walk`.
 */
interface PageCursor {
  readonly order: "ASC" | "DESC";
  readonly offset: number;
  readonly limit: number;
  readonly reversed: boolean;
  readonly created: TimeRange | undefined;
  readonly walk: WalkColumn[];
}

/** How a page's select walks its index (`ComplaintStore.pageSelect`). */
interface PageShape {
  /** The one violation day the query selects, walked on its own index. */
  readonly day: number | undefined;
  /** A place's and subject's entries over several violation days, sorted by creation. */
  readonly sortedDays: boolean;
  /**
   * Of such a walk within a created range (a placed page's hours), the violation days sought one
   * by one, each day's entries then read within the range alone (`violation_day in (...)`).
   */
  readonly soughtDays: { first: number; last: number } | undefined;
  /** A common violation range, tested on rows read in created order. */
  readonly scanInOrder: boolean;
  /** Ordered by `created_at + 0`, so that no planner walks the created order instead. */
  readonly rareViolation: boolean;
}

/**
 * `select` with a violated-with filter's area code, flag and state tested on the walked index's
 * entries (`|| ''` keeps a planner from seeking them instead): a state's index holds each entry's
 * robocall flag (migration 021), a subject's its state and flag (027), an area code's and a city's
 * both (019, 021), the days' index both (028). A city's state leads its index (`complaints_city`),
 * where it is sought (`stateSought`), not tested.
 */
function withOtherFilters<Q extends SelectQueryBuilder<Schema, "complaints", O>, O>(
  select: Q,
  filter: ViolatedWith,
  stateSought = false,
): Q {
  const { areaCode, robocall, state } = filter;
  const withArea = areaCode === undefined ? select : select.where(sql`area_code || ''`, "=", areaCode);
  const withFlag = robocall === undefined ? withArea : withArea.where(sql`robocall || ''`, "=", robocall);
  if (state === undefined) return withFlag as Q;
  return (
    stateSought ? withFlag.where("state_key", "=", state) : withFlag.where(sql`state_key || ''`, "=", state)
  ) as Q;
}

/** A series' counts within `window`, summed over the buckets it touches. */
function withinWindow(window: TimeRange): (series: CountSeries) => number {
  return (series) =>
    series.sumOfBuckets(
      Math.floor(window.from / series.bucketSeconds),
      Math.floor(window.to / series.bucketSeconds),
    );
}

interface BucketCount {
  count: number;
  /** The moments of a day or an hour the count covers (a range may cut its first and last bucket). */
  from: number;
  to: number;
}

/**
 * The page's columns as `byKeys` selects them, written once: the text Kysely writes for
 * `sql.ref("complaints.<column>")` on both dialects (`"complaints"."<column>"`), instead of twenty
 * references parsed and compiled on the event loop for every page (docs/performance.md).
 */
const PAGE_COLUMNS = sql.raw(COMPLAINT_COLUMNS.map((column) => `"complaints"."${column}"`).join(", "));

/**
 * Reads complaints. Totals come from the daily counts of `complaint_counts` plus at most two
 * partial days counted on an index, and a deep offset starts at the day that holds it, so neither
 * cost grows with the number of matching rows (see docs/query-design.md).
 */
export class ComplaintStore {
  readonly collection = COMPLAINTS;
  private readonly counts: DimensionCounts;
  private readonly combinations: CombinationCounts;
  private readonly groups: ComplaintCountStore;
  private readonly stored: StoredValues;

  /** `version`: the complaints' change detection, shared with this process's other caches of them. */
  constructor(
    private readonly database: Database,
    readonly version: CollectionVersion = new CollectionVersion(database, COMPLAINTS),
  ) {
    this.counts = new DimensionCounts(database, version);
    this.stored = new StoredValues(database, version);
    this.combinations = new CombinationCounts(database, version, this.stored);
    this.groups = new ComplaintCountStore(
      database,
      (created) => this.total({ order: "DESC", limit: 0, offset: 0, ...(created ? { created } : {}) }),
      this.stored,
    );
  }

  /**
   * Reads what a first request would otherwise read on arrival: the per-day violation counts of
   * the violation days, newest first, up to `WARM_VIOLATION_BYTES` (so that a violation range's
   * first page finds them in memory), then the hourly series of all complaints and of every state,
   * flag and subject, up to `WARM_SERIES_BYTES` in all. Called once at start, before the first request: on SQLite
   * every day's (2.0 s at 20 million complaints a year); on PostgreSQL, which reads each count row
   * from its heap (9 to 14 s for every day's at that size), the newest `WARM_FIRST_VIOLATION_DAYS`
   * days' (0.4 to 2.6 s), the older days read by the first request that needs them. Not in the
   * background after the server listens: statements left running as a request or a shutdown
   * begins made the export tests' count of open transactions, and one stop, uncertain.
   */
  async warm(): Promise<void> {
    await this.counts.warmViolatedOn(
      WARM_VIOLATION_BYTES,
      this.database.dialect === "sqlite" ? undefined : WARM_FIRST_VIOLATION_DAYS,
    );
    // All complaints' hourly counts weigh the pages of violation ranges and combinations.
    await this.counts.of({ name: "all", value: "", column: "created_at" });
    for (const name of ["state", "robocall", "subject"] as const)
      for (const value of await this.stored.of(name)) {
        if (this.counts.figures().keptBytes >= WARM_SERIES_BYTES) return;
        await this.counts.of({ name, value, column: "created_at" });
      }
  }

  /** The count series kept in memory, per dimension and per combination of filters, together. */
  countSeriesFigures(): CountSeriesFigures {
    const [dimensions, combinations] = [this.counts.figures(), this.combinations.figures()];
    return {
      entries: dimensions.entries + combinations.entries,
      keptBytes: dimensions.keptBytes + combinations.keptBytes,
    };
  }

  /** Complaints counted by one or two fields, exactly (`GET /v0/dnc-complaints/counts`). */
  countGroups(query: ComplaintCountQuery): Promise<CountResult> {
    return this.groups.count(query);
  }

  async findById(id: string): Promise<Complaint | undefined> {
    const [row] = await this.database.selectRows(
      this.database.db.selectFrom("complaints").select(COMPLAINT_COLUMNS).where("id", "=", id).compile(),
    );
    return row ? complaintFromRow(row as unknown as ComplaintRow) : undefined;
  }

  /** A page of the complaints the query matches, as rows, and their exact number. */
  async list(wanted: ComplaintQuery): Promise<ComplaintPage> {
    const { total, select, reversed } = await this.pageOf(wanted);
    if (select === undefined) return { total, rows: [] };
    const rows = (await this.database.selectRows(select)) as unknown as ComplaintRow[];
    if (reversed) rows.reverse();
    return { total, rows };
  }

  /**
   * `list` as the page's whole JSON document (`complaintPageText`, UTF-8), written where its rows
   * are read: off the event loop on SQLite's read workers.
   * @param recordBaseUrl absolute URL of the collection, without a trailing slash.
   * @param selfUrl the page's own link.
   */
  async listRendered(wanted: ComplaintQuery, recordBaseUrl: string, selfUrl: string): Promise<Uint8Array> {
    const { total, select, reversed } = await this.pageOf(wanted);
    const rendering = {
      renderer: "complaint-page",
      recordBaseUrl,
      reverse: reversed,
      total,
      selfUrl,
    } as const;
    if (select === undefined) return renderPage([], rendering);
    return this.database.selectRendered(select, rendering);
  }

  /**
   * The query's total and the select that reads its page (none when the page is empty); `reversed`:
   * the select reads the page last row first (near the end, from the other end).
   */
  private async pageOf(
    wanted: ComplaintQuery,
  ): Promise<{ total: number; select?: CompiledQuery; reversed: boolean }> {
    if (isEmptyRange(wanted.created) || isEmptyRange(wanted.violation)) return { total: 0, reversed: false };
    const query = await this.resolved(wanted);
    if (query === null) return { total: 0, reversed: false };
    const dimension = dimensionFor(query);
    // The plan, the index walked and the total, each worked out once for the page.
    const violated = await this.violatedPlan(query, dimension);
    const walk = violated ? [] : await this.walkOf(query, dimension);
    const total =
      violated && dimension === null
        ? violated.series.sumOf(0, violated.series.length)
        : await this.countedTotal(query, dimension, walk);
    if (query.offset >= total) return { total, reversed: false };

    // Near the end, read backwards from the other end instead.
    const fromEnd = total - query.offset - query.limit;
    const reversed = fromEnd < query.offset;
    const cursor: PageCursor = reversed
      ? {
          order: query.order === "DESC" ? "ASC" : "DESC",
          offset: Math.max(0, fromEnd),
          limit: Math.min(query.limit, total - query.offset),
          reversed,
          created: query.created,
          walk,
        }
      : {
          order: query.order,
          offset: query.offset,
          limit: query.limit,
          reversed,
          created: query.created,
          walk,
        };

    if (violated) {
      const { select, flipped } = await this.violatedPage(
        violated,
        cursor.order,
        cursor.offset,
        cursor.limit,
      );
      return { total, select, reversed: reversed !== flipped };
    }
    const placed = await this.placed(query, dimension, total, cursor);
    return {
      total,
      select: await this.pageSelect(query, dimension, total, placed),
      reversed: placed.reversed,
    };
  }

  /**
   * The cursor of a page placed by counts, so that few rows are skipped: within the day, hour or
   * minute that holds its offset for a dimension of the created order (past `DIRECT_OFFSET_MAX`),
   * or within the hours (or days) that hold it for a combination (`placedInCombination`); else as
   * it is.
   */
  private async placed(
    query: StoredComplaintQuery,
    dimension: Dimension | null,
    total: number,
    cursor: PageCursor,
  ): Promise<PageCursor> {
    const { order, offset } = cursor;
    if (offset > DIRECT_OFFSET_MAX && dimension && dimension.column === "created_at") {
      const start = await this.locateOffset(dimension, query.created, order, offset);
      if (!start) return cursor;
      // Only where the skipped rows are the table's (SQLite); PostgreSQL skips index entries.
      const minute =
        dimension.name === "all" &&
        start.offsetWithinBucket > MINUTE_PLACING_MIN &&
        this.database.dialect === "sqlite"
          ? await this.locateMinute(start.bucket, order, start.offsetWithinBucket)
          : undefined;
      if (!minute) return { ...cursor, offset: start.offsetWithinBucket, created: start.range };
      return {
        ...cursor,
        offset: minute.offsetWithinMinute,
        created:
          order === "DESC"
            ? { from: start.range.from, to: minute.minute.to }
            : { from: minute.minute.from, to: start.range.to },
      };
    }
    if (
      countsCombination(query, dimension) &&
      !(await this.sortsUnplaced(query, cursor.walk, offset, cursor.limit))
    )
      return this.placedInCombination(query, total, cursor);
    return cursor;
  }

  /**
   * A combination's page placed in the hours (or days) that hold it, read from whichever of their
   * ends is nearer it, as a violation range's page is: at most half of their matches are skipped.
   * The first page too: a sparse combination's first fifty matches can lie weeks into its walked
   * index, which the page would otherwise walk from the end of its range.
   */
  private async placedInCombination(
    query: StoredComplaintQuery,
    total: number,
    cursor: PageCursor,
  ): Promise<PageCursor> {
    const series = await this.combinationSeries(query, cursor.walk);
    const window = pageWindow(series, cursor.order, cursor.offset, cursor.limit);
    if (window.matches === 0) return cursor;
    const rows = Math.min(cursor.limit, total - cursor.offset);
    const start = nearerEnd(window, rows);
    const created = {
      from: Math.max(window.created.from, query.created?.from ?? Number.MIN_SAFE_INTEGER),
      to: Math.min(window.created.to, query.created?.to ?? Number.MAX_SAFE_INTEGER),
    };
    // Sought day by day within the hours (`PageShape.soughtDays`), the place's and subject's index
    // reads only the page's hours; a range of days that cannot be sought so is weighed against the
    // place's own index.
    const walk =
      walksDaysApart(cursor.walk, query.violation) &&
      (await this.violationDaysOf(query.violation)) === undefined
        ? await this.placedWalk(query, cursor.walk, created, total)
        : cursor.walk;
    const placed = { ...cursor, offset: start.offset, created, walk };
    if (!start.flipped) return placed;
    return {
      ...placed,
      order: cursor.order === "DESC" ? "ASC" : "DESC",
      limit: rows,
      reversed: !cursor.reversed,
    };
  }

  /** The select of a placed page: its rows, or their keys and then the rows (`byKeys`). */
  private async pageSelect(
    query: StoredComplaintQuery,
    dimension: Dimension | null,
    total: number,
    cursor: PageCursor,
  ): Promise<CompiledQuery> {
    const { walk, order, offset } = cursor;
    const day = violationDay(query);
    // A place, a subject and several violation days, walked on their index: its entries come day by
    // day and are sorted by creation, as a rare violation date's are.
    const sortedDays = walksDaysApart(walk, query.violation);
    const scanInOrder =
      query.violation !== undefined &&
      day === undefined &&
      !walk.includes("violation_day") &&
      (await this.violationIsCommon(query, total));
    // A rare violation date is best found on its own index and sorted: `created_at + 0` keeps
    // planners from walking the created order instead, hoping to meet matches early.
    const rareViolation =
      sortedDays ||
      (query.violation !== undefined &&
        day === undefined &&
        !scanInOrder &&
        equalityColumns(query).length === 0);
    // The index leads with the place, the subject and the violation day, and then the created
    // time: sought day by day, a created range bounds each day's entries, where walked as a range of
    // days it is tested on every entry of every day (at 20M, a page placed in the hours of an area
    // code's subject over ten months of violations: 0.3 ms against 4.1).
    const soughtDays =
      sortedDays && cursor.created !== undefined ? await this.violationDaysOf(query.violation) : undefined;
    const shape: PageShape = { day, sortedDays, soughtDays, scanInOrder, rareViolation };
    const complaints = this.database.db.selectFrom("complaints");
    // Rows skipped by an offset, or sorted, need only their key: every index holds (created_at, id),
    // so those reads never touch the table (PostgreSQL would otherwise read every skipped row from
    // its heap, SQLite sort whole rows); the page's rows are then fetched by id. SQLite's table is
    // itself ordered by (created_at, id), so a page of the created order alone is read off it
    // directly, skipped rows and all: half the cost of keys and then ids.
    const onTable =
      this.database.dialect === "sqlite" &&
      query.violation === undefined &&
      equalityColumns(query).length === 0;
    // A combination's first page too: its other filters are tested on the walked index's entries,
    // where SQLite would read each entry's row before testing them if the page's columns were
    // selected directly (6 to 11 ms for a rare subject in a city at 20M, against under 1).
    const select =
      ((offset > 0 || countsCombination(query, dimension)) && !onTable) || rareViolation
        ? this.byKeys(
            this.pageRows(complaints.select(["created_at", "id"]), query, dimension, cursor, shape),
            order === "DESC" ? "desc" : "asc",
          )
        : this.pageRows(complaints.select(COMPLAINT_COLUMNS), query, dimension, cursor, shape).compile();
    // SQLite rates the subject's index, which holds the created order, above the place's and
    // subject's, whose entries in the range are fewer but sorted (a city, an area code, a subject
    // and two weeks of violations at 2M: 27 ms against 1).
    return sortedDays ? indexedBy(select, this.database.dialect, indexLedBy(walk)) : select;
  }

  /** `select` filtered, ordered and cut to the cursor's page, as `shape` says it is walked. */
  private pageRows<O>(
    select: SelectQueryBuilder<Schema, "complaints", O>,
    query: StoredComplaintQuery,
    dimension: Dimension | null,
    cursor: PageCursor,
    shape: PageShape,
  ): SelectQueryBuilder<Schema, "complaints", O> {
    const { walk, created } = cursor;
    const direction = cursor.order === "DESC" ? "desc" : "asc";
    // One violation day is walked on its own index (migration 011), already in created order;
    // its day alone selects it exactly (from day 1 on), and the index holds no violation time.
    // Walked on a filter's index, a range of whole days is tested on the days that index holds.
    // A combination's columns its walked index lacks are tested on the row (`rowColumn`).
    const onRow = countsCombination(query, dimension)
      ? rowTestedColumns(this.database.dialect, indexLedBy(walk))
      : undefined;
    let ordered =
      shape.day === undefined
        ? filterComplaints(
            select,
            query,
            created,
            shape.scanInOrder ? "scan" : walk.length > 0 ? "day" : "time",
            onRow,
          )
        : this.filtered(select, { ...query, violation: undefined }, created).where(
            "violation_day",
            "=",
            shape.day,
          );
    if (shape.soughtDays)
      ordered = ordered.where(
        "violation_day",
        "in",
        paddedInList(daysFrom(shape.soughtDays.first, shape.soughtDays.last)),
      );
    // Ordering by the filter's equality columns first changes nothing in the result but names the
    // filter's index as the one that yields the order, so no planner prefers scanning another.
    if (!shape.sortedDays) for (const column of walk) ordered = ordered.orderBy(column, direction);
    return ordered
      .orderBy(shape.rareViolation ? sql`created_at + 0` : sql.ref("created_at"), direction)
      .orderBy("id", direction)
      .limit(cursor.limit)
      .offset(cursor.offset);
  }

  /**
   * A combination's matches per hour (`CombinationCounts`), counted on the index led by `walk`,
   * for its total and its pages alike. With a range of whole violation days, its created range is
   * first cut to the span in which complaints violated on those days were created
   * (`DimensionCounts.createdSpanOfViolationDays`), so that the count walks only that span of
   * its index: a violation day's complaints are created over the weeks after it, so a range of a
   * few days cut a year of a large city's entries (156,000 at 20 million complaints a year) to a
   * few weeks'. A place with a subject and such a range is counted instead on the index led by
   * all three (`placeSubjectIndexOf`), which holds the range's entries alone.
   */
  private async combinationSeries(query: StoredComplaintQuery, walk: WalkColumn[]): Promise<CountSeries> {
    const placeSubject = placeSubjectIndexOf(query);
    // No cut: the index holds the range's entries alone (and on PostgreSQL the days' counts of a
    // range not read at start cost 300 ms from disk at 20M).
    if (placeSubject !== undefined) return this.combinations.of(query, placeSubject);
    const walked = indexLedBy(walk);
    const days = await this.violationDaysOf(query.violation);
    const span =
      days === undefined ? undefined : await this.counts.createdSpanOfViolationDays(days.first, days.last);
    if (span === undefined) return this.combinations.of(query, walked);
    const created = {
      from: Math.max(span.from, query.created?.from ?? span.from),
      to: Math.min(span.to, query.created?.to ?? span.to),
    };
    return this.combinations.of({ ...query, created }, walked);
  }

  /**
   * A combination's total: the sum of its series (`combinationSeries`); for a place with a subject
   * and a violation range where a series costs much more than a count (PostgreSQL, or SQLite
   * without `ftcapi_bucket_counts`: grouped by SQL), counted on their index without grouping its
   * entries per hour (`CombinationCounts.totalOf`; the series is read only when a page needs it
   * placed).
   */
  private async combinationTotal(query: StoredComplaintQuery, walk: WalkColumn[]): Promise<number> {
    const placeSubject = placeSubjectIndexOf(query);
    if (placeSubject !== undefined && !this.combinations.seriesCostsAsCount)
      return this.combinations.totalOf(query, placeSubject);
    const series = await this.combinationSeries(query, walk);
    return series.sumOf(0, series.length);
  }

  /**
   * The walk of a place's and subject's page placed within `created` (the hours that hold it): the
   * place's own index, in created order, when its entries there, each perhaps with its row read for
   * the subject, cost less than the place's and subject's entries over the whole violation range,
   * which that walk reads and sorts whatever the hours (at 20M, a page of an area code, a subject
   * and ten months of violations deep in its 53,000 matches: 6.7 ms on the place's and subject's
   * index, under 1 on the area code's); else `walk`.
   */
  private async placedWalk(
    query: StoredComplaintQuery,
    walk: WalkColumn[],
    created: TimeRange,
    total: number,
  ): Promise<WalkColumn[]> {
    const place: StoredComplaintQuery =
      query.city !== undefined
        ? { order: "DESC", limit: 0, offset: 0, created, city: query.city, state: query.state }
        : { order: "DESC", limit: 0, offset: 0, created, areaCode: query.areaCode };
    const entries = await this.totalOf(place, dimensionFor(place));
    return entries * ROW_READ_COST < total * 2 ? equalityColumns(place) : walk;
  }

  /**
   * Whether a combination's page is read without being placed by its series: walked over several
   * violation days on a place's and subject's index, whose entries in the range are read and
   * sorted for any page, within the first `UNPLACED_SORT_MAX` matches from the end it is read
   * from, while its series is not kept and costs much more than a count (grouping the entries per
   * hour in SQL costs more than keeping the page's first matches in the sort: at 20M, 20 to 28 ms
   * against 2 to 3 more; `CombinationCounts.seriesCostsAsCount`).
   */
  private async sortsUnplaced(
    query: StoredComplaintQuery,
    walk: WalkColumn[],
    offset: number,
    limit: number,
  ): Promise<boolean> {
    return (
      !this.combinations.seriesCostsAsCount &&
      walksDaysApart(walk, query.violation) &&
      offset + limit <= UNPLACED_SORT_MAX &&
      !(await this.combinations.isKept(query))
    );
  }

  /**
   * The violation days of a range of whole days, cut to the days the store has violations on, when
   * there are at most MAX_VIOLATED_DAYS of them; else undefined (a range with times, or so wide that
   * its pages are left to the general plan).
   */
  private async violationDaysOf(
    range: TimeRange | undefined,
  ): Promise<{ first: number; last: number } | undefined> {
    if (!range || !isWholeDays(range)) return undefined;
    const held = await this.counts.violationDays();
    if (held === undefined) return undefined;
    const first = Math.max(range.from / SECONDS_PER_DAY, held.first);
    const last = Math.min((range.to + 1) / SECONDS_PER_DAY - 1, held.last);
    return last - first + 1 <= MAX_VIOLATED_DAYS ? { first, last } : undefined;
  }

  /**
   * For a range of whole violation days with no other filter than one `ViolatedWith` (a state, the
   * robocall flag, a subject or a place, perhaps with others, `violatedWithFilters`), and a
   * created range of whole days (any of them or none), the range's days as `violationDaysOf` cuts
   * them, and the counts its total and its pages come from: per created hour from `violated_on`,
   * or with the filter per created day from `complaint_state_violations` (migration 017),
   * `complaint_flag_violations` (migrations 020, 022, 024 and 030) or
   * `complaint_place_violations` (031), cut to the created range. Such a query is then not counted
   * on rows as a combination. Undefined for any other query.
   */
  private async violatedPlan(
    query: StoredComplaintQuery,
    dimension: Dimension | null,
  ): Promise<ViolatedPlan | undefined> {
    const { created } = query;
    const filters = violatedWithFilters(query);
    const eligible =
      (dimension === null || dimension.name === "violation") &&
      query.violation !== undefined &&
      (created === undefined || isWholeDays(created)) &&
      query.phone === undefined &&
      filters.length <= 1;
    if (!eligible) return undefined;
    const days = await this.violationDaysOf(query.violation);
    if (!days) return undefined;
    const filter = filters[0];
    const whole =
      filter === undefined
        ? await this.counts.violatedOn(days.first, days.last)
        : await this.counts.violatedWith(filter, days.first, days.last);
    const series =
      created === undefined
        ? whole
        : whole.slice(
            Math.floor(created.from / whole.bucketSeconds),
            Math.floor(created.to / whole.bucketSeconds),
          );
    return { days, series, ...(filter === undefined ? {} : { filter }) };
  }

  /**
   * The page of a range of whole violation days (no other filter but `filter`) at `offset` in
   * `order`: the hours (with a filter, the days) of creation that hold it come from the counts
   * (`DimensionCounts.violatedOn`, with a filter `violatedWith`), and the page reads only the
   * complaints created then: one seek of the `(violation_day, created_at, id)` index per violation
   * day, or with a filter its index's entries of those days, whatever the offset. A filter counted
   * per hour as well (HOURLY_VIOLATED_WITH: the robocall flag, whose values each hold most of a
   * day) narrows the page's days to its hours. The window is read from whichever of its ends is
   * nearer the page (`flipped`: from its other end, the rows then last first), so that at most
   * half a window's matches are skipped: half an hour's of the robocall flag, about 800 at 20
   * million complaints a year, where half a day's were about 19,000 (4 to 11 ms).
   */
  private async violatedPage(
    { days, series, filter }: ViolatedPlan,
    order: "ASC" | "DESC",
    offset: number,
    limit: number,
  ): Promise<{ select: CompiledQuery; flipped: boolean }> {
    const rows = Math.min(limit, series.sumOf(0, series.length) - offset);
    let window = pageWindow(series, order, offset, limit);
    // On SQLite: PostgreSQL reads each count row from its heap (about 1 to 2 ms for a day's hours
    // at 20M), more than the index entries it skips cost there.
    if (
      filter !== undefined &&
      HOURLY_VIOLATED_WITH.has(filter.dimension) &&
      nearerEnd(window, rows).offset > HOUR_PLACING_MIN &&
      this.database.dialect === "sqlite"
    ) {
      const hours = await this.counts.violatedWithHourly(filter, days.first, days.last, window.created);
      window = pageWindow(hours, order, window.offset, rows);
    }
    const { offset: skipped, flipped } = nearerEnd(window, rows);
    const direction = (order === "DESC") !== flipped ? "desc" : "asc";
    const keys = this.database.db.selectFrom("complaints").select(["created_at", "id"]);
    const { select: inDays, index } =
      filter === undefined
        ? { select: await this.daysInWindow(keys, days, window.created, series), index: undefined }
        : await this.filterInDays(keys, filter, days, window.created, window.matches);
    const select = this.byKeys(
      inDays
        .where("created_at", ">=", window.created.from)
        .where("created_at", "<=", window.created.to)
        .orderBy("created_at", direction)
        .orderBy("id", direction)
        .limit(rows)
        .offset(skipped),
      direction,
    );
    return { select: indexedBy(select, this.database.dialect, index), flipped };
  }

  /**
   * `keys` narrowed to the complaints violated on `days`, within the created range `window` whose
   * matches per hour `series` counts. On SQLite, when matches are at least a `1 / PRIMARY_KEY_WALK_RATIO`
   * share of the window's complaints (as the hourly counts of all complaints say), the window is
   * walked on the primary key, the table's own order, each row's violation day tested where it
   * lies, stopping at the page's last row; else, and on PostgreSQL (whose rows are not stored in
   * the key's order), one seek of the days' index a day, its entries then sorted.
   */
  private async daysInWindow<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    days: { first: number; last: number },
    window: TimeRange,
    series: CountSeries,
  ): Promise<SelectQueryBuilder<Schema, "complaints", O>> {
    const onDaysIndex = keys.where("violation_day", "in", paddedInList(daysFrom(days.first, days.last)));
    if (this.database.dialect !== "sqlite") return onDaysIndex;
    const firstHour = Math.floor(window.from / SECONDS_PER_HOUR);
    const lastHour = Math.floor(window.to / SECONDS_PER_HOUR);
    const all = await this.counts.of({ name: "all", value: "", column: "created_at" });
    const matches = series.sumOfBuckets(firstHour, lastHour);
    return all.sumOfBuckets(firstHour, lastHour) <= matches * PRIMARY_KEY_WALK_RATIO
      ? keys.where(sql`+violation_day`, ">=", days.first).where(sql`+violation_day`, "<=", days.last)
      : onDaysIndex;
  }

  /**
   * `keys` narrowed to the complaints matching `filter` (a state, the robocall flag, a subject, an
   * area code or a city, with what `ViolatedWith` adds) violated on `days`, within the created
   * range `window`: read on the filter's index, which holds each entry's violation day (migrations
   * 017, 020 and 021), so that the days are tested without reading rows, unless the counts say
   * another walk reads less (a range's matches can be sparse, so that fifty of them span weeks of
   * the filter's complaints, or a few hundred of a day's flag): the days' index, one seek a day,
   * which holds the state, the flag and the area code (a subject's or a city's entry there costs
   * its row, `ROW_READ_COST` times an entry); or for a subject with a state, the state's index,
   * which holds the violation day and the flag (its entries in the range cost their rows). A
   * window of at most `FILTER_WALK_ENTRIES_MAX` of the filter's entries is read on its index
   * unweighed. `+` and `|| ''` keep planners off the other index.
   */
  private async filterInDays<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    filter: ViolatedWith,
    days: { first: number; last: number },
    window: TimeRange,
    windowMatches: number,
  ): Promise<{ select: SelectQueryBuilder<Schema, "complaints", O>; index?: string }> {
    const column = FILTER_COLUMNS[filter.dimension];
    const onFilterIndex = withOtherFilters(
      keys
        .where(column, "in", [...filter.values])
        .where(sql`+violation_day`, ">=", days.first)
        .where(sql`+violation_day`, "<=", days.last),
      filter,
      filter.dimension === "city",
    );
    const within = withinWindow(window);
    // The filter's complaints created in the window, per hour where it is counted per hour (the
    // window may be an hour of the flag's, `violatedWithHourly`), else per day: from memory.
    let filterEntries = 0;
    for (const value of filter.values)
      filterEntries += within(await this.counts.of(filterDimension(filter, value)));
    // Fewer cost less to walk than the statement weighing the days' index.
    if (filterEntries <= FILTER_WALK_ENTRIES_MAX) return { select: onFilterIndex };
    // The range's days that hold the window's matches, from the filter's counts (one statement,
    // read only by a walk that seeks each day): those walks seek only them.
    let matched: Promise<number[]> | undefined;
    const sought = async () => {
      matched ??= this.counts.violationDaysWith(
        filter,
        days.first,
        days.last,
        Math.floor(window.from / SECONDS_PER_DAY),
        Math.floor(window.to / SECONDS_PER_DAY),
      );
      const matchedDays = await matched;
      return matchedDays.length > 0 ? matchedDays : daysFrom(days.first, days.last);
    };
    // A place's seeks per subject and day, weighed from memory; as cheap as a short walk, taken
    // without weighing the others (their statements cost more than it).
    const bySubject =
      filter.dimension === "city" || filter.dimension === "area"
        ? await this.walkOnPlaceSubjectIndex(keys, filter, await sought(), windowMatches)
        : undefined;
    if (bySubject !== undefined && bySubject.cost <= FILTER_WALK_ENTRIES_MAX) return bySubject;
    // Weighing the days' and the state's index reads counts of every violation day (or block of
    // days) in the range: a walk that costs less than that reading is taken without it (a state's
    // subject and flag over 21 months at 20M, before blocks: 35 ms of weighing, for a page whose day
    // the subject's index walks in 3).
    const weighingCost = summedRowsPerCreatedDay(days.first, days.last) * WEIGHING_COST_PER_DAY;
    const unweighed =
      bySubject !== undefined && bySubject.cost < filterEntries
        ? bySubject
        : { cost: filterEntries, select: onFilterIndex };
    if (unweighed.cost <= weighingCost) return unweighed;
    const walks: Array<{
      cost: number;
      select: SelectQueryBuilder<Schema, "complaints", O>;
      index?: string;
    }> = [
      { cost: filterEntries, select: onFilterIndex },
      await this.walkOnDaysIndex(keys, filter, days, await sought(), window),
    ];
    if (filter.dimension === "subject" && filter.state !== undefined)
      walks.push(await this.walkOnStateIndex(keys, filter, filter.state, days, window));
    if (bySubject !== undefined) walks.push(bySubject);
    return walks.reduce((least, walk) => (walk.cost < least.cost ? walk : least));
  }

  /**
   * A violation range's page walked on the days' index (`filterInDays`), one seek for each of
   * `sought` (the days of the range `days` that hold the window's matches), and its cost: those
   * days' entries in the window, and for a subject or a city, which that index does not hold, each
   * entry's row read when it passes the tests the index holds (`rowColumn`): with a state or the
   * flag, only that state's or flag's complaints in the range, from their counts (a small state's
   * in a violation day: about 1,600 of 55,000 entries at 20 million complaints a year).
   * PostgreSQL reads every entry's row from its heap.
   */
  private async walkOnDaysIndex<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    filter: ViolatedWith,
    days: { first: number; last: number },
    sought: readonly number[],
    window: TimeRange,
  ): Promise<{ cost: number; select: SelectQueryBuilder<Schema, "complaints", O> }> {
    const { state, robocall } = filter;
    const column = FILTER_COLUMNS[filter.dimension];
    // The days' index holds each entry's state, flag and area code (migration 028), not its subject
    // or city.
    const testedOnRow = column === "subject" || column === "city_key";
    const dayEntries = await this.counts.violatedWithin(
      sought,
      Math.floor(window.from / SECONDS_PER_HOUR),
      Math.floor(window.to / SECONDS_PER_HOUR),
    );
    const passing: ViolatedWith | undefined =
      this.database.dialect !== "sqlite"
        ? undefined
        : state !== undefined
          ? { dimension: "state", values: [state], ...(robocall === undefined ? {} : { robocall }) }
          : robocall !== undefined
            ? { dimension: "robocall", values: [robocall] }
            : undefined;
    const rowsRead = !testedOnRow
      ? 0
      : passing === undefined
        ? dayEntries
        : Math.min(dayEntries, await this.violatedInWindow(passing, days, window));
    return {
      cost: dayEntries + rowsRead * ROW_READ_COST,
      select: withOtherFilters(
        keys
          .where("violation_day", "in", paddedInList(sought))
          .where(
            testedOnRow ? rowColumn(this.database.dialect, column) : sql`${sql.ref(column)} || ''`,
            "in",
            [...filter.values],
          ),
        filter,
      ),
    };
  }

  /**
   * A place's violation range walked on the index led by the place, the subject and the violation
   * day (`filterInDays`), sought once per value, stored subject and day, each seek bounded by the
   * page's created range: it reads only the place's entries of those days in that range, the state,
   * the flag and (a city's) area code tested there, whatever the place's other complaints (at 20M, a
   * city's 16 robocalls of one violation day, among its 127,000 entries of the year and that day's
   * 28,000 on the days' index: 0.4 ms against 9 to 12 on the days' index). Its cost: a seek is
   * weighed `SEEK_COST` entries, and the entries read are the window's matches, times
   * `OTHER_FILTERS_SHARE` when a state, the flag or an area code is tested on them. `days` are the
   * days of a listed range (`violationDaysOf`: at most MAX_VIOLATED_DAYS) that hold the window's
   * matches. Undefined without stored subjects.
   */
  private async walkOnPlaceSubjectIndex<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    filter: ViolatedWith,
    days: readonly number[],
    windowMatches: number,
  ): Promise<
    { cost: number; select: SelectQueryBuilder<Schema, "complaints", O>; index: string } | undefined
  > {
    const subjects = await this.stored.of("subject");
    const column = FILTER_COLUMNS[filter.dimension];
    const index = indexLedBy([column, "subject", "violation_day"]);
    if (subjects.length === 0 || index === undefined) return undefined;
    const seeks = filter.values.length * subjects.length * days.length;
    const tested =
      filter.state !== undefined || filter.robocall !== undefined || filter.areaCode !== undefined;
    return {
      cost: seeks * SEEK_COST + windowMatches * (tested ? OTHER_FILTERS_SHARE : 1),
      // Named: SQLite's planner takes the days' index instead (9 to 12 ms against 0.4 for the city's
      // 16 robocalls of one violation day above).
      index,
      select: withOtherFilters(
        keys
          .where(column, "in", [...filter.values])
          .where("subject", "in", [...subjects])
          .where("violation_day", "in", paddedInList(days)),
        filter,
      ),
    };
  }

  /**
   * The complaints matching `filter` in the violation range `days` that were created in `window`'s
   * days: what a walk weighed for a page reads of them (`DimensionCounts.violatedWithCount`, which
   * sums only the window's created days unless the range's series is kept).
   */
  private violatedInWindow(
    filter: ViolatedWith,
    days: { first: number; last: number },
    window: TimeRange,
  ): Promise<number> {
    return this.counts.violatedWithCount(
      filter,
      days.first,
      days.last,
      Math.floor(window.from / SECONDS_PER_DAY),
      Math.floor(window.to / SECONDS_PER_DAY),
    );
  }

  /**
   * A subject's violation range with a state, walked on the state's index (`filterInDays`), which
   * holds the violation day and the flag but not the subject, so that only the state's entries in
   * the range cost their rows: a small state's are far fewer than a common subject's entries when a
   * sparse range's page spans months.
   */
  private async walkOnStateIndex<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    filter: ViolatedWith,
    state: string,
    days: { first: number; last: number },
    window: TimeRange,
  ): Promise<{ cost: number; select: SelectQueryBuilder<Schema, "complaints", O> }> {
    const within = withinWindow(window);
    const stateSeries = await this.counts.of({ name: "state", value: state, column: "created_at" });
    const inRange = await this.violatedInWindow({ dimension: "state", values: [state] }, days, window);
    const onState = keys
      .where("state_key", "=", state)
      .where(sql`+violation_day`, ">=", days.first)
      .where(sql`+violation_day`, "<=", days.last)
      .where(rowColumn(this.database.dialect, "subject"), "in", [...filter.values]);
    return {
      // On PostgreSQL every entry's row is read (`rowColumn`).
      cost:
        this.database.dialect === "sqlite"
          ? within(stateSeries) + inRange * ROW_READ_COST
          : within(stateSeries) * ROW_READ_COST,
      select:
        filter.robocall === undefined ? onState : onState.where(sql`robocall || ''`, "=", filter.robocall),
    };
  }

  /**
   * One statement reading the rows of the keys `keys` selects, in the keys' order (created time and
   * id, in `direction`): the skipped rows cost only their index entries, the page's rows are then
   * read by key.
   */
  private byKeys<O>(
    keys: SelectQueryBuilder<Schema, "complaints", O>,
    direction: "asc" | "desc",
  ): CompiledQuery {
    const order = sql.raw(direction);
    // On SQLite the rows are found by their primary key, the table's own order, so that a page's
    // rows (neighbours in created order) share the table's pages; by id, each row would cost a
    // lookup in the id index's pages, scattered like the ids (twice the page reads under load).
    // CROSS JOIN fixes the loop order: with a plain join SQLite's planner may scan the whole table
    // (through its smallest covering index) against a bloom filter of the 50 keys instead, which
    // took 96 ms a page at 200,000 complaints (0.8 ms as written).
    const join =
      this.database.dialect === "sqlite"
        ? sql`cross join complaints on complaints.created_at = wanted.created_at and +complaints.id = wanted.id`
        : sql`join complaints on complaints.id = wanted.id`;
    return sql`select ${PAGE_COLUMNS} from (${keys}) as wanted ${join}
      order by wanted.created_at ${order}, wanted.id ${order}`.compile(this.database.db);
  }

  /**
   * The query with its subject filter resolved to the stored subjects it matches, or null when it
   * matches none (then nothing matches the query).
   */
  private async resolved(query: ComplaintQuery): Promise<StoredComplaintQuery | null> {
    if (query.subject === undefined) return query;
    const subjects = await this.stored.subjectsMatching(query.subject);
    return subjects.length === 0 ? null : { ...query, subjects };
  }

  /** The exact number of complaints matching the query's filters. */
  async total(wanted: ComplaintQuery): Promise<number> {
    if (isEmptyRange(wanted.created) || isEmptyRange(wanted.violation)) return 0;
    const query = await this.resolved(wanted);
    return query === null ? 0 : this.totalOf(query, dimensionFor(query));
  }

  /**
   * The columns leading the index a query is paged (and a combination counted) on: for a
   * combination, those of the candidate (`singleFilters`) whose entries in its created range (from
   * that filter's counts, in memory, or for a place with a subject and a violation range counted
   * on their index) cost the least to walk, each entry that passes the tests the index holds
   * costing `ROW_READ_COST` more when the index lacks a column the query tests (its row is read),
   * so that the fewest index entries and rows are read; else the fixed order of `equalityColumns`.
   */
  private async walkOf(query: StoredComplaintQuery, dimension: Dimension | null): Promise<WalkColumn[]> {
    const candidates = countsCombination(query, dimension) ? singleFilters(query) : [];
    if (candidates.length < 2) return equalityColumns(query);
    let walk: WalkColumn[] = equalityColumns(query);
    let cheapest = Number.POSITIVE_INFINITY;
    const tested = testedColumns(query);
    // The entries of a place's or the subject's candidate, whose matches hold those of the place's
    // and subject's index (the last candidate) in the range.
    let singleColumnEntries = Number.POSITIVE_INFINITY;
    for (const { columns, alone } of candidates) {
      // An index holding every other column the query tests is walked without reading rows.
      const held = SECONDARY_INDEXES[indexLedBy(columns) ?? ""] ?? [];
      const covers = tested.every(
        (column) => columns.includes(column as WalkColumn) || held.includes(column),
      );
      // Over several violation days, every entry in the range is read and sorted, whatever the page.
      const sortFactor = walksDaysApart(columns, query.violation) ? 2 : 1;
      if (columns.includes("violation_day") && covers && singleColumnEntries * sortFactor < cheapest) {
        // Cheapest even with as many entries as its place or its subject: taken without counting
        // the range's entries (4 to 9 ms for an area code's 60,000 at 20M).
        walk = columns;
        break;
      }
      // A place with a subject and a violation range is itself a combination, counted on its index
      // (a count: its series is read only if its own request comes).
      const placeSubject = columns.includes("violation_day") ? placeSubjectIndexOf(alone) : undefined;
      const placed =
        placeSubject === undefined ? undefined : await this.combinations.totalOf(alone, placeSubject);
      const entries =
        placed !== undefined ? placed * sortFactor : await this.totalOf(alone, dimensionFor(alone));
      if (columns.length === 1 && HOLDS_PLACE_SUBJECT.has(columns[0]!))
        singleColumnEntries = Math.min(singleColumnEntries, entries);
      let cost = entries;
      if (!covers) {
        // Only the entries that pass the tests the index holds have their rows read (`rowColumn`,
        // SQLite): as many as match the combination without the columns the index lacks, when that
        // is counted without rows (a San Antonio area code with the flag: 1 in 20 of the city's
        // entries). Else every entry.
        const lacking = tested.filter(
          (column) => !columns.includes(column as WalkColumn) && !held.includes(column),
        );
        const passing =
          this.database.dialect === "sqlite"
            ? await this.countedWithoutRows(without(query, lacking))
            : undefined;
        cost =
          passing === undefined
            ? entries * ROW_READ_COST
            : entries + Math.min(entries, passing) * ROW_READ_COST;
      }
      if (cost < cheapest) {
        cheapest = cost;
        walk = columns;
      }
    }
    return walk;
  }

  /**
   * The query's total (`countedTotal`) when counts answer it without reading rows or weighing a
   * walk: its dimension's series over whole buckets, or the combination tables
   * (`fromCombinationCounts`); else undefined.
   */
  private async countedWithoutRows(query: StoredComplaintQuery): Promise<number | undefined> {
    const dimension = dimensionFor(query);
    if (dimension === null)
      return fromCombinationCounts(query) ? this.countedTotal(query, null, []) : undefined;
    // A range cutting a bucket of the dimension's series would count that bucket's part on rows.
    const { bucketSeconds } = await this.counts.of(dimension);
    const range = dimension.column === "created_at" ? query.created : query.violation;
    return splitRange(range, bucketSeconds).partial.length === 0
      ? this.countedTotal(query, dimension, [])
      : undefined;
  }

  /**
   * `total` of a resolved query: a violation range's from its plan's counts (`violatedPlan`), else
   * `countedTotal`.
   */
  private async totalOf(query: StoredComplaintQuery, dimension: Dimension | null): Promise<number> {
    if (dimension === null) {
      const violated = await this.violatedPlan(query, dimension);
      if (violated) return violated.series.sumOf(0, violated.series.length);
    }
    return this.countedTotal(query, dimension, await this.walkOf(query, dimension));
  }

  /**
   * The total of a query without a violation plan: from its dimension's counts when it has one,
   * else (a combination) from its hourly counts, counted on the index led by `walk` (`walkOf`).
   */
  private async countedTotal(
    query: StoredComplaintQuery,
    dimension: Dimension | null,
    walk: WalkColumn[],
  ): Promise<number> {
    if (countsCombination(query, dimension)) return this.combinationTotal(query, walk);
    if (!dimension) return this.countRows(query, query.created);
    const range = dimension.column === "created_at" ? query.created : query.violation;
    const series = await this.counts.of(dimension);
    const { fullFrom, fullTo, partial } = splitRange(range, series.bucketSeconds);
    let total = 0;
    for (const part of partial) total += await this.countPart(query, dimension, part);
    if (fullFrom !== undefined && fullTo !== undefined && fullFrom > fullTo) return total;
    return total + series.sumOfBuckets(fullFrom, fullTo);
  }

  /** Counts the rows of one partial day through the index of the dimension's column. */
  private async countPart(
    query: StoredComplaintQuery,
    dimension: Dimension,
    part: TimeRange,
  ): Promise<number> {
    if (dimension.name === "all") return this.countCreated(part);
    if (dimension.column === "created_at") return this.countRows(query, part);
    const row = await this.database.db
      .selectFrom("complaints")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("violation_at", ">=", part.from)
      .where("violation_at", "<=", part.to)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * The complaints created in `part` (part of an hour), in one statement: its whole minutes from
   * `complaint_minute_counts`, and only the seconds before its first and after its last whole
   * minute on rows, so that at most two minutes' complaints are counted one by one.
   */
  private async countCreated(part: TimeRange): Promise<number> {
    const firstMinute = Math.ceil(part.from / SECONDS_PER_MINUTE);
    const lastMinute = Math.floor((part.to + 1) / SECONDS_PER_MINUTE) - 1;
    if (firstMinute > lastMinute) return this.countRows({ order: "DESC", limit: 0, offset: 0 }, part);
    const rowsBetween = (from: number, to: number) =>
      sql<number>`(select count(*) from complaints where created_at >= ${from} and created_at <= ${to})`;
    const row = await this.database.db
      .selectNoFrom([
        sql<number>`(select coalesce(sum(count), 0) from complaint_minute_counts
          where minute >= ${firstMinute} and minute <= ${lastMinute})`.as("minutes"),
        rowsBetween(part.from, firstMinute * SECONDS_PER_MINUTE - 1).as("before"),
        rowsBetween((lastMinute + 1) * SECONDS_PER_MINUTE, part.to).as("after"),
      ])
      .executeTakeFirst();
    return Number(row?.minutes ?? 0) + Number(row?.before ?? 0) + Number(row?.after ?? 0);
  }

  private async countRows(query: StoredComplaintQuery, created: TimeRange | undefined): Promise<number> {
    const row = await this.filtered(
      this.database.db.selectFrom("complaints").select((eb) => eb.fn.countAll<number>().as("count")),
      query,
      created,
    ).executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /**
   * Finds the day that holds the `offset`-th matching row in the given order from the daily counts
   * kept in memory (a binary search; the range's cut first and last days are counted on rows), and
   * returns the narrowed range that starts at that day and the offset within it.
   */
  private async locateOffset(
    dimension: Dimension,
    range: TimeRange | undefined,
    order: "ASC" | "DESC",
    offset: number,
  ): Promise<{ range: TimeRange; bucket: TimeRange; offsetWithinBucket: number } | undefined> {
    const series = await this.counts.of(dimension);
    const size = series.bucketSeconds;
    let from = 0;
    let to = series.length;
    let head: BucketCount | undefined;
    let tail: BucketCount | undefined;
    if (range) {
      const first = Math.floor(range.from / size);
      const last = Math.floor(range.to / size);
      from = series.firstAtOrAfter(first);
      to = series.firstAtOrAfter(last + 1);
      if (from < to && series.buckets[from] === first && range.from > first * size) {
        head = await this.partialBucket(dimension, first * size, size, range);
        from++;
      }
      if (from < to && series.buckets[to - 1] === last && range.to < (last + 1) * size - 1) {
        tail = await this.partialBucket(dimension, last * size, size, range);
        to--;
      }
    }
    return locateInSeries(series, { from, to, head, tail }, range, order, offset);
  }

  /**
   * The minute of `bucket` (whole minutes, an hour of the created order) that holds its
   * `offset`-th complaint in `order`, from `complaint_minute_counts`, and the offset within it;
   * undefined when the bucket does not start and end on minutes or its minutes hold too few.
   */
  private async locateMinute(
    bucket: TimeRange,
    order: "ASC" | "DESC",
    offset: number,
  ): Promise<{ minute: TimeRange; offsetWithinMinute: number } | undefined> {
    if (bucket.from % SECONDS_PER_MINUTE !== 0 || (bucket.to + 1) % SECONDS_PER_MINUTE !== 0)
      return undefined;
    const minutes = await this.database.db
      .selectFrom("complaint_minute_counts")
      .select(["minute", "count"])
      .where("minute", ">=", bucket.from / SECONDS_PER_MINUTE)
      .where("minute", "<=", (bucket.to + 1) / SECONDS_PER_MINUTE - 1)
      .orderBy("minute", order === "DESC" ? "desc" : "asc")
      .execute();
    let remaining = offset;
    for (const { minute, count } of minutes) {
      if (remaining < Number(count)) {
        const from = Number(minute) * SECONDS_PER_MINUTE;
        return { minute: { from, to: from + SECONDS_PER_MINUTE - 1 }, offsetWithinMinute: remaining };
      }
      remaining -= Number(count);
    }
    return undefined;
  }

  /** The part inside `range` of the bucket starting at `start`, its rows of the dimension counted exactly. */
  private async partialBucket(
    dimension: Dimension,
    start: number,
    size: number,
    range: TimeRange,
  ): Promise<BucketCount> {
    const from = Math.max(start, range.from);
    const to = Math.min(start + size - 1, range.to);
    const count =
      dimension.name === "all"
        ? await this.countCreated({ from, to })
        : await this.countRows(queryOf(dimension), { from, to });
    return { from, to, count };
  }

  /**
   * Whether a violation-date filter keeps so many of the complaints in its created range (2% or
   * more) that reading them in created order and skipping the rest beats sorting all matches.
   */
  private async violationIsCommon(query: StoredComplaintQuery, total: number): Promise<boolean> {
    if (
      query.state !== undefined ||
      query.areaCode !== undefined ||
      query.robocall !== undefined ||
      query.phone !== undefined ||
      query.subject !== undefined
    ) {
      return false;
    }
    const inRange = await this.total({ order: "DESC", limit: 0, offset: 0, created: query.created });
    return total >= inRange * 0.02;
  }

  /** Applies the query's filters (see `filterComplaints`). */
  private filtered<O>(
    select: SelectQueryBuilder<Schema, "complaints", O>,
    query: StoredComplaintQuery,
    created: TimeRange | undefined,
    violationTest: ViolationTest = "time",
  ): SelectQueryBuilder<Schema, "complaints", O> {
    return filterComplaints(select, query, created, violationTest);
  }

  /**
   * Every complaint the query matches, from one snapshot, in batches (its offset and limit are
   * ignored); see `openComplaintExport`. The caller must close it.
   */
  export(query: ComplaintQuery): Promise<ComplaintExport> {
    return openComplaintExport(this.database, query);
  }

  /** Refreshes the planner's statistics after a bulk load, so that plans fit the data. */
  async optimize(): Promise<void> {
    await sql`${sql.raw(this.database.dialect === "postgres" ? "analyze complaints, complaint_counts" : "pragma optimize")}`.execute(
      this.database.db,
    );
  }

  /** Every complaint, exactly, from the daily counts (`/v0/status`). */
  recordCount(): Promise<number> {
    return this.total({ order: "DESC", limit: 0, offset: 0 });
  }

  /** The newest complaint's created time as the API writes it, or undefined when there are none. */
  async newestCreated(): Promise<string | undefined> {
    const newest = await this.newestCreatedAt();
    return newest === undefined ? undefined : formatDateTime(newest);
  }

  /** The created time of the newest complaint (seconds), or undefined when there are none. */
  async newestCreatedAt(): Promise<number | undefined> {
    const row = await this.database.db
      .selectFrom("complaints")
      .select("created_at")
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
    return row?.created_at;
  }

  /** Rows in the store, for status and tests. */
  async count(): Promise<number> {
    const row = await this.database.db
      .selectFrom("complaints")
      .select(sql<number>`count(*)`.as("count"))
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }
}

/**
 * The `ViolatedWith` filters of a query's state, robocall flag, subject, area code and city: a
 * place (a city, else an area code) with a state, the flag or both is one filter (counted in
 * `complaint_place_violations`), a subject with a state, the flag or both is one (counted as
 * `state_subject`, `subject_robocall` or `state_subject_robocall`), and so is a state with the flag
 * (`state_robocall`); each other is a filter of its own. A violation range is counted per created
 * day for at most one of them.
 */
function violatedWithFilters(query: StoredComplaintQuery): ViolatedWith[] {
  const { state, robocall, subjects, areaCode, city } = query;
  const filters: ViolatedWith[] = [];
  if (city !== undefined || areaCode !== undefined) {
    // A place takes the state and the flag (`complaint_place_violations`), a city the area code too.
    const others = {
      ...(state === undefined ? {} : { state }),
      ...(robocall === undefined ? {} : { robocall }),
    };
    if (city !== undefined)
      filters.push({
        dimension: "city",
        values: [city],
        ...others,
        ...(areaCode === undefined ? {} : { areaCode }),
      });
    else if (areaCode !== undefined) filters.push({ dimension: "area", values: [areaCode], ...others });
    if (subjects !== undefined) filters.push({ dimension: "subject", values: subjects });
    return filters;
  }
  if (subjects !== undefined && (state !== undefined || robocall !== undefined))
    filters.push({
      dimension: "subject",
      values: subjects,
      ...(state === undefined ? {} : { state }),
      ...(robocall === undefined ? {} : { robocall }),
    });
  else {
    if (state !== undefined)
      filters.push({ dimension: "state", values: [state], ...(robocall === undefined ? {} : { robocall }) });
    else if (robocall !== undefined) filters.push({ dimension: "robocall", values: [robocall] });
    if (subjects !== undefined) filters.push({ dimension: "subject", values: subjects });
  }
  if (areaCode !== undefined) filters.push({ dimension: "area", values: [areaCode] });
  return filters;
}

/** The query without the filters on `columns` (as `testedColumns` names them), its created range kept. */
function without(query: StoredComplaintQuery, columns: readonly string[]): StoredComplaintQuery {
  const reduced: StoredComplaintQuery = { ...query };
  for (const column of columns) {
    if (column === "subject") {
      delete reduced.subject;
      delete reduced.subjects;
    } else if (column === "city_key") delete reduced.city;
    else if (column === "state_key") delete reduced.state;
    else if (column === "area_code") delete reduced.areaCode;
    else if (column === "robocall") delete reduced.robocall;
    else if (column === "phone") delete reduced.phone;
    else delete reduced.violation;
  }
  return reduced;
}

/**
 * Whether a query's matches are counted per hour as a combination (`CombinationCounts`): no
 * dimension counts them, and no caller's number narrows them to a few rows already.
 */
function countsCombination(query: StoredComplaintQuery, dimension: Dimension | null): boolean {
  return dimension === null && query.phone === undefined;
}

/**
 * The created times of the buckets of `series` that hold positions `offset` to `offset + limit - 1`
 * in `order` (the last cut to the series' total), the offset of the first of them within those
 * buckets, and the matches those buckets hold. An offset past the total gives an empty window.
 */
function pageWindow(
  series: CountSeries,
  order: "ASC" | "DESC",
  offset: number,
  limit: number,
): { created: TimeRange; offset: number; matches: number } {
  const total = series.sumOf(0, series.length);
  if (offset >= total || limit <= 0) return { created: { from: 1, to: 0 }, offset: 0, matches: 0 };
  const lastPosition = Math.min(offset + limit - 1, total - 1);
  const size = series.bucketSeconds;
  if (order === "ASC") {
    const first = series.ascendingIndexOf(0, series.length, offset);
    const last = series.ascendingIndexOf(0, series.length, lastPosition);
    return {
      created: { from: series.buckets[first]! * size, to: (series.buckets[last]! + 1) * size - 1 },
      offset: offset - series.sumOf(0, first),
      matches: series.sumOf(first, last + 1),
    };
  }
  const first = series.descendingIndexOf(0, series.length, offset);
  const last = series.descendingIndexOf(0, series.length, lastPosition);
  return {
    created: { from: series.buckets[last]! * size, to: (series.buckets[first]! + 1) * size - 1 },
    offset: offset - series.sumOf(first + 1, series.length),
    matches: series.sumOf(last, first + 1),
  };
}

/**
 * Where a page of `rows` rows, `window.offset` into the matches of a `pageWindow`, is read from:
 * the window's nearer end, so that at most half of its matches are skipped (`offset`, the matches
 * skipped); `flipped`: from its other end, in the other order, the page's rows then last first.
 */
function nearerEnd(
  window: { offset: number; matches: number },
  rows: number,
): { offset: number; flipped: boolean } {
  const fromOtherEnd = window.matches - window.offset - rows;
  return fromOtherEnd < window.offset
    ? { offset: fromOtherEnd, flipped: true }
    : { offset: window.offset, flipped: false };
}

/**
 * The bucket that holds the `offset`-th match in the given order, among the buckets `from` to `to`
 * (exclusive) of `series` and the partial buckets counted on rows before them (`head`) and after
 * them (`tail`): the created range narrowed to end (DESC) or start (ASC) with that bucket, clipped
 * to `range`, and the offset within it. Undefined when the offset lies past every match.
 */
function locateInSeries(
  series: CountSeries,
  part: { from: number; to: number; head?: BucketCount | undefined; tail?: BucketCount | undefined },
  range: TimeRange | undefined,
  order: "ASC" | "DESC",
  offset: number,
): { range: TimeRange; bucket: TimeRange; offsetWithinBucket: number } | undefined {
  const { from, to } = part;
  const whole = { from: range?.from ?? Number.MIN_SAFE_INTEGER, to: range?.to ?? Number.MAX_SAFE_INTEGER };
  const narrowed = (bucket: { from: number; to: number }, offsetWithinBucket: number) => ({
    range:
      order === "DESC"
        ? { from: whole.from, to: Math.min(bucket.to, whole.to) }
        : { from: Math.max(bucket.from, whole.from), to: whole.to },
    bucket: { from: Math.max(bucket.from, whole.from), to: Math.min(bucket.to, whole.to) },
    offsetWithinBucket,
  });
  const [first, last] = order === "DESC" ? [part.tail, part.head] : [part.head, part.tail];
  let remaining = offset;
  if (first) {
    if (remaining < first.count) return narrowed(first, remaining);
    remaining -= first.count;
  }
  const index =
    order === "DESC"
      ? series.descendingIndexOf(from, to, remaining)
      : series.ascendingIndexOf(from, to, remaining);
  if (index >= 0) {
    const start = series.buckets[index]! * series.bucketSeconds;
    const skipped = order === "DESC" ? series.sumOf(index + 1, to) : series.sumOf(from, index);
    return narrowed({ from: start, to: start + series.bucketSeconds - 1 }, remaining - skipped);
  }
  remaining -= series.sumOf(from, to);
  if (last && remaining < last.count) return narrowed(last, remaining);
  return undefined;
}

/** The filters that select exactly a dimension's complaints, to count its partial days on rows. */
function queryOf(dimension: Dimension): StoredComplaintQuery {
  const query: StoredComplaintQuery = { order: "DESC", limit: 0, offset: 0 };
  switch (dimension.name) {
    case "state":
      query.state = dimension.value;
      break;
    case "city": {
      const [state, city] = dimension.value.split("\u001f");
      query.state = state;
      query.city = city;
      break;
    }
    case "any_city":
      query.city = dimension.value;
      break;
    case "area":
      query.areaCode = dimension.value;
      break;
    case "robocall":
      query.robocall = dimension.value as "Y" | "N";
      break;
    case "subject":
      query.subject = matchKey(dimension.value);
      query.subjects = [dimension.value];
      break;
    default:
      break;
  }
  return query;
}

/**
 * A violation range's page plan (`ComplaintStore.violatedPlan`): its whole violation days, its
 * matches per created hour (or, with a filter, per created day) within its created range, and the
 * filter if any.
 */
interface ViolatedPlan {
  days: { first: number; last: number };
  series: CountSeries;
  filter?: ViolatedWith;
}

/** The column of each filter `violatedWith` counts. */
const FILTER_COLUMNS = {
  state: "state_key",
  robocall: "robocall",
  subject: "subject",
  area: "area_code",
  city: "city_key",
} as const;
