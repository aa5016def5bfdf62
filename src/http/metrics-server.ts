import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { ApiError } from "../domain/api-error.js";
import { errorBody } from "../domain/error-body.js";
import type { MetricsExposition } from "./server-metrics.js";

/** Where the metrics listener answers. */
export const METRICS_PATH = "/metrics";

/**
 * The metrics listener, not yet listening: plain HTTP, without keys, apart from the API's ports
 * (which answer /metrics with their usual 404). `GET` (or `HEAD`) `/metrics`, with any query, is
 * answered with `exposition()`, or 503 when it fails (a worker that did not answer); any other
 * path gets the API's 404 JSON, any other method 405. Bind it to loopback or a private address.
 */
export function createMetricsServer(exposition: () => Promise<MetricsExposition>): Server {
  return createServer((req, res) => {
    void answer(req, res, exposition);
  });
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  exposition: () => Promise<MetricsExposition>,
): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== METRICS_PATH) {
    sendError(res, new ApiError("NOT_FOUND"));
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    sendError(res, new ApiError("METHOD_NOT_ALLOWED", { vars: { method: req.method ?? "" } }));
    return;
  }
  let metrics: MetricsExposition;
  try {
    metrics = await exposition();
  } catch (err) {
    res.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "1" });
    res.end(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`);
    return;
  }
  res.writeHead(200, { "Content-Type": metrics.contentType, "Cache-Control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : metrics.body);
}

function sendError(res: ServerResponse, err: ApiError): void {
  res.writeHead(err.status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(errorBody(err)));
}
