import { COMPLAINTS } from "../domain/collections.js";
import { COMPLAINT_ID_PATTERN, type Complaint } from "../domain/complaint.js";
import {
  dayOf,
  formatDate,
  formatDateTime,
  nowSeconds,
  parseDateTime,
  SECONDS_PER_DAY,
} from "../domain/time.js";
import { ComplaintStore } from "../store/complaint-store.js";
import type { ComplaintWriter } from "../store/complaint-writer.js";
import type { Database } from "../store/database.js";
import { FreshnessStore } from "../store/freshness-store.js";
import type { UpstreamClient } from "./upstream-client.js";

/** The live service's largest page. */
export const UPSTREAM_PAGE_SIZE = 50;
/**
 * The deepest offset a window is paged to before it is narrowed to start at its last record's
 * time: deep offsets are slow upstream and shift when rows arrive, so windows stay shallow.
 */
export const WINDOW_OFFSET_CAP = 500;

export interface MirrorRunOptions {
  /** The first created day to copy (days since the epoch); later runs continue after their progress. */
  sinceDay?: number;
  log?: (line: string) => void;
  /** Stops between windows when aborted; the window in hand is not written. */
  signal?: AbortSignal;
}

export interface MirrorRunResult {
  windows: number;
  fetched: number;
  added: number;
  existing: number;
  rejected: number;
  /** The last day now copied for good, or null. */
  completeThroughDay: number | null;
  /** The upstream's newest complaint's created time, or undefined when it holds none. */
  newestCreatedAt: number | undefined;
}

interface UpstreamRecord {
  id?: unknown;
  attributes?: Record<string, unknown>;
}

/**
 * Copies Do Not Call complaints from an FTC-compatible API into the store, keeping the upstream's
 * ids, one created day at a time (oldest first, in ascending created order, 50 a page). A day ends
 * at its first short page, never at the upstream's total, which the live service gets wrong. A
 * day's records are written in one transaction, together with the progress record when the day is
 * final (the upstream holds complaints created after it); the newest day is copied but not marked,
 * so the next run fetches it again for what was published since. Interrupted anywhere, the next
 * run continues after the last final day, and records already present are left alone.
 */
export async function mirrorComplaints(
  database: Database,
  client: UpstreamClient,
  options: MirrorRunOptions = {},
): Promise<MirrorRunResult> {
  const log = options.log ?? (() => {});
  const freshness = new FreshnessStore(database);
  const upstream = client.identity;
  const result: MirrorRunResult = {
    windows: 0,
    fetched: 0,
    added: 0,
    existing: 0,
    rejected: 0,
    completeThroughDay: null,
    newestCreatedAt: undefined,
  };

  const newest = await endRecord(client, "DESC");
  const progress = await freshness.mirrorProgress(upstream, COMPLAINTS.name);
  result.completeThroughDay = progress.completeThroughDay;
  if (!newest) {
    log(`${upstream} holds no complaints`);
    await freshness.markChecked(upstream, COMPLAINTS.name, nowSeconds());
    return result;
  }
  result.newestCreatedAt = newest.createdAt;
  const newestDay = dayOf(newest.createdAt);
  let firstDay: number;
  if (progress.completeThroughDay !== null) {
    firstDay = Math.max(progress.completeThroughDay + 1, options.sinceDay ?? Number.MIN_SAFE_INTEGER);
    log(
      `resuming after ${formatDate(progress.completeThroughDay * SECONDS_PER_DAY)}, the last day copied for good`,
    );
  } else if (options.sinceDay !== undefined) {
    firstDay = options.sinceDay;
  } else {
    const oldest = await endRecord(client, "ASC");
    firstDay = oldest ? dayOf(oldest.createdAt) : newestDay;
  }
  log(
    `mirroring ${upstream}${COMPLAINTS.path}: created ${formatDate(firstDay * SECONDS_PER_DAY)} to ${formatDate(newestDay * SECONDS_PER_DAY)}`,
  );

  const writer = database.complaintWriter();
  try {
    for (let day = firstDay; day <= newestDay; day++) {
      await copyDay({ client, writer, upstream, result, log, signal: options.signal }, day, newestDay);
    }
  } finally {
    await writer.close();
  }
  if (result.added > 0) await new ComplaintStore(database).optimize();
  await freshness.markChecked(upstream, COMPLAINTS.name, nowSeconds());
  return result;
}

/** What copying a day works with; it adds to `result`. */
interface DayCopy {
  client: UpstreamClient;
  writer: ComplaintWriter;
  upstream: string;
  result: MirrorRunResult;
  log: (line: string) => void;
  signal: AbortSignal | undefined;
}

/**
 * Fetches the complaints created on `day` and writes them in one transaction, with the progress
 * record when the day is final (before `newestDay`) and the collection marked updated when
 * anything was added.
 */
