import type { FastifyRequest } from "fastify";

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

/** The public origin for links: the configured base URL, else the request's own scheme and host. */
export function publicBaseUrl(req: FastifyRequest, baseUrl: string | undefined): string {
  return baseUrl ?? `${req.protocol}://${req.host}`;
}

/** The same request over HTTPS, for HTTPS_REQUIRED: at the base URL if configured, else this host on the HTTPS port. */
export function httpsUrlOf(req: FastifyRequest, baseUrl: string | undefined, httpsPort: number): string {
  const pathAndQuery = withoutApiKey(req.url);
  if (baseUrl?.startsWith("https://")) return `${baseUrl}${pathAndQuery}`;
  const hostname =
    req.hostname.includes(":") && !req.hostname.startsWith("[") ? `[${req.hostname}]` : req.hostname;
  const port = httpsPort === 443 ? "" : `:${httpsPort}`;
  return `https://${hostname}${port}${pathAndQuery}`;
}
