import { NOTICES } from "../domain/collections.js";
import type { UpstreamClient } from "./upstream-client.js";

/**
 * Mirroring of HSR early-termination notices from a JSON:API upstream (Drupal's, as served at
 * /v0/hsr-early-termination-notices, or another ftcapi). It writes through a `NoticeSink`; the
 * store's is `StoreNoticeSink` (notice-store-sink.ts).
 */

/** Drupal's JSON:API caps page[limit] at 50. */
export const NOTICE_PAGE_SIZE = 50;
/** As for complaints: past this offset the window is narrowed to start at the last record's time. */
export const NOTICE_OFFSET_CAP = 500;

/** A notice as the upstream publishes it (attributes kept as served). */
export interface MirroredNotice {
  id: string;
  title: string;
  transactionNumber: string;
  acquiredParty: string;
  acquiringParty: string;
  acquiredEntities: string[];
  /** `YYYY-MM-DD`. */
  date: string;
  /** ISO 8601 with offset, as served. */
  created: string;
  updated: string;
  tags: string[];
  /** The revision from `links.self`'s `resourceVersion=id:<n>`, when present. */
  revision: string | undefined;
}

/**
 * Where a notices mirror resumes: `createdFrom`, the created time of the last record written by
 * the walk in created order; `updatedFrom`, the update time from which changed notices are looked
 * for (the upstream's newest update when the copy began, then the last one written by the walk
 * in update order).
 */
export interface NoticeCursor {
  createdFrom?: string;
  updatedFrom?: string;
}

/**
 * The seam to the notices store. `write` stores a batch (a notice already stored is replaced when
 * its content, revision or `updated` differs, else left alone) and moves the upstream's cursor, in
 * one transaction.
 */
export interface NoticeSink {
  cursor(upstream: string): Promise<NoticeCursor | undefined>;
  write(
    upstream: string,
    notices: readonly MirroredNotice[],
    cursor: NoticeCursor,
  ): Promise<{ added: number; changed: number; existing: number }>;
}

export interface NoticeMirrorResult {
  pages: number;
  fetched: number;
  added: number;
  /** Notices already copied whose content, revision or update time the upstream changed since. */
  changed: number;
  existing: number;
  rejected: number;
}

interface JsonApiDocument {
  data?: unknown;
  links?: { next?: unknown };
}

type WalkField = "created" | "updated";

/**
 * Copies notices in two walks, each paged with `page[limit]=50` and `page[offset]` while the
 * answer has `links.next`, and narrowed past NOTICE_OFFSET_CAP to restart at the last record's
 * time (records met again are left alone by the sink):
 *
 * 1. New notices, in ascending created order from the cursor: `sort=created`,
 *    `filter[created][value]=<cursor>&filter[created][operator]=>=`.
 * 2. Changed notices, in ascending update order: `sort=updated` with the same filter on
 *    `updated`, from the update time saved by the last run. On a first run that time is the
 *    upstream's newest `updated` as the run starts (one request, `sort=-updated`), so the second
 *    walk of a first run only meets what changed while it ran.
 *
 * Each page is written with the cursor at its last record, so an interrupted run resumes there.
 * Not picked up: notices deleted upstream (they stay in the copy), and a change whose `updated`
 * the upstream sets earlier than an update the copy has already seen.
 */
