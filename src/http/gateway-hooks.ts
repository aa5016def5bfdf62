import type { FastifyInstance, FastifyRequest } from "fastify";
import { DEMO_KEY } from "../access/api-keys.js";
import type { KeyVerifier } from "../access/key-verifier.js";
import type { RateLimitDecision, RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import { SECONDS_PER_DAY, SECONDS_PER_HOUR, SECONDS_PER_MINUTE } from "../domain/time.js";
import type { ApiKeyRecord } from "../store/key-store.js";
import { hostProblem, httpsUrlOf, queryPairs } from "./request-urls.js";

export interface GatewayOptions {
  keys: KeyVerifier;
  /** Undefined: limits switched off. */
  limiter: RateLimiter | undefined;
  /** The public base URL, if configured. */
  baseUrl: string | undefined;
  /** The port HTTPS is served on, for the address in HTTPS_REQUIRED. */
  httpsPort: () => number;
  /** Where people get a key, named in key errors. */
  signupUrl: (req: FastifyRequest) => string;
  /**
   * True only in the app that answers the server's own warm-up requests before it listens
   * (`AppDeps.warmUp`): every request is admitted as it is, with no check.
   */
  admitsAll?: boolean;
}

/**
 * What the gateway asks of a request to a route, set in the route's `config.access`:
 * `open` (health probes: nothing), `https` (the sign-up form and the OpenAPI document: HTTPS
 * only), `page` (the web front: HTTPS only, and a GET or HEAD over plain HTTP is redirected there
 * with 301, as browsers expect of a page) or `keyed` (the API: HTTPS, a valid key, the rate
 * limit). A route that says nothing is `keyed`.
 */
export type RouteAccess = "open" | "https" | "page" | "keyed";

declare module "fastify" {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The key a keyed request was admitted with (set by the gateway), for charges beyond one request (exports). */
    apiAccess: { key: ApiKeyRecord; isDemo: boolean } | undefined;
  }
}

/** Unrouted paths under this prefix still need a key, as at api.data.gov: 404s come after it. */
const KEYED_PREFIX = "/v0/";

/**
 * The gateway's checks, in api.data.gov's order, on every request: HTTPS first, then the API key
 * (from `X-Api-Key`, else `api_key`; empty counts as missing), then the rate limit. Keyed answers
 * carry the limit headers; refused keys get none.
 *
 * The checks run after routing and read the access of the route the router chose, never the raw
 * request-target: whatever spelling of a path reaches a handler (absolute-form, percent-encoded,
 * ...), the gateway judged that same handler. Requests that reach no route need HTTPS, and a key
 * when their path is under `/v0/`.
 */
export function registerGatewayHooks(app: FastifyInstance, options: GatewayOptions): void {
  app.decorateRequest("apiAccess", undefined);
  const admitsAll = options.admitsAll === true;
  app.addHook("onRequest", async (req, reply) => {
    if (admitsAll) return;
    const access = accessOf(req);
    if (access === "open") return;
    if (req.protocol !== "https") {
      const httpsUrl = httpsUrlOf(req, options.baseUrl, options.httpsPort());
      if (access === "page" && (req.method === "GET" || req.method === "HEAD")) {
        return reply.code(301).header("Location", httpsUrl).header("Cache-Control", "no-cache").send();
      }
      throw new ApiError("HTTPS_REQUIRED", { vars: { httpsUrl } });
    }
    if (access !== "keyed") return;
    const presented = presentedKey(req);
    const vars = { signupUrl: options.signupUrl(req), contactUrl: options.signupUrl(req) };
    if (presented === undefined) throw new ApiError("API_KEY_MISSING", { vars });
    const check = await options.keys.verify(presented);
    if (check.status === "invalid") throw new ApiError("API_KEY_INVALID", { vars });
    if (check.status === "disabled") throw new ApiError("API_KEY_DISABLED", { vars });
    req.apiAccess = { key: check.key, isDemo: presented === DEMO_KEY };
    if (!options.limiter) return;
    const decision = await options.limiter.check(check.key, presented === DEMO_KEY, req.ip);
    if (!decision) return;
    reply.headers(limitHeaders(decision));
    if (!decision.allowed) throw overRateLimitError(decision);
  });
}

