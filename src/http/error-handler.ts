import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { errorBody } from "../domain/error-body.js";
import type { ErrorCode } from "../domain/error-catalog.js";
import { isDatabaseUnavailable } from "../store/unavailable.js";
import { selfUrlOf } from "./request-urls.js";

/** The most a request's headers may take in all (Node's default `maxHeaderSize`), named in HEADERS_TOO_LARGE. */
export const MAX_HEADER_BYTES = 16_384;

/**
 * The catalog code of a framework (Fastify) error by its status: what a client did wrong, said
 * with the catalog's own code; a 4xx not listed is BAD_REQUEST (400) with the framework's message.
 */
const FRAMEWORK_CODES: Readonly<Partial<Record<number, ErrorCode>>> = {
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

/**
 * The one error handler: ApiErrors are answered as the catalog says; an unreachable database is a
 * 503 with Retry-After; a framework error with a 4xx status becomes the catalog's code for that
 * status (BAD_REQUEST when it has none); anything else is logged and answered with a generic 500,
 * never a stack trace. Errors before a request exists (the socket level) are `answerClientError`'s.
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
      const code = FRAMEWORK_CODES[err.statusCode];
      apiError =
        code === undefined ? new ApiError("BAD_REQUEST", { detail: err.message }) : new ApiError(code);
    } else {
      req.log.error({ err }, "unhandled error");
      apiError = new ApiError("INTERNAL_ERROR");
    }
    // JSON:API routes (the notices) answer their own errors as Drupal does, with links.via.
    const via =
      apiError.format === "jsonapi" && req.jsonApiBase !== undefined
        ? selfUrlOf(req.url, req.jsonApiBase).self
        : undefined;
    reply
      .code(apiError.status)
      .headers(apiError.details.headers ?? {})
      .type(via === undefined ? "application/json" : "application/vnd.api+json")
      .send(errorBody(apiError, via));
  });
}

/**
 * Answers a connection whose bytes never became a request (Node's `clientError`: headers larger
 * than MAX_HEADER_BYTES, a request or its headers not received within the header timeout, bytes
 * that are not HTTP/1.1) with the documented error body (431 HEADERS_TOO_LARGE, 408
 * REQUEST_TIMEOUT, 400 BAD_REQUEST), then closes it. A connection the client reset, or one
 * already closed, gets nothing. Installed as Fastify's `clientErrorHandler` on the HTTPS listener
 * and as the plain listener's `clientError` listener, so that both answer alike.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  if (socket.writable) socket.write(rawErrorAnswer(clientErrorOf(err)));
  socket.destroy();
}

/**
 * A whole HTTP/1.1 answer, head and documented body, for an error answered outside any route
 * (`answerClientError`, CONNECT), always closing the connection.
 */
export function rawErrorAnswer(apiError: ApiError, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(errorBody(apiError));
  const lines = Object.entries({
    ...apiError.details.headers,
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${apiError.status} ${apiError.title}\r\n${lines.join("")}\r\n${body}`;
}

function clientErrorOf(err: NodeJS.ErrnoException): ApiError {
  if (err.code === "HPE_HEADER_OVERFLOW")
    return new ApiError("HEADERS_TOO_LARGE", { vars: { maxBytes: String(MAX_HEADER_BYTES) } });
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return new ApiError("REQUEST_TIMEOUT");
  return new ApiError("BAD_REQUEST", { detail: "The request is not a valid HTTP/1.1 request." });
}
