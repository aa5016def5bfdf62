import type { CompiledQuery, Kysely } from "kysely";
import { type Complaint, type ComplaintRow, complaintFromRow } from "../domain/complaint.js";
import type { ComplaintQuery, TimeRange } from "../domain/complaint-query.js";
import { SECONDS_PER_DAY } from "../domain/time.js";
import {
  COMPLAINT_COLUMNS,
  equalityColumns,
  filterComplaints,
  isEmptyRange,
  type StoredComplaintQuery,
  splitRange,
  violationDay,
} from "./complaint-filters.js";
import type { Database } from "./database.js";
import { dimensionFor } from "./dimension-counts.js";
import type { ReadSnapshot } from "./read-snapshot.js";
import type { Schema } from "./schema.js";
import { spellingsOf, storedValuesQuery } from "./stored-values.js";

/**
 * Rows read per statement. Each batch is one short statement (a few milliseconds on an index), so
 * an export of any size stays within the statement budget, holds at most one batch in memory, and
 * gives the event loop back between batches.
 */
export const EXPORT_BATCH_ROWS = 1_000;

/**
 * Every complaint a query matches, in its order, read from one snapshot: `total` and every batch
 * see the data as it was when the export was opened, whatever an import commits meanwhile.
 * `close()` ends the snapshot; the caller must call it however the export ends.
 */
export interface ComplaintExport {
  /** The complaints the query matches in the snapshot: exactly what `batches` yields. */
  readonly total: number;
  /** The complaints in batches of at most EXPORT_BATCH_ROWS, in the query's order (created time, then id). */
  batches(): AsyncGenerator<Complaint[]>;
  close(): Promise<void>;
}

/**
 * Opens an export of the complaints `query` matches (its order; its offset and limit are ignored).
 * Rows are read in batches by key, `(created_at, id)` after the last row read, on the index that
 * serves the filter, so each batch costs the same however deep into the result it starts.
 */
export async function openComplaintExport(
  database: Database,
  query: ComplaintQuery,
): Promise<ComplaintExport> {
  const snapshot = await database.openReadSnapshot();
  try {
    const resolved = await withSubjects(snapshot, database.db, query);
    const total = resolved === null ? 0 : await totalIn(snapshot, database.db, resolved);
    const narrowed =
      resolved === null || total === 0 ? query : await withCreatedSpan(snapshot, database.db, resolved);
    return {
      total,
      batches: () => readBatches(snapshot, database.db, narrowed, total),
      close: () => snapshot.close(),
    };
  } catch (err) {
    await snapshot.close();
    throw err;
  }
}

/**
 * The query with its subject filter resolved to the stored subjects it matches, read in the
 * snapshot; null when it matches none.
 */
async function withSubjects(
  snapshot: ReadSnapshot,
  db: Kysely<Schema>,
  query: ComplaintQuery,
): Promise<StoredComplaintQuery | null> {
  if (query.subject === undefined) return query;
  const stored = (await snapshot.rows(storedValuesQuery(db, "subject"))).map((row) => String(row[0]));
  const subjects = spellingsOf(stored, query.subject);
  return subjects.length === 0 ? null : { ...query, subjects };
}

