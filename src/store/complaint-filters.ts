import { CompiledQuery, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { ComplaintQuery, TimeRange } from "../domain/complaint-query.js";
import { SECONDS_PER_DAY } from "../domain/time.js";
import { SECONDARY_INDEXES } from "./complaint-indexes.js";
import type { Schema } from "./schema.js";

/** A complaint's columns in the order of `ComplaintRow` (domain/complaint.ts), for reads as rows. */
export const COMPLAINT_COLUMNS = [
  "id",
  "created_at",
  "violation_at",
  "phone",
  "city",
  "state",
  "area_code",
  "subject",
  "robocall",
] as const;

/**
 * A complaint query as the store reads it: its `subject` filter (a match key) resolved to the
 * stored subjects it matches (`subjects`, see `stored-values.ts`). A query without `subject`
 * needs nothing resolved.
 */
export interface StoredComplaintQuery extends ComplaintQuery {
  subjects?: readonly string[];
}

/** A column a filter fixes by equality, leading the index that serves that filter. */
export type EqualityColumn = "phone" | "state_key" | "city_key" | "area_code" | "subject" | "robocall";

/**
 * The columns leading an index a combination can be walked on, in its order: a filter's own, or a
 * place and a subject, fixed by equality, then the violation day (migration 032).
 */
export type WalkColumn = EqualityColumn | "violation_day";

/**
 * The single filters a combination holds, each as the columns leading the index that serves it
 * alone and the query of that filter alone (with the combination's created range): the candidates
 * for the index a combination is walked on. A subject with several stored spellings is none.
 * Besides, a place (a city in every state, or an area code) with a subject and a range of whole
 * violation days: its index holds their entries with every other column, in created order within
 * each day (`walksDaysApart`).
 */
export function singleFilters(
  query: StoredComplaintQuery,
): Array<{ columns: WalkColumn[]; alone: StoredComplaintQuery }> {
  const base: StoredComplaintQuery = {
    order: "DESC",
    limit: 0,
    offset: 0,
    ...(query.created ? { created: query.created } : {}),
  };
  const candidates: Array<{ columns: WalkColumn[]; alone: StoredComplaintQuery }> = [];
  if (query.state !== undefined && query.city !== undefined)
    candidates.push({
      columns: ["state_key", "city_key"],
      alone: { ...base, state: query.state, city: query.city },
    });
  else if (query.state !== undefined)
    candidates.push({ columns: ["state_key"], alone: { ...base, state: query.state } });
  else if (query.city !== undefined)
    candidates.push({ columns: ["city_key"], alone: { ...base, city: query.city } });
  if (query.areaCode !== undefined)
    candidates.push({ columns: ["area_code"], alone: { ...base, areaCode: query.areaCode } });
  if (query.subject !== undefined && query.subjects?.length === 1)
    candidates.push({
      columns: ["subject"],
      alone: { ...base, subject: query.subject, subjects: query.subjects },
    });
  if (query.robocall !== undefined)
    candidates.push({ columns: ["robocall"], alone: { ...base, robocall: query.robocall } });
  const placeSubject = placeSubjectIndexOf(query);
  if (placeSubject !== undefined && query.subjects?.length === 1) {
    // The index's own leading columns: its place (the city, else the area code), subject and day.
    const columns = SECONDARY_INDEXES[placeSubject]!.slice(0, 3) as WalkColumn[];
    candidates.push({
      columns,
      alone: {
        ...base,
        ...(columns[0] === "city_key" ? { city: query.city } : { areaCode: query.areaCode }),
        subject: query.subject,
        subjects: query.subjects,
        violation: query.violation,
      },
    });
  }
  return candidates;
}

/**
 * Whether a walk on `walk`'s index reads a violation range's days one after the other, each in
 * created order, so that its entries are sorted by creation afterwards: a place, a subject and a
 * range of more than one violation day.
 */
export function walksDaysApart(walk: readonly WalkColumn[], violation: TimeRange | undefined): boolean {
  return (
    walk.includes("violation_day") &&
    violation !== undefined &&
    violation.to - violation.from >= SECONDS_PER_DAY
  );
}

/**
 * A compiled select of `complaints` made to walk `index` on SQLite (`INDEXED BY` on its first
 * `from "complaints"`, the statement's own table; a join written `complaints` is not touched):
 * where SQLite's sampled statistics rate two indexes alike, the one the counts chose. Unchanged
 * on PostgreSQL, or without an index.
 */
export function indexedBy(
  compiled: CompiledQuery,
  dialect: "sqlite" | "postgres",
  index: string | undefined,
): CompiledQuery {
  if (index === undefined || dialect !== "sqlite") return compiled;
  return CompiledQuery.raw(
    compiled.sql.replace('from "complaints"', `from "complaints" indexed by "${index}"`),
    [...compiled.parameters],
  );
}

/**
 * How a violation range is tested: on `violation_at` (the violation index can serve it), written
 * `+violation_at` so that no engine uses that index (`scan`: read in created order), or for a range
 * of whole days on `violation_day` (`day`), which the indexes of the other filters hold, so that a
 * page or count walked on one of them tests it without reading rows.
 */
export type ViolationTest = "time" | "scan" | "day";

/** A column `rowColumn` can test on the row. */
export type RowTestedColumn = "subject" | "city_key";

/**
 * The columns of `RowTestedColumn` that the index `index` does not hold, to be tested on the row
 * (`rowColumn`) by a select walking it: on SQLite only, and none when no index is named.
 */
export function rowTestedColumns(
  dialect: "sqlite" | "postgres",
  index: string | undefined,
): ReadonlySet<RowTestedColumn> {
  if (dialect !== "sqlite" || index === undefined) return new Set();
  const held = SECONDARY_INDEXES[index] ?? [];
  return new Set((["subject", "city_key"] as const).filter((column) => !held.includes(column)));
}

/**
 * The index led by the query's place (a city, else an area code), its subject and the violation
 * day (migration 032), when it has those and a range of whole violation days: it holds the
 * combination's entries within the range alone, with every other column the query tests, so its
 * count (`CombinationCounts`) is made there. Undefined for any other query.
 */
export function placeSubjectIndexOf(query: StoredComplaintQuery): string | undefined {
  const { subjects, violation } = query;
  if (subjects === undefined || subjects.length === 0 || !violation || !isWholeDays(violation))
    return undefined;
  if (query.city !== undefined) return "complaints_city_subject_violation";
  if (query.areaCode !== undefined) return "complaints_area_subject_violation";
  return undefined;
}

/**
 * Applies a complaint query's filters to a select, as pages and exports apply them. A `subject`
 * filter must come resolved (`subjects`); it throws otherwise, rather than match every subject.
 * `violationTest` says how a violation range is tested (`ViolationTest`; `day` applies to a range
 * of whole days only, any other is tested on its times). `onRow`: the columns the walked index
 * lacks on SQLite (`rowTestedColumns`), tested on the row (`rowColumn`) so that only entries
 * passing the index's own tests have their rows read.
 */
export function filterComplaints<O>(
  select: SelectQueryBuilder<Schema, "complaints", O>,
  query: StoredComplaintQuery,
  created: TimeRange | undefined,
  violationTest: ViolationTest = "time",
  onRow: ReadonlySet<RowTestedColumn> = new Set(),
): SelectQueryBuilder<Schema, "complaints", O> {
  const tested = (column: RowTestedColumn) =>
    onRow.has(column) ? rowColumn("sqlite", column) : sql.ref(column);
  let result = select;
  if (query.subject !== undefined && query.subjects === undefined)
    throw new Error("A subject filter must be resolved to the stored subjects before it is applied.");
  if (created) result = result.where("created_at", ">=", created.from).where("created_at", "<=", created.to);
  if (query.violation && violationTest === "day" && isWholeDays(query.violation))
    result = result
      .where("violation_day", ">=", query.violation.from / SECONDS_PER_DAY)
      .where("violation_day", "<=", (query.violation.to + 1) / SECONDS_PER_DAY - 1);
  else if (query.violation) {
    const violation =
      violationTest === "scan"
        ? sql<number>`+${sql.ref("violation_at")}`
        : sql<number>`${sql.ref("violation_at")}`;
    result = result.where(violation, ">=", query.violation.from).where(violation, "<=", query.violation.to);
  }
  if (query.state !== undefined) result = result.where("state_key", "=", query.state);
  if (query.city !== undefined) result = result.where(tested("city_key"), "=", query.city);
  if (query.areaCode !== undefined) result = result.where("area_code", "=", query.areaCode);
  if (query.robocall !== undefined) result = result.where("robocall", "=", query.robocall);
  if (query.phone !== undefined) result = result.where("phone", "=", query.phone);
  const subjects = query.subjects;
  if (subjects !== undefined) {
    if (subjects.length === 1) result = result.where(tested("subject"), "=", subjects[0]!);
    else if (subjects.length > 1) result = result.where(tested("subject"), "in", [...subjects]);
    else result = result.where(sql<SqlBool>`1 = 0`);
  }
  return result;
}

/**
 * A test's operand for a column the walked index does not hold (`subject`, `city_key`), in a
 * select of `complaints`. On SQLite, a table without rowid has each entry's row read before any
 * term is tested once one term needs a column its index lacks; written as the row's own column,
 * read through the primary key by a correlated subquery, only the entries that pass the index's
 * own tests have their rows read (a small state's entries in a violation range: 413 rows instead
 * of 12,042 at 20 million complaints, 1.4 ms instead of 38). On PostgreSQL, which reads each
 * entry's row from its heap anyway, the column itself, kept off its index by `|| ''`.
 */
export function rowColumn(dialect: "sqlite" | "postgres", column: RowTestedColumn): RawBuilder<string> {
  return dialect === "sqlite"
    ? sql<string>`(select ${sql.ref(`own.${column}`)} from complaints as own where own.created_at = complaints.created_at and +own.id = complaints.id)`
    : sql<string>`${sql.ref(column)} || ''`;
}

/**
 * The violation day (days since 1970) when the query selects exactly one whole day of violations
 * and no other attribute, so that the violation-day index serves it; else undefined.
 */
export function violationDay(query: StoredComplaintQuery): number | undefined {
  const range = query.violation;
  if (!range || equalityColumns(query).length > 0) return undefined;
  if (range.from % SECONDS_PER_DAY !== 0 || range.to !== range.from + SECONDS_PER_DAY - 1) return undefined;
  return range.from / SECONDS_PER_DAY;
}

/**
 * The columns a query fixes by equality, in the order of the index that serves it: the most
 * selective filter's (the caller's number, the state and city, a city in every state, the area
 * code, the subject, the robocall flag). A subject with several stored spellings fixes no column (its rows are the union of
 * several ranges of its index, not one range in created order).
 */
export function equalityColumns(query: StoredComplaintQuery): EqualityColumn[] {
  if (query.phone !== undefined) return ["phone"];
  if (query.state !== undefined) return query.city !== undefined ? ["state_key", "city_key"] : ["state_key"];
  if (query.city !== undefined) return ["city_key"];
  if (query.areaCode !== undefined) return ["area_code"];
  if (query.subjects?.length === 1) return ["subject"];
  if (query.robocall !== undefined) return ["robocall"];
  return [];
}

export function isEmptyRange(range: TimeRange | undefined): boolean {
  return range !== undefined && range.from > range.to;
}

/** Whether a time range starts at a midnight and ends just before one (UTC): whole days. */
export function isWholeDays(range: TimeRange): boolean {
  return range.from % SECONDS_PER_DAY === 0 && (range.to + 1) % SECONDS_PER_DAY === 0;
}

/**
 * The columns a query's filters test, besides the created time (which every index holds): a range
 * of whole violation days as `violation_day` (see `ViolationTest`).
 */
export function testedColumns(query: StoredComplaintQuery): string[] {
  const columns: string[] = [];
  if (query.phone !== undefined) columns.push("phone");
  if (query.state !== undefined) columns.push("state_key");
  if (query.city !== undefined) columns.push("city_key");
  if (query.areaCode !== undefined) columns.push("area_code");
  if (query.subjects !== undefined) columns.push("subject");
  if (query.robocall !== undefined) columns.push("robocall");
  if (query.violation !== undefined)
    columns.push(isWholeDays(query.violation) ? "violation_day" : "violation_at");
  return columns;
}

/**
 * Splits a range into the whole buckets (days or hours of `size` seconds) that counts answer and
 * at most two partial buckets that must be counted on rows.
 */
export function splitRange(
  range: TimeRange | undefined,
  size: number,
): {
  fullFrom?: number;
  fullTo?: number;
  partial: TimeRange[];
} {
  if (!range) return { partial: [] };
  const first = Math.floor(range.from / size);
  const last = Math.floor(range.to / size);
  const startsClean = range.from === first * size;
  const endsClean = range.to === (last + 1) * size - 1;
  if (first === last && !(startsClean && endsClean)) {
    return { fullFrom: first, fullTo: first - 1, partial: [range] };
  }
  const partial: TimeRange[] = [];
  if (!startsClean) partial.push({ from: range.from, to: (first + 1) * size - 1 });
  if (!endsClean) partial.push({ from: last * size, to: range.to });
  return {
    fullFrom: startsClean ? first : first + 1,
    fullTo: endsClean ? last : last - 1,
    partial,
  };
}
