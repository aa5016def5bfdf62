import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { TestResponse } from "./https-client.js";
import { assertAnswerMatchesContract, pathOfTarget } from "./openapi-contract.js";

/**
 * Sends one HTTP/1.1 request with the request-target exactly as given (absolute-form, `//`
 * prefixes, dot segments and encodings untouched, which URL-based clients normalise away) and
 * reads the whole answer. `origin` is the server's `https://` or `http://` address. Answers of
 * servers from `startTestServer` are checked against the OpenAPI document (https-client.ts).
 */
export function rawRequest(
  origin: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; ca?: string; body?: string } = {},
): Promise<TestResponse> {
  const url = new URL(origin);
  const port = Number(url.port);
  const host = url.hostname;
  const headerLines = Object.entries({ Host: url.host, Connection: "close", ...options.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const head = `${options.method ?? "GET"} ${target} HTTP/1.1\r\n${headerLines}\r\n${options.body ?? ""}`;
  return new Promise((resolve, reject) => {
    const socket =
      url.protocol === "https:"
        ? tlsConnect({ host, port, ca: options.ca, servername: host === "127.0.0.1" ? undefined : host })
        : netConnect({ host, port });
    const chunks: Buffer[] = [];
    socket.on(url.protocol === "https:" ? "secureConnect" : "connect", () => socket.write(head));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        const answer = parseResponse(Buffer.concat(chunks).toString("utf8"));
        assertAnswerMatchesContract(origin, {
          method: options.method ?? "GET",
          path: pathOfTarget(target),
          status: answer.status,
          headers: answer.headers,
          body: answer.body,
        });
        resolve(answer);
      } catch (err) {
        reject(err);
      }
    });
  });
}

function parseResponse(text: string): TestResponse {
  const split = text.indexOf("\r\n\r\n");
  if (split === -1) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...lines] = text.slice(0, split).split("\r\n");
  const status = Number(statusLine!.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(split + 4);
  if (headers["transfer-encoding"] === "chunked") body = unchunk(body);
  return { status, headers, body, json: () => JSON.parse(body) };
}

function unchunk(text: string): string {
  let out = "";
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
