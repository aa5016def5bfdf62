import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import {
  EXPORT_CONTENT_TYPES,
  type ExportFormat,
  exportCostOf,
  MAX_DEMO_EXPORT_RECORDS,
} from "../domain/export-format.js";
import { durationText, limitHeaders, windowText } from "./gateway-hooks.js";

/** What an export route needs besides its store: the limiter (undefined: limits off) and where keys are had. */
export interface ExportOptions {
  limiter: RateLimiter | undefined;
  signupUrl: (req: FastifyRequest) => string;
}

/**
 * The bytes buffered for a slow client before reading stops: the stream's own buffer. With the
 * socket's and one batch being written, what a slow client holds stays below about a megabyte.
 */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * Charges an export of `records` records to the request's key before anything is sent: DEMO_KEY
 * may export at most MAX_DEMO_EXPORT_RECORDS (403 EXPORT_TOO_LARGE_FOR_DEMO_KEY); any other key
 * pays one request per 10,000 records started, the one the gateway already counted included, all
 * at once or not at all (429 EXPORT_OVER_RATE_LIMIT, with the gateway's limit headers and
 * Retry-After; the refused request is not counted). Keys without a limit, or limits switched off,
 * pay nothing more.
 */
export async function chargeExport(
  req: FastifyRequest,
  reply: FastifyReply,
  records: number,
  options: ExportOptions,
): Promise<void> {
  const access = req.apiAccess;
  // HEAD sends no record: it costs the one request the gateway counted, whatever the total.
  if (!access || req.method === "HEAD") return;
  const count = records.toLocaleString("en-US");
  if (access.isDemo && records > MAX_DEMO_EXPORT_RECORDS) {
    throw new ApiError("EXPORT_TOO_LARGE_FOR_DEMO_KEY", {
      vars: {
        max: MAX_DEMO_EXPORT_RECORDS.toLocaleString("en-US"),
        records: count,
        signupUrl: options.signupUrl(req),
      },
    });
  }
  const cost = exportCostOf(records);
  if (!options.limiter || cost <= 1) return;
  const decision = await options.limiter.take(access.key, access.isDemo, req.ip, cost - 1);
  if (!decision) return;
  reply.headers(limitHeaders(decision));
  if (decision.allowed) return;
  throw new ApiError("EXPORT_OVER_RATE_LIMIT", {
    vars: {
      records: count,
      needed: cost.toLocaleString("en-US"),
      available: decision.remaining.toLocaleString("en-US"),
      limit: `${decision.limit.toLocaleString("en-US")} request${decision.limit === 1 ? "" : "s"}`,
      window: windowText(decision.windowSeconds),
      reset: durationText(decision.resetSeconds),
    },
    headers: { ...limitHeaders(decision), "Retry-After": String(decision.resetSeconds) },
  });
}

/**
 * Sends an export: the header line (CSV), then the text of each batch as the client takes it.
 * Batches are read only when the stream's buffer has room (backpressure), so a slow client holds
 * at most STREAM_BUFFER_BYTES plus one batch; when the client goes away the stream is destroyed,
 * which ends the batches and closes the snapshot (`close` runs however the export ends). HEAD gets
 * the headers alone, without reading a batch.
 */
export function sendExport(
  req: FastifyRequest,
  reply: FastifyReply,
  answer: {
    format: Exclude<ExportFormat, "json">;
    /** The file name offered to save the answer as, without its extension. */
    name: string;
    total: number;
    header: string | undefined;
    texts: AsyncIterable<string>;
    close: () => Promise<void>;
  },
): FastifyReply {
  reply
    .code(200)
    .type(EXPORT_CONTENT_TYPES[answer.format])
    .header("Content-Disposition", `attachment; filename="${answer.name}.${answer.format}"`)
    .header("X-Record-Total", String(answer.total))
    .header("Cache-Control", "no-store");
  if (req.method === "HEAD") {
    void answer.close();
    return reply.send();
  }
  async function* texts(): AsyncGenerator<string> {
    try {
      if (answer.header !== undefined) yield answer.header;
      yield* answer.texts;
    } finally {
      await answer.close();
    }
  }
  const stream = Readable.from(texts(), { objectMode: false, highWaterMark: STREAM_BUFFER_BYTES });
  // A stream destroyed before its first read never enters `texts`, whose `finally` would close.
  stream.once("close", () => void answer.close());
  return reply.send(stream);
}
