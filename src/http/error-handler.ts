import type { FastifyError, FastifyInstance } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { errorBody } from "../domain/error-body.js";
import { isDatabaseUnavailable } from "../store/unavailable.js";

/**
 * The one error handler: ApiErrors are answered as the catalog says; an unreachable database is a
 * 503 with Retry-After; a framework error with a 4xx status becomes BAD_REQUEST; anything else is
 * logged and answered with a generic 500, never a stack trace.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    let apiError: ApiError;
    if (err instanceof ApiError) {
      apiError = err;
    } else if (isDatabaseUnavailable(err)) {
      req.log.warn({ err }, "database unavailable");
      apiError = new ApiError("SERVICE_UNAVAILABLE", { headers: { "Retry-After": "1" } });
    } else if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
      apiError = new ApiError("BAD_REQUEST", { detail: err.message });
    } else {
      req.log.error({ err }, "unhandled error");
      apiError = new ApiError("INTERNAL_ERROR");
    }
    const status =
      apiError.code === "BAD_REQUEST" && "statusCode" in err ? (err.statusCode ?? 400) : apiError.status;
    // JSON:API routes (the notices) answer their own errors as Drupal does, with links.via.
    const via = apiError.format === "jsonapi" ? req.errorVia : undefined;
    reply
      .code(status)
      .headers(apiError.details.headers ?? {})
      .type(via === undefined ? "application/json" : "application/vnd.api+json")
      .send(errorBody(apiError, via));
  });
}
