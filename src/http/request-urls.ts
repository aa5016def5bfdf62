import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { encodeQuery } from "../domain/notice-envelope.js";

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * The request-target in origin-form: an absolute-form target (`https://host/v0/...`, which
 * HTTP/1.1 servers must accept) loses its scheme and authority, so that routing, the gateway,
 * links and logs all see the same path. Any other target is returned unchanged.
 */
export function originForm(target: string): string {
  if (target.startsWith("/")) return target;
  const prefix = ABSOLUTE_FORM.exec(target);
  if (prefix === null) return target;
  const rest = target.slice(prefix[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** Query parameters as [name, value] pairs, decoded, in the order given. */
export function queryPairs(rawUrl: string): Array<[string, string]> {
  const mark = rawUrl.indexOf("?");
  if (mark === -1) return [];
  return [...new URLSearchParams(rawUrl.slice(mark + 1))];
}

/**
 * The request's absolute URL under `base` without its query (`path`) and without its `api_key`
 * parameter (`self`, its query re-encoded by `encodeQuery`: a JSON:API document's `links.self`, or
 * an error's `links.via`), and its parameters without the key, decoded (`pairs`).
 */
export function selfUrlOf(
  rawUrl: string,
  base: string,
): { path: string; pairs: Array<[string, string]>; self: string } {
  const mark = rawUrl.indexOf("?");
  const path = `${base}${mark === -1 ? rawUrl : rawUrl.slice(0, mark)}`;
  const pairs = queryPairs(rawUrl).filter(([name]) => name !== "api_key");
  return { path, pairs, self: pairs.length === 0 ? path : `${path}?${encodeQuery(pairs)}` };
}

/**
 * The request's path and query without the `api_key` parameter, keeping the client's own
 * encoding of everything else: keys never appear in links or logs.
 */
export function withoutApiKey(rawUrl: string): string {
  const mark = rawUrl.indexOf("?");
  if (mark === -1) return rawUrl;
  const kept = rawUrl
    .slice(mark + 1)
    .split("&")
    .filter((part) => part !== "" && decodeName(part) !== "api_key");
  const path = rawUrl.slice(0, mark);
  return kept.length > 0 ? `${path}?${kept.join("&")}` : path;
}

function decodeName(part: string): string {
  const equals = part.indexOf("=");
  const name = equals === -1 ? part : part.slice(0, equals);
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}

/**
 * A host as links may name it: a name of letters, digits, `.`, `-` and `_`, an IPv4 address, or an
 * IPv6 address in brackets, with an optional port. Stricter than RFC 3986's reg-name (no `%`,
 * `!`, `$`, `&`, quotes, ...), which no real host name needs.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]{0,252})(?::\d{1,5})?$/;

/**
 * Why the request's Host cannot be used, as the detail of its 400 BAD_REQUEST, or undefined when
 * it can: HTTP/1.1 without Host, Host given twice (both RFC 9112's 400s), or a value (Host, or a
 * trusted proxy's X-Forwarded-Host) that is not a host and port. HTTP/1.0 without Host, or an empty
 * Host, is fine: links then name the address the request reached (`publicBaseUrl`).
 */
export function hostProblem(req: FastifyRequest): string | undefined {
  const raw = req.raw;
  if (raw.headers.host === undefined && raw.httpVersion !== "1.0")
    return "An HTTP/1.1 request must carry a Host header.";
  if (hostHeaderCount(raw) > 1) return "The request carries more than one Host header; send one.";
  if (req.host !== "" && !HOST.test(req.host))
    return "The Host header must name a host (letters, digits, '.', '-', '_', or an IP address) and optionally a port.";
  return undefined;
}

/** How many `Host` headers a request carries (Node keeps the first in `headers.host`). */
export function hostHeaderCount(raw: IncomingMessage): number {
  let hosts = 0;
  for (let index = 0; index < raw.rawHeaders.length; index += 2)
    if (raw.rawHeaders[index]!.toLowerCase() === "host") hosts++;
  return hosts;
}

/**
 * The public origin for links: the configured base URL, else the request's own scheme and host,
 * else (HTTP/1.0 without Host) the address and port the request reached. Check `hostProblem` first.
 */
export function publicBaseUrl(req: FastifyRequest, baseUrl: string | undefined): string {
  if (baseUrl !== undefined) return baseUrl;
  if (req.host !== "") return `${req.protocol}://${req.host}`;
  const port = req.socket.localPort;
  const defaultPort = req.protocol === "https" ? 443 : 80;
  return `${req.protocol}://${localHostname(req)}${port === defaultPort ? "" : `:${port}`}`;
}

/** The same request over HTTPS, for HTTPS_REQUIRED: at the base URL if configured, else this host on the HTTPS port. */
export function httpsUrlOf(req: FastifyRequest, baseUrl: string | undefined, httpsPort: number): string {
  const pathAndQuery = withoutApiKey(req.url);
  if (baseUrl?.startsWith("https://")) return `${baseUrl}${pathAndQuery}`;
  const hostname =
    req.host === ""
      ? localHostname(req)
      : req.hostname.includes(":") && !req.hostname.startsWith("[")
        ? `[${req.hostname}]`
        : req.hostname;
  const port = httpsPort === 443 ? "" : `:${httpsPort}`;
  return `https://${hostname}${port}${pathAndQuery}`;
}

/** The address this request's connection reached, as a URL's host (IPv6 in brackets). */
function localHostname(req: FastifyRequest): string {
  const address = req.socket.localAddress ?? "localhost";
  return address.includes(":") ? `[${address}]` : address;
}

/** What the API does with a query parameter it does not take. */
export type UnknownParameters = "refuse" | "ignore";

/** The answer header that names the parameters ignored (`--ignore-unknown-parameters`). */
export const IGNORED_PARAMETERS_HEADER = "Ignored-Parameters";

/**
 * The request's parameters a route should parse. Refusing (the default), all of them, so that the
 * parser answers 400 UNKNOWN_PARAMETER naming the first it does not take. Ignoring, as the live
 * service does, only those `isKnown` accepts, the others named in the answer's
 * `Ignored-Parameters` header (comma-separated, in request order; a name with a comma, a space or
 * a character outside printable ASCII percent-encoded).
 */
export function parametersToParse<Pair extends readonly [string, string]>(
  pairs: readonly Pair[],
  isKnown: (name: string) => boolean,
  policy: UnknownParameters,
  reply: FastifyReply,
): Pair[] {
  if (policy === "refuse") return [...pairs];
  const kept: Pair[] = [];
  const ignored: string[] = [];
  for (const pair of pairs) {
    if (isKnown(pair[0])) kept.push(pair);
    else if (!ignored.includes(pair[0])) ignored.push(pair[0]);
  }
  if (ignored.length > 0) {
    const names = ignored.map((name) =>
      /^[\x21-\x2b\x2d-\x7e]+$/.test(name) ? name : encodeURIComponent(name),
    );
    reply.header(IGNORED_PARAMETERS_HEADER, names.join(", "));
  }
  return kept;
}
