import { hash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CollectionVersion } from "../store/collection-version.js";
import { AskedKeys, VersionedLru } from "../store/collection-version.js";

/** A serialised answer (text, or text already encoded as UTF-8) and its validators. */
export interface CachedAnswer {
  body: string | Buffer;
  etag: string;
  /**
   * When the collection last changed as of the version the answer was made from (seconds): its
   * `Last-Modified`. Undefined before the collection's first change (no `Last-Modified`).
   */
  updatedAtSeconds?: number | undefined;
  /** The collection's version the answer was made from. */
  version: number;
  /** Whether the cache keeps the answer (from a request's second ask on). */
  kept: boolean;
  /**
   * Whether the cache has given this answer again (a request's third ask on, while kept): the
   * kept-answer lane remembers only such answers, so that requests asked twice and never again, as
   * a client walking pages asks them, cost it nothing.
   */
  repeated: boolean;
}

/** What an answer cache has done and holds, for the metrics. */
export interface AnswerCacheFigures {
  /** Answers served from memory since the process started. */
  readonly hits: number;
  /** Answers produced because memory had none, since the process started. */
  readonly misses: number;
  /** Answers kept now. */
  readonly entries: number;
  /** Characters of the bodies kept now, and at most. */
  readonly sizeCharacters: number;
  readonly limitCharacters: number;
}

/** Told of every answer cache a route makes, so that the metrics can read its figures. */
export type AnswerCacheWatcher = (cache: AnswerCache) => void;

/**
 * Characters each answer cache of a process keeps at most, keys (digests) included: 9.5 M in all
 * (about 9.5 MB, answers being mostly ASCII), so that with the notices in memory and V8's heap
 * limit a process stays within its memory budget under any mix of requests (docs/deployment.md,
 * Operations). About 210 complaint pages: the popular pages a cache is for, not the distinct ones
 * clients walk (under the distinct workload at 20 million complaints the complaint cache was full,
 * its 6 M characters until 2026-12-06, and answered none of 43,754 lookups); and
 * about 400 single complaints and 170 single notices.
 */
export const ANSWER_CACHE_CHARACTERS = {
  complaints: 4 * 1024 * 1024,
  complaintRecords: 256 * 1024,
  complaintCounts: 2 * 1024 * 1024,
  notices: 2 * 1024 * 1024,
  noticeRecords: 256 * 1024,
  noticeCounts: 1024 * 1024,
} as const;

/**
 * How a cache's answers are tagged: by the collection's version and the request (`version`: a
 * page changes with the data), or by a digest of the answer itself (`content`: a stored record
 * never changes, so its tag outlives versions).
 */
export type AnswerTags = "version" | "content";

/**
 * Keys an answer cache remembers as asked once (`AskedKeys`), per generation: twice the answers it
 * holds, and at least this. An answer asked for again after more distinct requests than the cache
 * holds answers would mostly have been pushed out before a third ask: under distinct requests a
 * window of 4,096 kept answers (about a third of the notice pages, 33 KB each) that no request asked
 * for again (0 hits in 49,247 lookups), each an allocation of the event loop freed only by a full
 * collection; with this window the distinct notice workload went from 4,300-4,900 to 5,980-6,460
 * requests a second, at no cost to complaints (docs/performance.md, 2026-12-07, evening).
 */
const ASKED_KEYS_AT_LEAST = 64;

/**
 * Keeps recent answers of a read-only collection in memory with their ETag, so that a repeated
 * request costs a lookup and a conditional one a 304. Answers belong to the collection's version
 * (`CollectionVersion`, shared with the store's own caches and Last-Modified): a new version drops
 * them all. The cache sits behind the gateway: keys and limits are checked on every request,
 * cached or not.
 */
export class AnswerCache {
  private readonly answers: VersionedLru<CachedAnswer>;
  private hits = 0;
  private misses = 0;
  /**
   * Digests of requests asked for recently: an answer is kept from its second request on, when
   * that comes soon enough for the cache to hold it until a third (`ASKED_KEYS_AT_LEAST`).
   */
  private readonly asked = new AskedKeys(() => Math.max(ASKED_KEYS_AT_LEAST, 2 * this.answers.size));

  /** `maxCharacters`: bodies kept, in characters summed; the least recently used go first. */
  constructor(
    readonly version: CollectionVersion,
    private readonly maxCharacters: number,
    private readonly tags: AnswerTags = "version",
  ) {
    this.answers = new VersionedLru(maxCharacters);
  }

