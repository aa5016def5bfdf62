import { JSONAPI_MEMBER } from "./error-body.js";
import { NOTICE_TYPE, type Notice, type NoticeAttributes, noticeAttributes } from "./notice.js";
import type { NoticeQuery } from "./notice-query.js";
import { formatTimestamp } from "./time.js";

interface Href {
  href: string;
}

export interface NoticeResource {
  type: typeof NOTICE_TYPE;
  id: string;
  links: { self: Href };
  attributes: Partial<NoticeAttributes>;
  relationships?: { node_type: { data: null; links: { self: Href } } };
}

/** The notices document, as Drupal's JSON:API module writes it. */
export interface NoticeDocument {
  jsonapi: typeof JSONAPI_MEMBER;
  data: NoticeResource[];
  meta: { count: number };
  links: { self: Href; next?: Href; prev?: Href; first?: Href; last?: Href };
}

/** Paging parameters, which pagination links replace. */
const PAGING = new Set(["page[offset]", "page[limit]", "offset", "items_per_page"]);

/**
 * A query string from decoded pairs, every name and value percent-encoded (brackets included), as
 * the live service writes its links.
 */
export function encodeQuery(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
}

/**
 * The pairs of a query string, decoded as a URL's query is (`URLSearchParams`), in order:
 * `decodeQuery(encodeQuery(pairs))` equals `pairs`.
 */
export function decodeQuery(text: string): Array<[string, string]> {
  return [...new URLSearchParams(text)];
}

function urlOf(path: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.length === 0 ? path : `${path}?${encodeQuery(pairs)}`;
}

/** One notice as a JSON:API resource object; `collectionUrl` is absolute, without a trailing slash. */
export function noticeResource(
  notice: Notice,
  collectionUrl: string,
  fields: NoticeQuery["fields"],
): NoticeResource {
  const version = `?resourceVersion=${encodeURIComponent(`id:${notice.revision}`)}`;
  const recordUrl = `${collectionUrl}/${notice.id}`;
  const all = noticeAttributes(notice);
  let attributes: Partial<NoticeAttributes> = all;
  if (fields !== undefined) {
    attributes = {};
    for (const name of Object.keys(all) as Array<keyof NoticeAttributes>) {
      if (fields.includes(name)) (attributes as Record<string, unknown>)[name] = all[name];
    }
  }
  const resource: NoticeResource = {
    type: NOTICE_TYPE,
    id: notice.id,
    links: { self: { href: `${recordUrl}${version}` } },
    attributes,
  };
  if (fields === undefined || fields.includes("node_type")) {
    resource.relationships = {
      node_type: {
        data: null,
        links: { self: { href: `${recordUrl}/relationships/node_type${version}` } },
      },
    };
  }
  return resource;
}

/**
 * Each notice's resource object as UTF-8 bytes (all fields), for the last collection URL it was
 * written with, kept while the notice object lives. Bytes, not a string: the 28,000 notices' texts
 * are some 30 MB, which as strings the event loop's collector would mark on every full collection;
 * as bytes they sit outside the JS heap (in `Buffer`'s shared slabs), and a page is a concatenation.
 */
const RESOURCE_BYTES = new WeakMap<Notice, { bytes: Buffer; url: string }>();

const COMMA = Buffer.from(",");

/** `JSON.stringify(noticeResource(notice, collectionUrl, undefined))` as UTF-8, kept per notice. */
function resourceBytes(notice: Notice, collectionUrl: string): Buffer {
  let kept = RESOURCE_BYTES.get(notice);
  if (kept === undefined || kept.url !== collectionUrl) {
    kept = { bytes: Buffer.from(resourceJson(notice, collectionUrl)), url: collectionUrl };
    RESOURCE_BYTES.set(notice, kept);
  }
  return kept.bytes;
}