async function* readBatches(
  snapshot: ReadSnapshot,
  db: Kysely<Schema>,
  query: StoredComplaintQuery,
  total: number,
): AsyncGenerator<Complaint[]> {
  if (total === 0) return;
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const rows = await snapshot.rows(batchQuery(db, query, after));
    if (rows.length === 0) return;
    const batch = rows.map((row) => complaintFromRow(row as unknown as ComplaintRow));
    yield batch;
    if (rows.length < EXPORT_BATCH_ROWS) return;
    const last = batch[batch.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/** The next batch after `after` (the first without it), on the index the page of the same query uses. */
function batchQuery(
  db: Kysely<Schema>,
  query: StoredComplaintQuery,
  after: { createdAt: number; id: string } | undefined,
): CompiledQuery {
  const descending = query.order === "DESC";
  const direction = descending ? "desc" : "asc";
  const day = violationDay(query);
  let select = db.selectFrom("complaints").select(COMPLAINT_COLUMNS);
  // One violation day is walked on its own index (in created order); a violation range is read in
  // created order on the other filters' index, since sorting it anew for every batch would cost
  // each batch the whole range.
  select =
    day === undefined
      ? filterComplaints(select, query, query.created, query.violation !== undefined ? "scan" : "time")
      : filterComplaints(select, { ...query, violation: undefined }, query.created).where(
          "violation_day",
          "=",
          day,
        );
  if (after) {
    // (created_at, id) beyond the last row, written so that created_at bounds the index range.
    select = select
      .where("created_at", descending ? "<=" : ">=", after.createdAt)
      .where((eb) =>
        eb.or([
          eb("created_at", descending ? "<" : ">", after.createdAt),
          eb("id", descending ? "<" : ">", after.id),
        ]),
      );
  }
  // The filter's equality columns first name its index as the one that yields the order.
  for (const column of equalityColumns(query)) select = select.orderBy(column, direction);
  return select.orderBy("created_at", direction).orderBy("id", direction).limit(EXPORT_BATCH_ROWS).compile();
}

/**
 * A violation range is read in created order, so a batch skips the rows created outside the
 * matches' span: the query narrowed to the created times of its first and last match (found on
 * the violation index, which holds the created time of each row on SQLite), so that no batch
 * walks the whole collection to find a rare range's matches. Other queries unchanged.
 */
async function withCreatedSpan(
  snapshot: ReadSnapshot,
  db: Kysely<Schema>,
  query: StoredComplaintQuery,
): Promise<StoredComplaintQuery> {
  if (query.violation === undefined || violationDay(query) !== undefined) return query;
  const [row] = await snapshot.rows(
    filterComplaints(
      db
        .selectFrom("complaints")
        .select((eb) => [eb.fn.min("created_at").as("first"), eb.fn.max("created_at").as("last")]),
      query,
      query.created,
    ).compile(),
  );
  if (row === undefined || row[0] === null || row[1] === null) return query;
  const span = { from: Number(row[0]), to: Number(row[1]) };
  const created = query.created
    ? { from: Math.max(span.from, query.created.from), to: Math.min(span.to, query.created.to) }
    : span;
  return { ...query, created };
}

/**
 * The exact number of complaints the query matches in the snapshot: whole days from the daily
 * counts, the cut first and last days (and filters no count covers) counted on an index.
 */
async function totalIn(
  snapshot: ReadSnapshot,
  db: Kysely<Schema>,
  query: StoredComplaintQuery,
): Promise<number> {
  if (isEmptyRange(query.created) || isEmptyRange(query.violation)) return 0;
  const countOf = async (compiled: CompiledQuery) => Number((await snapshot.rows(compiled))[0]?.[0] ?? 0);
  const countRows = (filters: StoredComplaintQuery, created: TimeRange | undefined) =>
    countOf(
      filterComplaints(
        db.selectFrom("complaints").select((eb) => eb.fn.countAll<number>().as("count")),
        filters,
        created,
      ).compile(),
    );
  const dimension = dimensionFor(query);
  if (!dimension) return countRows(query, query.created);
  const byCreated = dimension.column === "created_at";
  const { fullFrom, fullTo, partial } = splitRange(
    byCreated ? query.created : query.violation,
    SECONDS_PER_DAY,
  );
  let total = 0;
  for (const part of partial) {
    total += byCreated
      ? await countRows(query, part)
      : await countRows({ order: "DESC", limit: 0, offset: 0, violation: part }, undefined);
  }
  if (fullFrom !== undefined && fullTo !== undefined && fullFrom > fullTo) return total;
  let sum = db
    .selectFrom("complaint_counts")
    .select((eb) => eb.fn.sum<number>("count").as("count"))
    .where("dimension", "=", dimension.name)
    .where("value", "=", dimension.value);
  if (fullFrom !== undefined && fullTo !== undefined)
    sum = sum.where("day", ">=", fullFrom).where("day", "<=", fullTo);
  return total + (await countOf(sum.compile()));
}
