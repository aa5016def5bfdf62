import { hash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

/** A serialised answer and its entity tag. */
export interface CachedAnswer {
  body: string;
  etag: string;
}

export interface AnswerCacheOptions {
  /** Bodies kept, in characters summed; the least recently used go first. */
  maxCharacters?: number;
  /** How often the data version is read, at most; answers may lag a commit by this much. */
  checkIntervalMs?: number;
}

/**
 * Keeps recent answers of a read-only collection in memory with their ETag, so that a repeated
 * request costs a lookup and a conditional one a 304. Everything is dropped when the collection's
 * version changes (a number the store gives, which changes when the data may have), read at most once per
 * `checkIntervalMs`. The cache sits behind the gateway: keys and limits are checked on every
 * request, cached or not.
 */
export class AnswerCache {
  private readonly answers = new Map<string, CachedAnswer>();
  private characters = 0;
  private version: number | string | undefined;
  private checkedAt = 0;
  private checking: Promise<void> | undefined;
  private readonly maxCharacters: number;
  private readonly checkIntervalMs: number;

  constructor(
    private readonly readVersion: () => Promise<number | string>,
    options: AnswerCacheOptions = {},
  ) {
    this.maxCharacters = options.maxCharacters ?? 32 * 1024 * 1024;
    this.checkIntervalMs = options.checkIntervalMs ?? 1000;
  }

  /** The answer for `key`, from memory or from `produce` (whose result is then kept). */
  async answer(key: string, produce: () => Promise<string>): Promise<CachedAnswer> {
    await this.refresh();
    const known = this.answers.get(key);
    if (known) {
      this.answers.delete(key);
      this.answers.set(key, known);
      return known;
    }
    const version = this.version;
    const body = await produce();
    // The tag is the body's hash alone, so every worker and replica gives the same answer the same tag.
    const answer = { body, etag: `"${hash("md5", body, "base64url")}"` };
    // An answer computed while the version changed is served but not kept.
    if (version === this.version && body.length <= this.maxCharacters / 8) this.keep(key, answer);
    return answer;
  }

  private keep(key: string, answer: CachedAnswer): void {
    this.answers.set(key, answer);
    this.characters += answer.body.length;
    for (const [oldest, old] of this.answers) {
      if (this.characters <= this.maxCharacters) break;
      this.answers.delete(oldest);
      this.characters -= old.body.length;
    }
  }

  private refresh(): Promise<void> | undefined {
    const now = Date.now();
    if (now - this.checkedAt < this.checkIntervalMs) return undefined;
    this.checking ??= this.readVersion()
      .then((version) => {
        this.checkedAt = Date.now();
        if (version !== this.version) {
          this.answers.clear();
          this.characters = 0;
          this.version = version;
        }
      })
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
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