/** What `JSON.stringify` escapes in a string: controls, `"`, `\`, and surrogates when lone. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `JSON.stringify(text)`, at half its cost for the common text that needs no escape. */
function jsonString(text: string | null): string {
  if (text === null) return "null";
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

function jsonStrings(texts: readonly string[]): string {
  let json = "[";
  for (let index = 0; index < texts.length; index++)
    json += `${index === 0 ? "" : ","}${jsonString(texts[index]!)}`;
  return `${json}]`;
}

/**
 * Exactly `JSON.stringify(noticeResource(notice, collectionUrl, undefined))`, written directly: a
 * page of 50 notices written through objects and `JSON.stringify` cost the notice thread some 350 µs.
 */
function resourceJson(notice: Notice, collectionUrl: string): string {
  const version = `?resourceVersion=${encodeURIComponent(`id:${notice.revision}`)}`;
  const recordUrl = `${collectionUrl}/${notice.id}`;
  return (
    `{"type":"${NOTICE_TYPE}","id":${jsonString(notice.id)},"links":{"self":{"href":${jsonString(`${recordUrl}${version}`)}}}` +
    `,"attributes":{"title":${jsonString(notice.title)},"created":"${formatTimestamp(notice.createdAt)}"` +
    `,"updated":"${formatTimestamp(notice.updatedAt)}","acquired-party":${jsonString(notice.acquiredParty)}` +
    `,"acquiring-party":${jsonString(notice.acquiringParty)},"date":${jsonString(notice.date)}` +
    `,"acquired-entities":${jsonStrings(notice.acquiredEntities)}` +
    `,"transaction-number":${jsonString(notice.transactionNumber)},"tags":${jsonStrings(notice.tags)}}` +
    `,"relationships":{"node_type":{"data":null,"links":{"self":{"href":${jsonString(`${recordUrl}/relationships/node_type${version}`)}}}}}}`
  );
}

/**
 * One notice's resource object as JSON text, exactly `JSON.stringify(noticeResource(...))` (a page's
 * `data` item; a line of an NDJSON export), from the bytes kept per notice when there is no fieldset.
 */
export function noticeResourceText(
  notice: Notice,
  collectionUrl: string,
  fields: NoticeQuery["fields"],
): string {
  if (fields !== undefined) return JSON.stringify(noticeResource(notice, collectionUrl, fields));
  return resourceBytes(notice, collectionUrl).toString();
}

/**
 * The notices document as UTF-8 bytes: exactly `JSON.stringify(noticeDocument(...))`. With
 * `keepResources` (the default) and no fieldset, each record's bytes are written once per notice
 * object and reused, since a page of 50 records is most of a list answer's cost; without, nothing
 * is kept (where memory counts for more than the time to write a page).
 */
export function noticeDocumentBytes(
  notices: readonly Notice[],
  total: number,
  options: Parameters<typeof noticeDocument>[2],
  keepResources = true,
): Buffer {
  if (options.query.fields !== undefined)
    return Buffer.from(JSON.stringify(noticeDocument(notices, total, options)));
  const { links, meta, jsonapi } = noticeDocument([], total, options);
  const head = `{"jsonapi":${JSON.stringify(jsonapi)},"data":[`;
  const tail = `],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  if (!keepResources) {
    let text = head;
    for (let index = 0; index < notices.length; index++)
      text += `${index === 0 ? "" : ","}${resourceJson(notices[index]!, options.collectionUrl)}`;
    return Buffer.from(`${text}${tail}`);
  }
  const parts: Buffer[] = [Buffer.from(head)];
  notices.forEach((notice, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(resourceBytes(notice, options.collectionUrl));
  });
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}

/**
 * Builds a notices document. `pairs` are the request's decoded query parameters without the key;
 * `path` is the absolute URL of the requested resource without a query. Pagination links appear
 * only when they lead somewhere: `next` and `last` while records remain after this page, `prev`
 * and `first` past the first page.
 */
export function noticeDocument(
  notices: readonly Notice[],
  total: number,
  options: {
    collectionUrl: string;
    path: string;
    pairs: ReadonlyArray<readonly [string, string]>;
    query: Pick<NoticeQuery, "offset" | "limit" | "fields">;
    paged: boolean;
  },
): NoticeDocument {
  const { offset, limit } = options.query;
  const links: NoticeDocument["links"] = { self: { href: urlOf(options.path, options.pairs) } };
  if (options.paged) {
    // The kept parameters are encoded once for the four links (a filter may be 10 KB of them).
    const kept = encodeQuery(options.pairs.filter(([name]) => !PAGING.has(name)));
    const prefix = `${options.path}?${kept === "" ? "" : `${kept}&`}`;
    const at = (start: number): Href => ({
      href: `${prefix}${encodeQuery([
        ["page[offset]", String(start)],
        ["page[limit]", String(limit)],
      ])}`,
    });
    if (offset + limit < total) {
      links.next = at(offset + limit);
      links.last = at(Math.max(0, Math.ceil(total / limit) - 1) * limit);
    }
    if (offset > 0) {
      links.prev = at(
        Math.max(0, Math.min(offset - limit, Math.max(0, Math.ceil(total / limit) - 1) * limit)),
      );
      links.first = at(0);
    }
  }
  return {
    jsonapi: JSONAPI_MEMBER,
    data: notices.map((notice) => noticeResource(notice, options.collectionUrl, options.query.fields)),
    meta: { count: total },
    links,
  };
}
