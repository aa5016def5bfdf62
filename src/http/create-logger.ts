import type { IncomingMessage } from "node:http";
import pino, { type Logger } from "pino";
import { withoutApiKey } from "./request-urls.js";

/** The service logger (JSON lines on stdout). Request URLs are logged without `api_key`; headers are not logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    serializers: {
      req(req: IncomingMessage & { ip?: string }) {
        return {
          method: req.method,
          url: withoutApiKey(req.url ?? ""),
          remoteAddress: req.ip ?? req.socket?.remoteAddress,
        };
      },
      res(res: { statusCode: number }) {
        return { statusCode: res.statusCode };
      },
    },
  });
}