async function copyDay(copy: DayCopy, day: number, newestDay: number): Promise<void> {
  const { writer, upstream, result } = copy;
  copy.signal?.throwIfAborted();
  const window = await fetchDay(copy.client, day, (reason) => {
    result.rejected++;
    copy.log(`${formatDate(day * SECONDS_PER_DAY)}: record skipped: ${reason}`);
  });
  copy.signal?.throwIfAborted();
  const final = day < newestDay;
  // Upstream's ids need not begin with the created time, so the id index must check them.
  await writer.begin({ keepIdIndex: true });
  try {
    await writer.insert(window.complaints);
    const written = await writer.commit(final ? { mirror: { upstream, completeThroughDay: day } } : {});
    result.added += written.added;
    result.existing += written.existing;
  } catch (err) {
    await writer.rollback();
    throw err;
  }
  result.windows++;
  result.fetched += window.complaints.length;
  if (final) result.completeThroughDay = day;
  copy.log(
    `${formatDate(day * SECONDS_PER_DAY)}: ${window.complaints.length} complaints, ${window.pages} pages${final ? "" : " (newest day: fetched again next run)"}`,
  );
}

/** The newest (DESC) or oldest (ASC) complaint upstream. */
async function endRecord(client: UpstreamClient, order: "ASC" | "DESC"): Promise<Complaint | undefined> {
  const records = await fetchPage(client, { items_per_page: "1", sort_order: order });
  const first = records[0];
  if (!first) return undefined;
  const complaint = complaintFromRecord(first);
  if (typeof complaint === "string")
    throw new Error(`the upstream's ${order === "DESC" ? "newest" : "oldest"} complaint: ${complaint}`);
  return complaint;
}

/**
 * All complaints created on `day`, paged in ascending created order. When a window's next page
 * would lie past WINDOW_OFFSET_CAP, the window is narrowed to start at the last record's second
 * (records met twice are kept once, by id); only a single second holding more records than the
 * cap is paged deeper.
 */
async function fetchDay(
  client: UpstreamClient,
  day: number,
  onRejected: (reason: string) => void,
): Promise<{ complaints: Complaint[]; pages: number }> {
  const end = day * SECONDS_PER_DAY + SECONDS_PER_DAY - 1;
  const byId = new Map<string, Complaint>();
  let from = day * SECONDS_PER_DAY;
  let offset = 0;
  let pages = 0;
  for (;;) {
    const records = await fetchPage(client, {
      created_date_from: `"${formatDateTime(from)}"`,
      created_date_to: `"${formatDateTime(end)}"`,
      sort_order: "ASC",
      items_per_page: String(UPSTREAM_PAGE_SIZE),
      offset: String(offset),
    });
    pages++;
    let last: Complaint | undefined;
    for (const record of records) {
      const complaint = complaintFromRecord(record);
      if (typeof complaint === "string") {
        onRejected(complaint);
        continue;
      }
      if (complaint.createdAt < day * SECONDS_PER_DAY || complaint.createdAt > end) {
        onRejected(
          `${complaint.id}: created ${formatDateTime(complaint.createdAt)}, outside the window asked for`,
        );
        continue;
      }
      byId.set(complaint.id, complaint);
      last = complaint;
    }
    if (records.length < UPSTREAM_PAGE_SIZE) break;
    if (offset + UPSTREAM_PAGE_SIZE >= WINDOW_OFFSET_CAP && last && last.createdAt > from) {
      from = last.createdAt;
      offset = 0;
    } else {
      offset += UPSTREAM_PAGE_SIZE;
    }
  }
  return { complaints: [...byId.values()], pages };
}

async function fetchPage(
  client: UpstreamClient,
  parameters: Record<string, string>,
): Promise<UpstreamRecord[]> {
  const body = (await client.getJson(COMPLAINTS.path, parameters)) as { data?: unknown } | null;
  if (!body || !Array.isArray(body.data)) {
    throw new Error(`GET ${COMPLAINTS.path}: the answer has no 'data' array; is this an FTC-compatible API?`);
  }
  return body.data as UpstreamRecord[];
}

const TEXT_ATTRIBUTES = [
  ["company-phone-number", "companyPhoneNumber"],
  ["consumer-city", "city"],
  ["consumer-state", "state"],
  ["consumer-area-code", "areaCode"],
  ["subject", "subject"],
  ["recorded-message-or-robocall", "robocall"],
] as const;

/** A `dnc_complaint` record of the API into a complaint, or the reason it cannot be kept. */
export function complaintFromRecord(record: UpstreamRecord): Complaint | string {
  const id = typeof record.id === "string" ? record.id.toLowerCase() : undefined;
  if (id === undefined || !COMPLAINT_ID_PATTERN.test(id)) {
    return `id ${JSON.stringify(record.id)} is not 32 hexadecimal characters`;
  }
  const attributes = record.attributes ?? {};
  const created = attributes["created-date"];
  const createdAt = typeof created === "string" ? parseDateTime(created) : null;
  if (createdAt === null) return `${id}: created-date ${JSON.stringify(created)} is not YYYY-MM-DD HH:MM:SS`;
  const violation = attributes["violation-date"];
  const violationAt = typeof violation === "string" ? parseDateTime(violation) : null;
  if (violationAt === null)
    return `${id}: violation-date ${JSON.stringify(violation)} is not YYYY-MM-DD HH:MM:SS`;
  const complaint: Complaint = {
    id,
    createdAt,
    violationAt,
    companyPhoneNumber: "",
    city: "",
    state: "",
    areaCode: "",
    subject: "",
    robocall: "",
  };
  for (const [name, field] of TEXT_ATTRIBUTES) {
    const value = attributes[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" && typeof value !== "number") {
      return `${id}: ${name} is ${JSON.stringify(value)}, not text`;
    }
    complaint[field] = String(value);
  }
  return complaint;
}
