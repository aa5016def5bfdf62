import type { UpstreamClient } from "./upstream-client.js";

/**
 * Mirroring of HSR early-termination notices from a JSON:API upstream (Drupal's, as served at
 * /v0/hsr-early-termination-notices). Not wired to a command yet: it writes through a `NoticeSink`,
 * which the notices store implements once it exists; until then `ftcapi mirror --collection
 * notices` refuses with "notices mirroring needs the notices store".
 */

export const NOTICES_PATH = "/v0/hsr-early-termination-notices";
export const NOTICES_COLLECTION = "hsr-early-termination-notices";
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
  /** The revision from `links.self`'s `resourceVersion=id:<n>`, when present. */
  revision: string | undefined;
}

/** Where a notices mirror resumes: the created time of the last record written. */
export interface NoticeCursor {
  createdFrom: string;
}

/**
 * The seam to the notices store. `write` stores a batch (a notice already stored is replaced when
 * its `updated` differs, else left alone) and moves the upstream's cursor, in one transaction.
 */
export interface NoticeSink {
  cursor(upstream: string): Promise<NoticeCursor | undefined>;
  write(
    upstream: string,
    notices: readonly MirroredNotice[],
    cursor: NoticeCursor,
  ): Promise<{ added: number; existing: number }>;
}

export interface NoticeMirrorResult {
  pages: number;
  fetched: number;
  added: number;
  existing: number;
  rejected: number;
}

interface JsonApiDocument {
  data?: unknown;
  links?: { next?: unknown };
}

/**
 * Copies notices in ascending created order: `sort=created`,
 * `filter[created][value]=<cursor>&filter[created][operator]=>=`, `page[limit]=50`, stepping
 * `page[offset]` while the answer has `links.next`. Past NOTICE_OFFSET_CAP the window restarts at
 * the last record's created time (records met again are deduplicated by the sink). Each page is
 * written with the cursor at its last record, so an interrupted run resumes there.
 */
export async function mirrorNotices(
  client: UpstreamClient,
  sink: NoticeSink,
  options: { since?: string; log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<NoticeMirrorResult> {
  const log = options.log ?? (() => {});
  const upstream = client.identity;
  const result: NoticeMirrorResult = { pages: 0, fetched: 0, added: 0, existing: 0, rejected: 0 };
  let from = (await sink.cursor(upstream))?.createdFrom ?? options.since;
  let offset = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const parameters: Record<string, string> = {
      sort: "created",
      "page[limit]": String(NOTICE_PAGE_SIZE),
      "page[offset]": String(offset),
    };
    if (from !== undefined) {
      parameters["filter[created][value]"] = from;
      parameters["filter[created][operator]"] = ">=";
    }
    const body = (await client.getJson(NOTICES_PATH, parameters)) as JsonApiDocument | null;
    if (!body || !Array.isArray(body.data)) {
      throw new Error(`GET ${NOTICES_PATH}: the answer has no 'data' array; is this a JSON:API upstream?`);
    }
    result.pages++;
    const notices: MirroredNotice[] = [];
    for (const record of body.data) {
      const notice = noticeFromRecord(record);
      if (typeof notice === "string") {
        result.rejected++;
        log(`notice skipped: ${notice}`);
        continue;
      }
      notices.push(notice);
    }
    const last = notices.at(-1);
    if (last) {
      const written = await sink.write(upstream, notices, { createdFrom: last.created });
      result.added += written.added;
      result.existing += written.existing;
      result.fetched += notices.length;
    }
    const hasNext = typeof body.links?.next === "object" || typeof body.links?.next === "string";
    if (!hasNext || body.data.length < NOTICE_PAGE_SIZE) break;
    if (offset + NOTICE_PAGE_SIZE >= NOTICE_OFFSET_CAP && last && last.created !== from) {
      from = last.created;
      offset = 0;
    } else {
      offset += NOTICE_PAGE_SIZE;
    }
  }
  log(
    `mirrored notices: ${result.pages} pages, ${result.fetched} fetched, ${result.added} added, ${result.existing} already present, ${result.rejected} skipped`,
  );
  return result;
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
    revision,
  };
}
