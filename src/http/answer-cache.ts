import { hash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CollectionVersion } from "../store/collection-version.js";
import { VersionedLru } from "../store/versioned-lru.js";

/** A serialised answer and its entity tag. */
export interface CachedAnswer {
  body: string;
  etag: string;
}

/**
 * Keeps recent answers of a read-only collection in memory with their ETag, so that a repeated
 * request costs a lookup and a conditional one a 304. Answers belong to the collection's version
 * (`CollectionVersion`, shared with the store's own caches and Last-Modified): a new version drops
 * them all. The cache sits behind the gateway: keys and limits are checked on every request,
 * cached or not.
 */
export class AnswerCache {
  private readonly answers: VersionedLru<CachedAnswer>;

  /** `maxCharacters`: bodies kept, in characters summed; the least recently used go first. */
  constructor(
    private readonly version: CollectionVersion,
    private readonly maxCharacters: number,
  ) {
    this.answers = new VersionedLru(maxCharacters);
  }

  /** The answer for `key`, from memory or from `produce` (whose result is then kept). */
  async answer(key: string, produce: () => Promise<string>): Promise<CachedAnswer> {
    const { version } = await this.version.current();
    const known = this.answers.get(key, version);
    if (known) return known;
    const body = await produce();
    // The tag is the body's hash alone, so every worker and replica gives the same answer the same tag.
    const answer = { body, etag: `"${hash("md5", body, "base64url")}"` };
    if (body.length <= this.maxCharacters / 8) this.answers.set(key, answer, version, body.length);
    return answer;
  }
}

/** True when an If-None-Match header names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === bare);
}

/**
 * Sends a kept answer with its ETag and `Cache-Control: no-cache` (clients revalidate), or 304 with
 * no body when the request's If-None-Match names the tag.
 */
export function sendAnswer(
  req: FastifyRequest,
  reply: FastifyReply,
  answer: CachedAnswer,
  contentType: string,
): FastifyReply {
  reply.header("ETag", answer.etag);
  reply.header("Cache-Control", "no-cache");
  if (matchesIfNoneMatch(req.headers["if-none-match"], answer.etag)) return reply.code(304).send();
  return reply.type(contentType).send(answer.body);
}
