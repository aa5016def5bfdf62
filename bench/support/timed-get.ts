import { type Agent, get } from "node:http";

/** An answer to `timedGet`: its status, body and ETag, and the milliseconds to its last byte. */
export interface TimedAnswer {
  readonly status: number;
  readonly body: string;
  readonly etag?: string;
  readonly ms: number;
}

/**
 * GET `url` through `agent` (the benchmarks' own client: node:http on a kept connection, whose own
 * cost is closer to wrk's than `fetch`'s), timed from the request to the answer's last byte.
 */
export function timedGet(
  url: string,
  agent: Agent,
  headers: Readonly<Record<string, string>>,
): Promise<TimedAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => {
        const { etag } = res.headers;
        resolve({
          status: res.statusCode ?? 0,
          body,
          ms: performance.now() - started,
          ...(etag ? { etag } : {}),
        });
      });
      res.on("error", reject);
    }).on("error", reject);
  });
}