export async function mirrorNotices(
  client: UpstreamClient,
  sink: NoticeSink,
  options: { since?: string; log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<NoticeMirrorResult> {
  const log = options.log ?? (() => {});
  const upstream = client.identity;
  const result: NoticeMirrorResult = {
    pages: 0,
    fetched: 0,
    added: 0,
    changed: 0,
    existing: 0,
    rejected: 0,
  };
  const saved = await sink.cursor(upstream);
  const cursor: NoticeCursor = { ...saved };
  if (cursor.createdFrom === undefined && options.since !== undefined) cursor.createdFrom = options.since;
  if (saved?.createdFrom !== undefined)
    log(`notices: resuming at created ${saved.createdFrom}, the last one written`);
  if (cursor.updatedFrom === undefined) {
    const newest = await fetchPage(client, { sort: "-updated", "page[limit]": "1" });
    const first = newest.data[0];
    const notice = first === undefined ? undefined : noticeFromRecord(first);
    if (typeof notice === "object") cursor.updatedFrom = notice.updated;
  }

  const walk: NoticeWalk = { client, sink, upstream, cursor, result, log, signal: options.signal };
  await walkNotices(walk, "created");
  if (cursor.updatedFrom !== undefined) await walkNotices(walk, "updated");
  log(
    `mirrored notices: ${result.pages} pages, ${result.fetched} fetched, ${result.added} added, ${result.changed} changed, ${result.existing} already present, ${result.rejected} skipped`,
  );
  return result;
}

/** What a walk works with; it moves `cursor` and adds to `result` as it writes. */
interface NoticeWalk {
  client: UpstreamClient;
  sink: NoticeSink;
  upstream: string;
  cursor: NoticeCursor;
  result: NoticeMirrorResult;
  log: (line: string) => void;
  signal: AbortSignal | undefined;
}

/**
 * One walk of `mirrorNotices`: the notices in ascending `field` order from the cursor's value,
 * each page written with the cursor at its last record, narrowed past NOTICE_OFFSET_CAP.
 */
async function walkNotices(walk: NoticeWalk, field: WalkField): Promise<void> {
  const { cursor, result } = walk;
  let from = field === "created" ? cursor.createdFrom : cursor.updatedFrom;
  let offset = 0;
  for (;;) {
    walk.signal?.throwIfAborted();
    const parameters: Record<string, string> = {
      sort: field,
      "page[limit]": String(NOTICE_PAGE_SIZE),
      "page[offset]": String(offset),
    };
    if (from !== undefined) {
      parameters[`filter[${field}][value]`] = from;
      parameters[`filter[${field}][operator]`] = ">=";
    }
    const body = await fetchPage(walk.client, parameters);
    result.pages++;
    const notices = keptNotices(body.data, walk);
    const last = notices.at(-1);
    if (last) {
      walk.signal?.throwIfAborted();
      if (field === "created") cursor.createdFrom = last.created;
      else cursor.updatedFrom = last.updated;
      const written = await walk.sink.write(walk.upstream, notices, { ...cursor });
      result.added += written.added;
      result.changed += written.changed;
      result.existing += written.existing;
      result.fetched += notices.length;
      walk.log(
        `notices: page ${result.pages}: ${notices.length} notices by ${field} through ${last[field]}, ${written.added} added, ${written.changed} changed`,
      );
    }
    const hasNext = typeof body.links?.next === "object" || typeof body.links?.next === "string";
    if (!hasNext || body.data.length < NOTICE_PAGE_SIZE) break;
    const lastValue = last === undefined ? undefined : last[field];
    if (offset + NOTICE_PAGE_SIZE >= NOTICE_OFFSET_CAP && lastValue !== undefined && lastValue !== from) {
      from = lastValue;
      offset = 0;
    } else {
      offset += NOTICE_PAGE_SIZE;
    }
  }
}

/** The records of a page that read as notices; the others are counted and logged as skipped. */
function keptNotices(records: unknown[], walk: NoticeWalk): MirroredNotice[] {
  const notices: MirroredNotice[] = [];
  for (const record of records) {
    const notice = noticeFromRecord(record);
    if (typeof notice === "string") {
      walk.result.rejected++;
      walk.log(`notice skipped: ${notice}`);
      continue;
    }
    notices.push(notice);
  }
  return notices;
}

async function fetchPage(
  client: UpstreamClient,
  parameters: Record<string, string>,
): Promise<{ data: unknown[]; links?: { next?: unknown } }> {
  const body = (await client.getJson(NOTICES.path, parameters)) as JsonApiDocument | null;
  if (!body || !Array.isArray(body.data)) {
    throw new Error(`GET ${NOTICES.path}: the answer has no 'data' array; is this a JSON:API upstream?`);
  }
  return body as { data: unknown[]; links?: { next?: unknown } };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)$/;

/** An `early_termination_notice` resource into a notice, or the reason it cannot be kept. */
export function noticeFromRecord(record: unknown): MirroredNotice | string {
  const resource = record as {
    type?: unknown;
    id?: unknown;
    attributes?: Record<string, unknown>;
    links?: { self?: { href?: unknown } | string };
  };
  if (resource?.type !== "early_termination_notice")
    return `type ${JSON.stringify(resource?.type)} is not early_termination_notice`;
  if (typeof resource.id !== "string" || !UUID.test(resource.id))
    return `id ${JSON.stringify(resource.id)} is not a UUID`;
  const attributes = resource.attributes ?? {};
  const text = (name: string) => {
    const value = attributes[name];
    return typeof value === "string" ? value : value === null || value === undefined ? "" : String(value);
  };
  const created = text("created");
  if (!ISO_WITH_OFFSET.test(created))
    return `${resource.id}: created '${created}' is not an ISO 8601 time with offset`;
  const date = text("date");
  if (date !== "" && !/^\d{4}-\d{2}-\d{2}$/.test(date))
    return `${resource.id}: date '${date}' is not YYYY-MM-DD`;
  const entities = attributes["acquired-entities"];
  const tags = attributes.tags;
  const self = typeof resource.links?.self === "string" ? resource.links.self : resource.links?.self?.href;
  const revision = typeof self === "string" ? /resourceVersion=id(?:%3A|:)(\d+)/i.exec(self)?.[1] : undefined;
  return {
    id: resource.id.toLowerCase(),
    title: text("title"),
    transactionNumber: text("transaction-number"),
    acquiredParty: text("acquired-party"),
    acquiringParty: text("acquiring-party"),
    acquiredEntities: Array.isArray(entities)
      ? entities.map(String)
      : typeof entities === "string"
        ? [entities]
        : [],
    date,
    created,
    updated: text("updated") || created,
    tags: Array.isArray(tags) ? tags.map(String) : typeof tags === "string" && tags !== "" ? [tags] : [],
    revision,
  };
}
