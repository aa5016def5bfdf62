import type { FastifyInstance, FastifyRequest } from "fastify";
import { DEMO_KEY } from "../access/api-keys.js";
import { databaseErrorCode } from "./database-error-code.js";
import { presentedKey } from "./gateway-hooks.js";
import type { RefusedLimit, ServerMetrics } from "./server-metrics.js";
import { SIGNUP_PATH } from "./signup-routes.js";

/** The route label of a request no route matched (a 404), so that raw URLs never become labels. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Reports every answered request to `metrics`: its route pattern (as the router chose it, never
 * the request-target), method, status and duration; a 429 as a refusal of the limit that refused
 * it; and a database error met on the way (whether answered 503 or 500) under its code.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  app.addHook("onError", async (_req, _reply, err) => {
    const code = databaseErrorCode(err);
    if (code !== undefined) metrics.databaseFailed(code);
  });
  app.addHook("onResponse", async (req, reply) => {
    const route = req.is404 ? UNMATCHED_ROUTE : (req.routeOptions.url ?? UNMATCHED_ROUTE);
    metrics.requestAnswered(route, req.method, reply.statusCode, reply.elapsedTime / 1000);
    // Only the limits answer 429 (the catalog's OVER_RATE_LIMIT, and the sign-up page's own).
    if (reply.statusCode === 429) metrics.rateLimitRefused(refusedLimit(req, route));
  });
}

function refusedLimit(req: FastifyRequest, route: string): RefusedLimit {
  if (route === SIGNUP_PATH) return "signup";
  return presentedKey(req) === DEMO_KEY ? "demo_key" : "api_key";
}
