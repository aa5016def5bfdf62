import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { assertAnswerMatchesContract } from "./openapi-contract.js";

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = any>(): T;
}

/**
 * A plain request over a real socket; HTTPS trusts `ca` (the server's self-signed certificate).
 * Answers of servers from `startTestServer` are checked against the OpenAPI document: a mismatch
 * rejects with the request, the status and the schema error.
 */
export function fetchRaw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; ca?: string; body?: string } = {},
): Promise<TestResponse> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: options.method ?? "GET", headers: options.headers, ca: options.ca, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => {
          const method = options.method ?? "GET";
          const status = res.statusCode ?? 0;
          try {
            assertAnswerMatchesContract(target.origin, {
              method,
              path: `${target.pathname}${target.search}`,
              status,
              headers: res.headers,
              body,
            });
          } catch (err) {
            reject(err);
            return;
          }
          resolve({ status, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