  /**
   * The answer for `key` (the request: the same key, the same answer), from memory or from
   * `produce` (whose result may then be kept), which is given the collection's version the answer
   * belongs to.
   *
   * Answers are kept and tagged by a digest of the key, taken before anything is awaited: a key may
   * be as long as a request's headers allow (16 KB), and a request waiting for its page would
   * otherwise hold it long enough for it to be promoted into the old generation, whose collections
   * pause the event loop. The digest is 96 bits of MD5, as the entity tag already trusts; a
   * collision, which no client could aim at another's request, would only mix two answers' tags.
   */
  async answer(key: string, produce: (version: number) => Promise<string | Buffer>): Promise<CachedAnswer> {
    const digest = hash("md5", key, "base64url").slice(0, 16);
    const { version, updatedAtSeconds } = await this.version.current();
    const known = this.answers.get(digest, version);
    if (known) {
      this.hits++;
      known.repeated = true;
      return known;
    }
    this.misses++;
    // The answer to a request is fixed by the collection's version, so the tag names the version
    // (with its update time) and the request: every worker and replica on the database gives the
    // same answer the same tag, without hashing the whole body on every miss.
    const body = await produce(version);
    const etag =
      this.tags === "content"
        ? `"${hash("md5", body, "base64url")}"`
        : `"${version}.${updatedAtSeconds ?? 0}.${digest}"`;
    const answer = { body, etag, updatedAtSeconds, version, kept: false, repeated: false };
    if (body.length <= this.maxCharacters / 8 && this.asked.askedBefore(digest)) {
      answer.kept = true;
      this.answers.set(digest, answer, version, body.length);
    }
    return answer;
  }

  /** Counts an answer of this cache served from memory elsewhere (`KeptAnswerLane`). */
  noteHit(): void {
    this.hits++;
  }

  /** Lookups so far and what is kept now. */
  figures(): AnswerCacheFigures {
    return {
      hits: this.hits,
      misses: this.misses,
      entries: this.answers.size,
      sizeCharacters: this.answers.keptWeight,
      limitCharacters: this.maxCharacters,
    };
  }
}

/** Told of each answer sent from an answer cache, before its own headers are set (`KeptAnswerLane`). */
export interface AnswerKeeper {
  /**
   * `tagged`: the framework sends the answer with its `ETag` and `Cache-Control: no-cache`, and
   * 304 to a matching If-None-Match (`sendAnswer`); false for an answer sent without them (a
   * notice record), which the keeper replays without them and answers 200 whatever If-None-Match says.
   */
  keep(
    req: FastifyRequest,
    reply: FastifyReply,
    cache: AnswerCache,
    answer: CachedAnswer,
    contentType: string,
    tagged: boolean,
  ): void;
}

/** True when an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === bare);
}

/**
 * Sends a kept answer with its ETag, `Cache-Control: no-cache` (clients revalidate) and
 * `Last-Modified`, or 304 with no body when the request's If-None-Match names the tag, or else its
 * If-Modified-Since is not older than the answer's data (`notModifiedSince`). With `tagged: false`
 * (a notice record, sent without an ETag as spec 4.2 shows it) neither the tag nor
 * `Cache-Control` is sent and If-None-Match is not looked at. `release` is given a body of bytes
 * that the cache did not keep once the response is sent (or the 304 is): its memory may then be
 * used for other answers (`NoticeReader.release`).
 */
export function sendAnswer(
  req: FastifyRequest,
  reply: FastifyReply,
  answer: CachedAnswer,
  contentType: string,
  kept?: {
    lane: AnswerKeeper | undefined;
    cache: AnswerCache;
    release?: (body: Buffer) => void;
    tagged?: boolean;
  },
): FastifyReply {
  const release = kept?.release;
  const tagged = kept?.tagged ?? true;
  const body = answer.body;
  if (release !== undefined && !answer.kept && typeof body !== "string")
    reply.raw.once("finish", () => release(body));
  kept?.lane?.keep(req, reply, kept.cache, answer, contentType, tagged);
  if (tagged) {
    reply.header("ETag", answer.etag);
    reply.header("Cache-Control", "no-cache");
    if (matchesIfNoneMatch(req.headers["if-none-match"], answer.etag)) return reply.code(304).send();
  }
  reply.type(contentType);
  if (notModifiedSince(req, reply, answer.updatedAtSeconds)) return reply.code(304).send();
  return reply.send(answer.body);
}

/**
 * `Last-Modified` texts written, by time: every answer of a collection's version has the same, and
 * the collections' times alternate from request to request.
 */
const lastModifiedTexts = new Map<number, string>();

/** `Last-Modified` for a collection that last changed at `updatedAtSeconds`. */
export function lastModifiedOf(updatedAtSeconds: number): string {
  let text = lastModifiedTexts.get(updatedAtSeconds);
  if (text === undefined) {
    if (lastModifiedTexts.size >= 16) lastModifiedTexts.clear();
    text = new Date(updatedAtSeconds * 1000).toUTCString();
    lastModifiedTexts.set(updatedAtSeconds, text);
  }
  return text;
}

/**
 * Sets `Last-Modified` to `updatedAtSeconds` (when the collection last changed, as of the version
 * the answer is made from) and says whether the request's If-Modified-Since is not older, so that
 * the answer should be a 304. Nothing is set before a collection's first change (undefined).
 */
export function notModifiedSince(
  req: FastifyRequest,
  reply: FastifyReply,
  updatedAtSeconds: number | undefined,
): boolean {
  if (updatedAtSeconds === undefined) return false;
  reply.header("Last-Modified", lastModifiedOf(updatedAtSeconds));
  const since = req.headers["if-modified-since"];
  if (since === undefined) return false;
  const sinceMillis = Date.parse(since);
  return !Number.isNaN(sinceMillis) && updatedAtSeconds * 1000 <= sinceMillis;
}
