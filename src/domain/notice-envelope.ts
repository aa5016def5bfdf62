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

/** What `JSON.stringify` escapes in a string: controls, `"`, `\`, and surrogates when lone. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `JSON.stringify(text)`, at half its cost for the common text that needs no escape. */
function jsonString(text: string | null): string {
  if (text === null) return "null";
  return ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** `JSON.stringify(text)` without its quotes: what the text is inside a JSON string. */
export function jsonEscaped(text: string): string {
  return ESCAPED.test(text) ? JSON.stringify(text).slice(1, -1) : text;
}

function jsonStrings(texts: readonly string[]): string {
  let json = "[";
  for (let index = 0; index < texts.length; index++)
    json += `${index === 0 ? "" : ","}${jsonString(texts[index]!)}`;
  return `${json}]`;
}

/**
 * The constant text of a notice's resource object, around its pieces (`noticeResourcePieces`) and
 * the collection URL (JSON-escaped: `jsonEscaped`):
 * `start id beforeUrl URL "/" id version attributes beforeRelationshipUrl URL "/" id relationship version end`.
 */
export const RESOURCE_TEXT = {
  start: `{"type":"${NOTICE_TYPE}","id":"`,
  beforeUrl: `","links":{"self":{"href":"`,
  beforeRelationshipUrl: `,"relationships":{"node_type":{"data":null,"links":{"self":{"href":"`,
  relationship: "/relationships/node_type",
  end: `"}}}}}`,
  /** What a version piece holds before the revision (`id:` percent-encoded). */
  version: "?resourceVersion=id%3A",
  /** What an attributes piece holds before the attributes' object. */
  attributes: `"}},"attributes":`,
} as const;

/**
 * What a notice's resource object holds of the notice: its id (JSON-escaped), its version as the
 * links' query (`?resourceVersion=id%3A<revision>`), and its attributes member (`"}},"attributes":{...}`,
 * from the end of the self link on). The URL ends in ASCII (the collection's path) and what follows
 * it in a link is ASCII but for the id, so escaping each apart escapes what `JSON.stringify` would.
 */
export function noticeResourcePieces(notice: Notice): { id: string; version: string; attributes: string } {
  return {
    id: jsonEscaped(notice.id),
    version: `${RESOURCE_TEXT.version}${notice.revision}`,
    attributes:
      `${RESOURCE_TEXT.attributes}{"title":${jsonString(notice.title)}` +
      `,"created":"${formatTimestamp(notice.createdAt)}","updated":"${formatTimestamp(notice.updatedAt)}"` +
      `,"acquired-party":${jsonString(notice.acquiredParty)},"acquiring-party":${jsonString(notice.acquiringParty)}` +
      `,"date":${jsonString(notice.date)},"acquired-entities":${jsonStrings(notice.acquiredEntities)}` +
      `,"transaction-number":${jsonString(notice.transactionNumber)},"tags":${jsonStrings(notice.tags)}}`,
  };
}

/**
 * Exactly `JSON.stringify(noticeResource(notice, collectionUrl, undefined))`, written directly: a
 * page of 50 notices written through objects and `JSON.stringify` cost the notice thread some 350 µs.
 */
function resourceJson(notice: Notice, collectionUrl: string): string {
  const { id, version, attributes } = noticeResourcePieces(notice);
  const url = jsonEscaped(collectionUrl);
  const text = RESOURCE_TEXT;
  return (
    `${text.start}${id}${text.beforeUrl}${url}/${id}${version}${attributes}` +
    `${text.beforeRelationshipUrl}${url}/${id}${text.relationship}${version}${text.end}`
  );
}

/**
 * One notice's resource object as JSON text, exactly `JSON.stringify(noticeResource(...))` (a page's
 * `data` item; a line of an NDJSON export).
 */
export function noticeResourceText(
  notice: Notice,
  collectionUrl: string,
  fields: NoticeQuery["fields"],
): string {
  if (fields !== undefined) return JSON.stringify(noticeResource(notice, collectionUrl, fields));
  return resourceJson(notice, collectionUrl);
}

/**
 * What a notices document without a fieldset holds before its first resource object and after
 * its last: `head + resources joined by commas + tail` is `JSON.stringify(noticeDocument(...))`.
 */
export function noticeDocumentEnds(
  total: number,
  options: Parameters<typeof noticeDocument>[2],
): [head: string, tail: string] {
  const { links, meta, jsonapi } = noticeDocument([], total, options);
  return [
    `{"jsonapi":${JSON.stringify(jsonapi)},"data":[`,
    `],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`,
  ];
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
