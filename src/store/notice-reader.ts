import type { Collection } from "../domain/collections.js";
import type { CountResult } from "../domain/count-options.js";
import type { Notice } from "../domain/notice.js";
import type { NoticeCountQuery } from "../domain/notice-count-query.js";
import type { NoticeQuery } from "../domain/notice-query.js";
import type { CollectionVersion } from "./collection-version.js";

/** A page of notices and the exact number the query matches. */
export interface NoticePage {
  total: number;
  records: Notice[];
}

/**
 * A list request as a reader takes it: its query as the client sent it, a slice of the request's
 * own URL. A request holds it until its page is written, waiting for its turn or for the notice
 * thread, so it is not decoded (a 64-condition filter is some 250 pairs) nor copied (it may be
 * 16 KB) on the event loop: what outlives the loop's young generation is promoted into its old
 * generation, whose collections pause the loop.
 */
export interface NoticeListRequest {
  /**
   * The request's query, undecoded, `api_key` included (the reader leaves the key out of all it
   * writes): its parameters to parse (`parseNoticeQuery`), unless `parameters` is given, and what
   * the document's links repeat.
   */
  readonly rawQuery: string;
  /** The parameters to parse, encoded (`encodeQuery`), when they are not the query's own. */
  readonly parameters?: string;
  /** Absolute URL of the collection, without a trailing slash. */
  readonly collectionUrl: string;
  /** Absolute URL of the requested resource, without a query. */
  readonly path: string;
}

/**
 * What the routes and the freshness features read of the notices. Two implementations: the
 * `NoticeStore` itself, which holds the collection in memory on the event loop, and `NoticeThread`,
 * which holds it on a worker thread of its own, so that filtering and writing pages never hold the
 * loop that answers every other request.
 */
export interface NoticeReader {
  readonly collection: Collection;
  /** The notices' change detection, shared with this process's other caches of them. */
  readonly version: CollectionVersion;
  /**
   * A list answer's document as UTF-8 bytes (`JSON.stringify(noticeDocument(...))`, paged), in
   * memory of its own (offset 0; its `ArrayBuffer` may be longer), for the query the request's
   * parameters give (`parseNoticeQuery`, whose 400 it throws), read from the snapshot of
   * the collection's version `atVersion` or a newer one.
   */
  listBytes(request: NoticeListRequest, atVersion: number): Promise<Buffer>;
  /**
   * Gives the memory of a page `listBytes` answered back once it is sent and kept nowhere, for
   * later pages: `body` (and every view of its memory) must not be read after.
   */
  release(body: Buffer): void;
  /** Every notice the query matches, in its order (offset and limit ignored). */
  export(query: NoticeQuery): Promise<NoticePage>;
  /** Notices matching the query's filter counted by year or month of their date. */
  countGroups(query: NoticeCountQuery): Promise<CountResult>;
  /** The notice with this id (ids are stored lowered), or undefined. */
  findById(id: string): Promise<Notice | undefined>;
  /** Reads the current snapshot now, so that the first request does not wait for it. */
  warm(): Promise<void>;
  /** Every notice, exactly (`/v0/status`). */
  recordCount(): Promise<number>;
  /** The newest notice's created time as the API writes it, or undefined when there are none. */
  newestCreated(): Promise<string | undefined>;
  /** The newest notice's created time (seconds), or undefined when there is none. */
  newestCreatedAt(): Promise<number | undefined>;
}
