import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { DEMO_KEY } from "../access/api-keys.js";
import type { KeyVerifier } from "../access/key-verifier.js";
import type { RateLimiter } from "../access/rate-limiter.js";
import {
  type AnswerCache,
  type AnswerKeeper,
  type CachedAnswer,
  lastModifiedOf,
  matchesIfNoneMatch,
} from "./answer-cache.js";
import { hostHeaderCount } from "./request-urls.js";
import type { ServerMetrics } from "./server-metrics.js";

/** Requests whose answers the lane remembers at most, and the characters of their keys. */
const MAX_KEPT_REQUESTS = 4096;
const MAX_KEY_CHARACTERS = 1024 * 1024;

/** An `api_key` parameter, however its name is encoded: such a request is never remembered. */
const API_KEY_PARAMETER = /api(_|%5f)key/i;

/** A response the framework sent for a request, as the lane replays it. */
interface KeptResponse {
  /** Weak: the answer cache owns the answer, and the lane must not keep it alive after it is dropped. */
  answer: WeakRef<CachedAnswer>;
  version: number;
  /** The cache the answer came from: its collection's version, and its hit count. */
  cache: AnswerCache;
  contentType: string;
  /** Sent with its ETag and `Cache-Control` (and 304 to a matching If-None-Match); see `AnswerKeeper.keep`. */
  tagged: boolean;
  /** Headers the framework's hooks put before the answer's own (CORS), as name, value, name, ... */
  leading: string[];
  /** The route's pattern, for the metrics. */
  route: string;
}

export interface KeptAnswerLaneOptions {
  keys: KeyVerifier;
  /** Undefined: limits switched off. */
  limiter: RateLimiter | undefined;
  /** Whether `X-Forwarded-Proto` says the scheme (`--trust-proxy`), as the framework reads it. */
  trustProxy: boolean;
  metrics: ServerMetrics | undefined;
  /**
   * Where each answered request is logged as the framework logs requests at info (`incoming
   * request`, `request completed`; `reqId` `kept-N`); undefined when requests are not logged.
   */
  logger?: FastifyBaseLogger | undefined;
}

/**
 * Answers a repeated request from memory before the framework sees it, when everything it needs is
 * known without waiting: the same request (path and query, Host, `X-Forwarded-Host`,
 * `X-Forwarded-Proto`, `Accept`, over the same kind of connection) was answered by the framework
 * from an answer cache (`sendAnswer` calls `keep`), that answer belongs to the collection's
 * current version, and the gateway's checks pass from memory: HTTPS (as the framework judges it),
 * a key in `X-Api-Key` whose verification is cached (`KeyVerifier.cachedCheck`) and valid, not
 * DEMO_KEY, and a hit of the rate limit from this process's lease (`RateLimiter.checkNow`). The
 * answer is the framework's, byte for byte but the `Date`: the same headers in the same order,
 * fresh rate-limit headers, and 304 for a matching `If-None-Match`. Anything else (another method,
 * `If-Modified-Since`, a key in the query, a key or limit not known now, an answer of an older
 * version) takes the framework's path, which decides as it always does.
 *
 * A repeated page then costs the event loop about as much as a bare Fastify route sending a fixed
 * body (docs/performance.md): the framework's request objects, hooks, routing and header
 * handling cost about twice that.
 */
export class KeptAnswerLane implements AnswerKeeper {
  private readonly kept = new Map<string, KeptResponse>();
  private keyCharacters = 0;
  /** The lane key of a request passed to the framework, for `keep`. */
  private readonly passed = new WeakMap<IncomingMessage, string>();
  /** Requests answered, for the logs' request ids. */
  private answered = 0;

  constructor(private readonly options: KeptAnswerLaneOptions) {}