/**
 * The 429 `OVER_RATE_LIMIT` for a refused request: the live gateway's code and body, its message
 * saying the limit (`1,000 requests per hour`) and when it resets, with `Retry-After` in seconds.
 */
export function overRateLimitError(decision: RateLimitDecision): ApiError {
  return new ApiError("OVER_RATE_LIMIT", {
    vars: {
      limit: `${decision.limit.toLocaleString("en-US")} request${decision.limit === 1 ? "" : "s"}`,
      window: windowText(decision.windowSeconds),
      reset: durationText(decision.resetSeconds),
    },
    headers: { "Retry-After": String(decision.resetSeconds) },
  });
}

/** A limit's window in words: `hour`, `day`, else `5 seconds`. */
export function windowText(seconds: number): string {
  if (seconds === SECONDS_PER_HOUR) return "hour";
  if (seconds === SECONDS_PER_DAY) return "day";
  return `${seconds} seconds`;
}

/** A wait in words: `42 seconds`, or past two minutes `1260 seconds (about 21 minutes)`. */
export function durationText(seconds: number): string {
  const exact = `${seconds} second${seconds === 1 ? "" : "s"}`;
  return seconds < 2 * SECONDS_PER_MINUTE
    ? exact
    : `${exact} (about ${Math.round(seconds / SECONDS_PER_MINUTE)} minutes)`;
}

/** The gateway's headers, plus the reset time its users asked for. */
export function limitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetSeconds),
  };
}

function accessOf(req: FastifyRequest): RouteAccess {
  if (req.is404) return req.url.startsWith(KEYED_PREFIX) ? "keyed" : "https";
  return req.routeOptions.config.access ?? "keyed";
}

/** The key a request presents: `X-Api-Key`, else `api_key`; empty counts as none. */
export function presentedKey(req: FastifyRequest): string | undefined {
  const header = req.headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined && fromHeader !== "") return fromHeader;
  const fromQuery = queryPairs(req.url).find(([name]) => name === "api_key")?.[1];
  return fromQuery === undefined || fromQuery === "" ? undefined : fromQuery;
}

/** The methods every route but the sign-up form takes, as `Allow` names them. */
export const READ_ONLY_ALLOW = "GET, HEAD, OPTIONS";

/**
 * Checks that come before everything else, CORS and the gateway included, registered first:
 *
 * - a request whose Host cannot be used (`hostProblem`: HTTP/1.1 without Host, two Hosts, a value
 *   that is not a host and port) is a 400 BAD_REQUEST, never echoed into links or messages;
 * - an OPTIONS that is not a CORS preflight (it lacks `Origin` or `Access-Control-Request-Method`)
 *   is a 405 METHOD_NOT_ALLOWED naming what is allowed, on any path but the sign-up form's, which
 *   answers its own OPTIONS. (@fastify/cors would answer it 400 in text.)
 */
export function registerRequestChecks(app: FastifyInstance): void {
  app.addHook("onRequest", async (req) => {
    const problem = hostProblem(req);
    if (problem !== undefined) throw new ApiError("BAD_REQUEST", { detail: problem });
    if (req.method !== "OPTIONS" || req.routeOptions.config.cors === false) return;
    if (req.headers.origin !== undefined && req.headers["access-control-request-method"] !== undefined)
      return;
    throw new ApiError("METHOD_NOT_ALLOWED", {
      detail:
        "OPTIONS is answered only as a CORS preflight (with Origin and Access-Control-Request-Method). This API is read-only: use GET or HEAD.",
      headers: { Allow: READ_ONLY_ALLOW },
    });
  });
}
