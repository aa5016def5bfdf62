import type { FastifyInstance } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { hostProblem } from "./request-urls.js";

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
