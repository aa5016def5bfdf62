import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type {
  ComplaintCountField,
  ComplaintCountFilters,
  ComplaintCountQuery,
} from "../domain/complaint-count-query.js";
import type { TimeRange } from "../domain/complaint-query.js";
import { type CountGroup, type CountResult, selectGroups } from "../domain/count-options.js";
import { formatDate, SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import type { Database } from "./database.js";
import type { Dimension } from "./dimension-counts.js";
import type { Schema } from "./schema.js";
import type { StoredValues } from "./stored-values.js";

/** The database or a transaction on it. */
type Reader = Kysely<Schema>;

/** Days since the epoch of a time column, rounded down (SQLite's and PostgreSQL's `/` truncate). */
const CREATED_DAY = sql<number>`(created_at - ((created_at % 86400) + 86400) % 86400) / 86400`;

/** The column (or expression) holding each field's value as records show it, for grouping rows. */
const GROUP_EXPRESSIONS: Readonly<Record<ComplaintCountField, Expression<unknown>>> = {
  created_date: CREATED_DAY,
  violation_date: sql.ref("violation_day"),
  state: sql.ref("state"),
  city: sql.ref("city"),
  area_code: sql.ref("area_code"),
  subject: sql.ref("subject"),
  is_robocall: sql.ref("robocall"),
  company_phone_number: sql.ref("phone"),
};

/** Fields whose group values are day numbers (shown as `YYYY-MM-DD`). */
const DAY_FIELDS: ReadonlySet<ComplaintCountField> = new Set(["created_date", "violation_date"]);

/**
 * Where a count table holds a field's counts per value and created day: the dimension of
 * `complaint_counts` (and of `complaint_hour_counts`, when `hourly`) whose values are the field's
 * values as stored, and the column that groups its partial days on rows.
 */
const VALUE_DIMENSIONS: Partial<Record<ComplaintCountField, ValueDimension>> = {
  state: { day: "shown_state", hour: "shown_state", column: "state" },
  city: { day: "shown_city", hour: "shown_city", column: "city" },
  subject: { day: "subject", hour: "subject", column: "subject" },
  area_code: { day: "area", hour: "shown_area", column: "area_code" },
  is_robocall: { day: "robocall", hour: "robocall", column: "robocall" },
};

/** A field's counts per stored value: its daily and hourly dimensions, and its column in rows. */
interface ValueDimension {
  day: Dimension["name"];
  hour: Dimension["name"];
  column: string;
}

/** One source of counts: a dimension with a fixed value, grouped by day (`created_date`). */
interface DayDimension {
  name: Dimension["name"];
  value: string;
  hourly: boolean;
}

/**
 * Counts complaints by one or two fields under any combination of filters, exactly. The common
 * shapes read count tables kept by the writers instead of rows (docs/query-design.md, "Counts"):
 *
 * - one field of state, city, subject, area code or robocall over a created range, or none: the
 *   per-day counts of every value (`complaint_counts`, one index range), the partial days at the
 *   ends of a range given with times from per-hour counts, and at most two partial hours grouped
 *   on rows;
 * - by created day, with no filter or one filter the list totals count by (a state, a state and a
 *   city, an area code, robocall), and by violation day without filters: the same counts by day;
 * - by created day and one of those fields, over a created range or none: the same per-day and
 *   per-hour counts of every value, kept apart by day;
 * - numbers with N >= 2 complaints over a created range: only numbers with N or more complaints in
 *   all and one since the range began (`complaint_phone_totals`) are counted, on their index.
 *
 * Anything else groups the matching rows in SQL.
 */
export class ComplaintCountStore {
  constructor(
    private readonly database: Database,
    /** The exact number of complaints in a created range (the list's total, from its counts). */
    private readonly totalCreated: (created: TimeRange | undefined) => Promise<number>,
    /** The stored subjects, kept per version of the complaints and shared with the lists. */
    private readonly stored: StoredValues,
  ) {}

  async count(query: ComplaintCountQuery): Promise<CountResult> {
    const { filters, by } = query;
    if (isEmpty(filters.created) || isEmpty(filters.violation))
      return { recordTotal: 0, groupTotal: 0, groups: [] };
    const others = otherFilters(filters);
    if (by.length === 2 && others.length === 0 && by.includes("created_date")) {
      const other = by.find((field) => field !== "created_date")!;
      const valueDimension = VALUE_DIMENSIONS[other];
      if (valueDimension) {
        const dayFirst = by[0] === "created_date";
        const found = await this.consistently((db) =>
          this.countByDayAndValue(db, valueDimension, filters.created),
        );
        const groups = found.map(({ day, value, count }) => {
          const shownDay = formatDate(day * SECONDS_PER_DAY);
          return { values: dayFirst ? [shownDay, value] : [value, shownDay], count };
        });
        return selectGroups(groups, query);
      }
    }
    if (by.length === 1) {
      const field = by[0]!;
      const valueDimension = VALUE_DIMENSIONS[field];
      if (others.length === 0 && valueDimension) {
        const counts = await this.consistently((db) =>
          this.countByValue(db, valueDimension, filters.created),
        );
        return selectGroups(toGroups(counts, false), query);
      }
      if (field === "company_phone_number" && others.length === 0 && query.minCount >= 2)
        return this.frequentNumbers(query);
      if (field === "violation_date" && others.length === 0 && !filters.created) {
        const counts = await this.countByDay(
          this.database.db,
          { name: "violation", value: "", hourly: false },
          undefined,
        );
        return selectGroups(toGroups(counts, true), query);
      }
      const dimension = field === "created_date" ? dayDimension(filters, others) : undefined;
      if (dimension) {
        const counts = await this.consistently((db) => this.countByDay(db, dimension, filters.created));
        return selectGroups(toGroups(counts, true), query);
      }
    }
    return this.groupRows(query);
  }

  /**
   * Runs the few short reads of a count from tables in one read transaction, so that an import
   * committing meanwhile is seen by all of them or none (a snapshot on both engines).
   */
  private consistently<T>(read: (db: Reader) => Promise<T>): Promise<T> {
    const transaction = this.database.db.transaction();
    return (
      this.database.dialect === "postgres" ? transaction.setIsolationLevel("repeatable read") : transaction
    ).execute(read);
  }

  /** Complaints per stored value of one field, over a created range (or all), from the count tables. */
  private async countByValue(
    db: Reader,
    dimension: ValueDimension,
    range: TimeRange | undefined,
  ): Promise<Map<string | number, number>> {
    const counts = new Map<string | number, number>();
    const add = (rows: Array<{ key: string | number; count: number | string }>) => {
      for (const row of rows) counts.set(row.key, (counts.get(row.key) ?? 0) + Number(row.count));
    };
    const { days, hours, rows } = splitBuckets(range, true);
    if (days) {
      let select = db
        .selectFrom("complaint_counts")
        .select(["value as key", (eb) => eb.fn.sum<number>("count").as("count")])
        .where("dimension", "=", dimension.day);
      if (days !== "all") select = select.where("day", ">=", days.from).where("day", "<=", days.to);
      add(await select.groupBy("value").execute());
    }
    for (const part of hours) add(await hourTotals(db, dimension, part));
    for (const part of rows) add(await rowTotals(db, dimension, part));
    return counts;
  }

  /**
   * Complaints per created day and stored value of one field (`by=created_date,FIELD`), over a
   * created range (or all), from the count tables: the groups as [day, value].
   */
  private async countByDayAndValue(
    db: Reader,
    dimension: ValueDimension,
    range: TimeRange | undefined,
  ): Promise<Array<{ day: number; value: string; count: number }>> {
    const counts = new Map<string, { day: number; value: string; count: number }>();
    const add = (day: number, value: string, count: number) => {
      const key = `${day}\u0000${value}`;
      const known = counts.get(key);
      if (known) known.count += count;
      else counts.set(key, { day, value, count });
    };
    const { days, hours, rows } = splitBuckets(range, true);
    if (days) {
      let select = db
        .selectFrom("complaint_counts")
        .select(["day", "value", "count"])
        .where("dimension", "=", dimension.day);
      if (days !== "all") select = select.where("day", ">=", days.from).where("day", "<=", days.to);
      for (const row of await select.execute()) add(Number(row.day), row.value, Number(row.count));
    }
    // Each part lies within one day.
    for (const part of hours) {
      const day = Math.floor((part.from * SECONDS_PER_HOUR) / SECONDS_PER_DAY);
      for (const row of await hourTotals(db, dimension, part)) add(day, row.key, Number(row.count));
    }
    for (const part of rows) {
      const day = Math.floor(part.from / SECONDS_PER_DAY);
      for (const row of await rowTotals(db, dimension, part)) add(day, row.key, Number(row.count));
    }
    return [...counts.values()].filter((group) => group.count > 0);
  }

  /** Complaints per created day (violation day for `violation`) of one dimension value, from the count tables. */
  private async countByDay(
    db: Reader,
    dimension: DayDimension,
    range: TimeRange | undefined,
  ): Promise<Map<string | number, number>> {
    const counts = new Map<string | number, number>();
    const add = (day: number, count: number) => {
      if (count > 0) counts.set(day, (counts.get(day) ?? 0) + count);
    };
    const { days, hours, rows } = splitBuckets(range, dimension.hourly);
    if (days) {
      let select = db
        .selectFrom("complaint_counts")
        .select(["day", "count"])
        .where("dimension", "=", dimension.name)
        .where("value", "=", dimension.value);
      if (days !== "all") select = select.where("day", ">=", days.from).where("day", "<=", days.to);
      for (const row of await select.execute()) add(Number(row.day), Number(row.count));
    }
    for (const part of hours) {
      const row = await db
        .selectFrom("complaint_hour_counts")
        .select((eb) => eb.fn.sum<number>("count").as("count"))
        .where("dimension", "=", dimension.name)
        .where("value", "=", dimension.value)
        .where("hour", ">=", part.from)
        .where("hour", "<=", part.to)
        .executeTakeFirst();
      add(Math.floor((part.from * SECONDS_PER_HOUR) / SECONDS_PER_DAY), Number(row?.count ?? 0));
    }
    for (const part of rows) {
      let select = db
        .selectFrom("complaints")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("created_at", ">=", part.from)
        .where("created_at", "<=", part.to);
      select = withDimension(select, dimension);
      const row = await select.executeTakeFirst();
      add(Math.floor(part.from / SECONDS_PER_DAY), Number(row?.count ?? 0));
    }
    return counts;
  }

  /**
   * Caller numbers with at least `minCount` (2 or more) complaints in the created range: counted on
   * the number index only for the numbers whose totals allow it.
   */
  private async frequentNumbers(query: ComplaintCountQuery): Promise<CountResult> {
    const range = query.filters.created;
    const db = this.database.db;
    let rows: Array<{ key: string; count: number | string }>;
    if (!range) {
      rows = await db
        .selectFrom("complaint_phone_totals")
        .select(["phone as key", "count"])
        .where("count", ">=", query.minCount)
        .execute();
    } else {
      const candidates = db
        .selectFrom("complaint_phone_totals")
        .select("phone")
        .where("count", ">=", query.minCount)
        .where("newest_at", ">=", range.from);
      rows = await db
        .selectFrom("complaints")
        .select(["phone as key", (eb) => eb.fn.countAll<number>().as("count")])
        .where("phone", "in", candidates)
        .where("created_at", ">=", range.from)
        .where("created_at", "<=", range.to)
        .groupBy("phone")
        .having((eb) => eb.fn.countAll(), ">=", query.minCount)
        .execute();
    }
    const groups = rows.map((row) => ({ values: [row.key], count: Number(row.count) }));
    return { ...selectGroups(groups, query), recordTotal: await this.totalCreated(range) };
  }

  /**
   * Any other request: the matching rows grouped in SQL; by caller number (as many groups as
   * rows, nearly), the totals and the page in two statements, ordered and cut in SQL.
   */
  private async groupRows(query: ComplaintCountQuery): Promise<CountResult> {
    const subjects =
      query.filters.subject === undefined
        ? undefined
        : await this.stored.subjectsMatching(query.filters.subject);
    if (subjects !== undefined && subjects.length === 0) return { recordTotal: 0, groupTotal: 0, groups: [] };
    const keys = query.by.map((field) => GROUP_EXPRESSIONS[field]);
    const base = () => filtered(this.database.db.selectFrom("complaints"), query.filters, subjects);
    if (!query.by.includes("company_phone_number")) {
      // Groups are then few (days, places, subjects: thousands at most): read them all in one
      // pass and order them here, rather than grouping the rows twice.
      const rows = (await base()
        .select(keys.map((key, index) => sql`${key}`.as(`key${index}`)))
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .groupBy(keys)
        .execute()) as Array<Record<string, unknown>>;
      const groups: CountGroup[] = rows.map((row) => ({
        values: query.by.map((field, index) => shown(field, row[`key${index}`])),
        count: Number(row.count),
      }));
      return selectGroups(groups, query);
    }
    const grouped = base()
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .groupBy(keys);
    const totals = await this.database.db
      .selectFrom(grouped.as("groups"))
      .select([
        sql<number | string>`coalesce(sum(count), 0)`.as("records"),
        sql<number | string>`coalesce(sum(case when count >= ${query.minCount} then 1 else 0 end), 0)`.as(
          "kept",
        ),
      ])
      .executeTakeFirst();
    const recordTotal = Number(totals?.records ?? 0);
    const groupTotal = Number(totals?.kept ?? 0);
    if (groupTotal === 0) return { recordTotal, groupTotal, groups: [] };
    // Text keys in byte (code point) order on both engines: SQLite's default, PostgreSQL's "C".
    const ordered = query.by.map((field, index) =>
      DAY_FIELDS.has(field) || this.database.dialect === "sqlite"
        ? sql`${keys[index]!}`
        : sql`${keys[index]!} collate "C"`,
    );
    let page = base()
      .select(keys.map((key, index) => sql`${key}`.as(`key${index}`)))
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .groupBy(keys)
      .having((eb) => eb.fn.countAll(), ">=", query.minCount);
    if (query.sort === "-count") page = page.orderBy(sql`count(*)`, "desc");
    for (const key of ordered) page = page.orderBy(key);
    const rows = (await page.limit(query.limit).execute()) as Array<Record<string, unknown>>;
    const groups: CountGroup[] = rows.map((row) => ({
      values: query.by.map((field, index) => shown(field, row[`key${index}`])),
      count: Number(row.count),
    }));
    return { recordTotal, groupTotal, groups };
  }
}

/** Complaints per stored value in a run of whole hours (bucket numbers), from the hourly counts. */
function hourTotals(
  db: Reader,
  dimension: ValueDimension,
  hours: TimeRange,
): Promise<Array<{ key: string; count: number | string }>> {
  return db
    .selectFrom("complaint_hour_counts")
    .select(["value as key", (eb) => eb.fn.sum<number>("count").as("count")])
    .where("dimension", "=", dimension.hour)
    .where("hour", ">=", hours.from)
    .where("hour", "<=", hours.to)
    .groupBy("value")
    .execute();
}

/** Complaints per stored value created in a range of moments, grouped on rows. */
function rowTotals(
  db: Reader,
  dimension: ValueDimension,
  moments: TimeRange,
): Promise<Array<{ key: string; count: number | string }>> {
  const column = sql.ref(dimension.column);
  return db
    .selectFrom("complaints")
    .select([sql<string>`${column}`.as("key"), (eb) => eb.fn.countAll<number>().as("count")])
    .where("created_at", ">=", moments.from)
    .where("created_at", "<=", moments.to)
    .groupBy(column)
    .execute();
}

/** The filters other than the created range that a request gives. */
function otherFilters(filters: ComplaintCountFilters): string[] {
  return (["violation", "state", "city", "areaCode", "robocall", "phone", "subject"] as const).filter(
    (name) => filters[name] !== undefined,
  );
}

/** The dimension counting by day exactly the complaints of the filters besides the created range, if any. */
function dayDimension(filters: ComplaintCountFilters, others: string[]): DayDimension | undefined {
  const only = others.join(",");
  if (only === "") return { name: "all", value: "", hourly: true };
  if (only === "state") return { name: "state", value: filters.state!, hourly: true };
  if (only === "state,city")
    return { name: "city", value: `${filters.state}\u001f${filters.city}`, hourly: false };
  if (only === "city") return { name: "any_city", value: filters.city!, hourly: false };
  if (only === "areaCode") return { name: "area", value: filters.areaCode!, hourly: false };
  if (only === "robocall") return { name: "robocall", value: filters.robocall!, hourly: true };
  return undefined;
}

/** Restricts rows to a day dimension's complaints, to count its partial days. */
function withDimension<O>(
  select: SelectQueryBuilder<Schema, "complaints", O>,
  dimension: DayDimension,
): SelectQueryBuilder<Schema, "complaints", O> {
  switch (dimension.name) {
    case "state":
      return select.where("state_key", "=", dimension.value);
    case "city": {
      const [state, city] = dimension.value.split("\u001f");
      return select.where("state_key", "=", state!).where("city_key", "=", city!);
    }
    case "any_city":
      return select.where("city_key", "=", dimension.value);
    case "area":
      return select.where("area_code", "=", dimension.value);
    case "robocall":
      return select.where("robocall", "=", dimension.value);
    default:
      return select;
  }
}

/** Applies every filter given (AND); `subjects` are the stored subjects the subject filter matches. */
function filtered<O>(
  select: SelectQueryBuilder<Schema, "complaints", O>,
  filters: ComplaintCountFilters,
  subjects: string[] | undefined,
): SelectQueryBuilder<Schema, "complaints", O> {
  let result = select;
  const between = (column: "created_at" | "violation_at", range: TimeRange) =>
    result.where(column, ">=", range.from).where(column, "<=", range.to);
  if (filters.created) result = between("created_at", filters.created);
  if (filters.violation) result = between("violation_at", filters.violation);
  if (filters.state !== undefined) result = result.where("state_key", "=", filters.state);
  if (filters.city !== undefined) result = result.where("city_key", "=", filters.city);
  if (filters.areaCode !== undefined) result = result.where("area_code", "=", filters.areaCode);
  if (filters.robocall !== undefined) result = result.where("robocall", "=", filters.robocall);
  if (filters.phone !== undefined) result = result.where("phone", "=", filters.phone);
  if (subjects !== undefined) result = result.where(sql<SqlBool>`subject in (${sql.join(subjects)})`);
  return result;
}

/**
 * A created range cut into what each source answers: whole days (`all`: every day),
 * whole hours (of the hourly dimensions) and the parts counted on rows. No range: every day.
 */
function splitBuckets(
  range: TimeRange | undefined,
  hourly: boolean,
): { days: TimeRange | "all" | undefined; hours: TimeRange[]; rows: TimeRange[] } {
  if (!range) return { days: "all", hours: [], rows: [] };
  const day = split(range, SECONDS_PER_DAY);
  const hours: TimeRange[] = [];
  const rows: TimeRange[] = [];
  for (const part of day.partial) {
    if (!hourly) {
      rows.push(part);
      continue;
    }
    const hour = split(part, SECONDS_PER_HOUR);
    if (hour.whole) hours.push(hour.whole);
    rows.push(...hour.partial);
  }
  return { days: day.whole, hours, rows };
}

/** The whole buckets of `size` seconds inside a range (bucket numbers), and the parts left at its ends. */
function split(range: TimeRange, size: number): { whole: TimeRange | undefined; partial: TimeRange[] } {
  const first = Math.ceil(range.from / size);
  const last = Math.floor((range.to + 1) / size) - 1;
  if (first > last) return { whole: undefined, partial: [range] };
  const partial: TimeRange[] = [];
  if (first * size > range.from) partial.push({ from: range.from, to: first * size - 1 });
  if ((last + 1) * size - 1 < range.to) partial.push({ from: (last + 1) * size, to: range.to });
  return { whole: { from: first, to: last }, partial };
}

function isEmpty(range: TimeRange | undefined): boolean {
  return range !== undefined && range.from > range.to;
}

/** Groups of one field from counts by key (day numbers when `days`). */
function toGroups(counts: Map<string | number, number>, days: boolean): CountGroup[] {
  const groups: CountGroup[] = [];
  for (const [key, count] of counts)
    if (count > 0)
      groups.push({ values: [days ? formatDate(Number(key) * SECONDS_PER_DAY) : String(key)], count });
  return groups;
}

/** A grouped value as records show it. */
function shown(field: ComplaintCountField, value: unknown): string {
  return DAY_FIELDS.has(field) ? formatDate(Number(value) * SECONDS_PER_DAY) : String(value);
}
