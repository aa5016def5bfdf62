import type { FastifyInstance, FastifyRequest } from "fastify";
import { DEMO_KEY } from "../access/api-keys.js";
import type { KeyVerifier } from "../access/key-verifier.js";
import type { RateLimitDecision, RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import { HEALTH_PREFIX } from "./health-routes.js";
import { httpsUrlOf, queryPairs } from "./request-urls.js";

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
}

/** Paths that need a key: the API itself. */
const KEYED_PREFIX = "/v0/";

declare module "fastify" {
  interface FastifyRequest {
    /** The key's stored record, once the gateway accepted it. */
    apiKeyId: number | undefined;
  }
}

/**
 * The gateway's checks, in api.data.gov's order, on every request before routing completes:
 * HTTPS first, then the API key (from `X-Api-Key`, else `api_key`; empty counts as missing), then
 * the rate limit. Keyed answers carry the limit headers; refused keys get none.
 */
export function registerGatewayHooks(app: FastifyInstance, options: GatewayOptions): void {
  app.decorateRequest("apiKeyId", undefined);

  app.addHook("onRequest", async (req, reply) => {
    if (req.url.startsWith(HEALTH_PREFIX)) return;
    if (req.protocol !== "https") {
      throw new ApiError("HTTPS_REQUIRED", {
        vars: { httpsUrl: httpsUrlOf(req, options.baseUrl, options.httpsPort()) },
      });
    }
    if (!req.url.startsWith(KEYED_PREFIX)) return;
    const presented = presentedKey(req);
    const vars = { signupUrl: options.signupUrl(req), contactUrl: options.signupUrl(req) };
    if (presented === undefined) throw new ApiError("API_KEY_MISSING", { vars });
    const check = await options.keys.verify(presented);
    if (check.status === "invalid") throw new ApiError("API_KEY_INVALID", { vars });
    if (check.status === "disabled") throw new ApiError("API_KEY_DISABLED", { vars });
    req.apiKeyId = check.key.id;
    if (!options.limiter) return;
    const decision = await options.limiter.check(check.key, presented === DEMO_KEY, req.ip);
    if (!decision) return;
    reply.headers(limitHeaders(decision));
    if (!decision.allowed) {
      throw new ApiError("OVER_RATE_LIMIT", {
        vars,
        headers: { "Retry-After": String(decision.resetSeconds) },
      });
    }
  });
}

/** The gateway's headers, plus the reset time its users asked for. */
export function limitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.resetSeconds),
  };
}

function presentedKey(req: FastifyRequest): string | undefined {
  const header = req.headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader !== undefined && fromHeader !== "") return fromHeader;
  const fromQuery = queryPairs(req.url).find(([name]) => name === "api_key")?.[1];
  return fromQuery === undefined || fromQuery === "" ? undefined : fromQuery;
}
