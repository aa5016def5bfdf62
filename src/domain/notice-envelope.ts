import { JSONAPI_MEMBER } from "./error-body.js";
import { NOTICE_TYPE, type Notice, type NoticeAttributes, noticeAttributes } from "./notice.js";
import type { NoticeQuery } from "./notice-query.js";

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

/** Stands for the collection URL in a resource's kept text; JSON writes it as `\u0000...`. */
const URL_MARK = "\u0000collection\u0000";
const ESCAPED_URL_MARK = JSON.stringify(URL_MARK).slice(1, -1);

/**
 * Each notice's resource text (all fields) for the last collection URL it was written with, and
 * where that URL stands in it, kept while the notice object lives. One string a notice: parts split
 * off a longer text would each keep that whole text alive (V8 slices share their parent), doubling
 * what the 28,000 notices keep.
 */
const RESOURCE_TEXTS = new WeakMap<Notice, { text: string; url: string; at: number[] }>();

/** `JSON.stringify(noticeResource(notice, collectionUrl, undefined))`, from text kept per notice. */
function resourceText(notice: Notice, escapedCollectionUrl: string): string {
  let kept = RESOURCE_TEXTS.get(notice);
  if (kept === undefined) {
    const parts = JSON.stringify(noticeResource(notice, URL_MARK, undefined)).split(ESCAPED_URL_MARK);
    kept = keptText(parts, escapedCollectionUrl);
    RESOURCE_TEXTS.set(notice, kept);
  } else if (kept.url !== escapedCollectionUrl) {
    const { text, url, at } = kept;
    const parts = at.map((offset, index) =>
      text.slice(index === 0 ? 0 : at[index - 1]! + url.length, offset),
    );
    parts.push(text.slice(at.length === 0 ? 0 : at.at(-1)! + url.length));
    kept = keptText(parts, escapedCollectionUrl);
    RESOURCE_TEXTS.set(notice, kept);
  }
  return kept.text;
}

/** The text of `parts` joined by `url`, and where each `url` starts in it. */
function keptText(parts: readonly string[], url: string): { text: string; url: string; at: number[] } {
  const at: number[] = [];
  let offset = 0;
  for (let index = 0; index < parts.length - 1; index++) {
    offset += parts[index]!.length;
    at.push(offset);
    offset += url.length;
  }
  return { text: parts.join(url), url, at };
}

/**
 * One notice's resource object as JSON text, exactly `JSON.stringify(noticeResource(...))` (a page's
 * `data` item; a line of an NDJSON export), from the text kept per notice when there is no fieldset.
 */
export function noticeResourceText(
  notice: Notice,
  collectionUrl: string,
  fields: NoticeQuery["fields"],
): string {
  if (fields !== undefined) return JSON.stringify(noticeResource(notice, collectionUrl, fields));
  return resourceText(notice, JSON.stringify(collectionUrl).slice(1, -1));
}

/**
 * The notices document as JSON text: exactly `JSON.stringify(noticeDocument(...))`, but without a
 * fieldset each record's text is written once per notice object and reused, since a page of 50
 * records is most of a list answer's cost.
 */
export function noticeDocumentText(
  notices: readonly Notice[],
  total: number,
  options: Parameters<typeof noticeDocument>[2],
): string {
  if (options.query.fields !== undefined) return JSON.stringify(noticeDocument(notices, total, options));
  const { links, meta, jsonapi } = noticeDocument([], total, options);
  const escapedUrl = JSON.stringify(options.collectionUrl).slice(1, -1);
  const data = notices.map((notice) => resourceText(notice, escapedUrl)).join(",");
  return `{"jsonapi":${JSON.stringify(jsonapi)},"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
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