  /** A listener answering from kept responses what it can, and handing every other request to `next`. */
  before(
    next: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      if (!this.answer(req, res)) next(req, res);
    };
  }

  /** Answers `req` from a kept response and returns true, or returns false and leaves it to the framework. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== "GET") return false;
    const url = req.url;
    const headers = req.headers;
    const presented = headers["x-api-key"];
    if (
      url === undefined ||
      url[0] !== "/" ||
      typeof presented !== "string" ||
      presented === "" ||
      presented === DEMO_KEY ||
      headers.host === undefined ||
      headers["if-modified-since"] !== undefined ||
      API_KEY_PARAMETER.test(url) ||
      !this.isHttps(req) ||
      hostHeaderCount(req) !== 1
    )
      return false;
    const check = this.options.keys.cachedCheck(presented);
    if (check?.status !== "valid") return false;
    const laneKey = `${url}\n${headers.host}\n${headers["x-forwarded-host"] ?? ""}\n${headers["x-forwarded-proto"] ?? ""}\n${headers.accept ?? ""}\n${isEncrypted(req)}`;
    const kept = this.kept.get(laneKey);
    const answer = kept?.answer.deref();
    if (kept === undefined || answer === undefined || kept.cache.version.known()?.version !== kept.version) {
      if (kept !== undefined) this.forget(laneKey);
      this.passed.set(req, laneKey);
      return false;
    }
    const startedAt = performance.now();
    const limiter = this.options.limiter;
    const decision = limiter === undefined ? null : limiter.checkNow(check.key, false, "");
    if (decision === undefined) return false;
    const logger = this.options.logger;
    const reqId = logger === undefined ? "" : `kept-${(++this.answered).toString(36)}`;
    logger?.info({ reqId, req: { method: "GET", url, ip: this.clientAddressOf(req) } }, "incoming request");
    const written = [...kept.leading];
    if (decision !== null)
      written.push(
        "x-ratelimit-limit",
        String(decision.limit),
        "x-ratelimit-remaining",
        String(decision.remaining),
        "x-ratelimit-reset",
        String(decision.resetSeconds),
      );
    if (kept.tagged) written.push("etag", answer.etag, "cache-control", "no-cache");
    let status = 304;
    if (kept.tagged && matchesIfNoneMatch(headers["if-none-match"], answer.etag))
      res.writeHead(status, written).end();
    else {
      status = 200;
      written.push("content-type", kept.contentType);
      if (answer.updatedAtSeconds !== undefined)
        written.push("last-modified", lastModifiedOf(answer.updatedAtSeconds));
      written.push("content-length", String(Buffer.byteLength(answer.body)));
      res.writeHead(status, written).end(answer.body);
    }
    logger?.info(
      { reqId, res: { statusCode: status }, responseTime: performance.now() - startedAt },
      "request completed",
    );
    kept.cache.noteHit();
    const metrics = this.options.metrics;
    if (metrics) {
      metrics.requestAnswered(kept.route, "GET", status, (performance.now() - startedAt) / 1000);
      metrics.keptAnswerSent();
    }
    return true;
  }

  /**
   * Remembers the answer the framework is about to send for `req` from `cache`, so that the same
   * request is answered by `answer` next time; nothing when the cache has not given the answer
   * again (`CachedAnswer.repeated`: before a request's third ask), or the lane did not pass `req`
   * on (it is not of a shape the lane answers). Called before the answer's own headers are set.
   * Remembering answers from their second ask instead cost 3 to 8% of the requests a second
   * under distinct requests (docs/performance.md), for pages that are seldom asked a third time.
   */
  keep(
    req: FastifyRequest,
    reply: FastifyReply,
    cache: AnswerCache,
    answer: CachedAnswer,
    contentType: string,
    tagged: boolean,
  ): void {
    const laneKey = this.passed.get(req.raw);
    if (laneKey === undefined || !answer.repeated || reply.statusCode !== 200) return;
    const leading: string[] = [];
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || name.startsWith("x-ratelimit-")) continue;
      leading.push(name, Array.isArray(value) ? value.join(", ") : String(value));
    }
    this.forget(laneKey);
    while (this.kept.size >= MAX_KEPT_REQUESTS || this.keyCharacters + laneKey.length > MAX_KEY_CHARACTERS) {
      const oldest = this.kept.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
    this.kept.set(laneKey, {
      answer: new WeakRef(answer),
      version: answer.version,
      cache,
      contentType: sentContentType(answer.body, contentType),
      tagged,
      leading,
      route: req.routeOptions.url ?? "",
    });
    this.keyCharacters += laneKey.length;
  }

  private forget(laneKey: string): void {
    if (this.kept.delete(laneKey)) this.keyCharacters -= laneKey.length;
  }

  /** The framework's `req.ip`: with a trusted proxy the first `X-Forwarded-For` address, else the peer's. */
  private clientAddressOf(req: IncomingMessage): string | undefined {
    const forwarded = req.headers["x-forwarded-for"];
    if (this.options.trustProxy && typeof forwarded === "string" && forwarded !== "")
      return forwarded.split(",")[0]!.trim();
    return req.socket.remoteAddress;
  }

  /** The framework's `req.protocol` is `https`: its last `X-Forwarded-Proto` when trusted, else the socket's. */
  private isHttps(req: IncomingMessage): boolean {
    const forwarded = req.headers["x-forwarded-proto"];
    if (this.options.trustProxy && typeof forwarded === "string" && forwarded !== "")
      return forwarded.slice(forwarded.lastIndexOf(",") + 1).trim() === "https";
    return isEncrypted(req);
  }
}

/**
 * The `Content-Type` the framework sends for `body` as `contentType`: a text body of a JSON type
 * without a charset gets `; charset=utf-8` (Fastify's `reply.send`); bytes are sent as typed.
 */
function sentContentType(body: string | Buffer, contentType: string): string {
  return typeof body === "string" && contentType.includes("json") && !/;\s*charset=/i.test(contentType)
    ? `${contentType}; charset=utf-8`
    : contentType;
}

/** Whether the request came over TLS (this server's HTTPS listener). */
function isEncrypted(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean }).encrypted === true;
}
