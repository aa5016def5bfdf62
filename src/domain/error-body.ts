import type { ApiError } from "./api-error.js";

export interface GatewayErrorBody {
  error: { code: string; message: string };
}

export interface JsonApiErrorBody {
  errors: Array<{
    status: string;
    code: string;
    title: string;
    detail: string;
    source?: { parameter: string } | { pointer: string };
  }>;
}

/** The `jsonapi` member Drupal puts at the top of every document, errors included. */
export const JSONAPI_MEMBER = {
  version: "1.0",
  meta: { links: { self: { href: "http://jsonapi.org/format/1.0/" } } },
} as const;

/** A JSON:API error document as Drupal's JSON:API module writes it. */
export interface DrupalErrorBody {
  jsonapi: typeof JSONAPI_MEMBER;
  errors: Array<JsonApiErrorBody["errors"][number] & { links: { via: { href: string } } }>;
}

/**
 * The response body for an error: exactly `{"error":{"code","message"}}` for gateway errors, as
 * api.data.gov answers; a JSON:API error document for errors of the collections themselves. With
 * `via` (the request's URL, without its key), the document takes Drupal's form: a `jsonapi` member
 * and `links.via` on each error, as the notices collection answers.
 */
export function errorBody(
  err: ApiError,
  via?: string,
): GatewayErrorBody | JsonApiErrorBody | DrupalErrorBody {
  if (err.format === "gateway") return { error: { code: err.code, message: err.message } };
  const entry: JsonApiErrorBody["errors"][number] = {
    status: String(err.status),
    code: err.code,
    title: err.title,
    detail: err.message,
  };
  if (err.details.parameter !== undefined) entry.source = { parameter: err.details.parameter };
  else if (err.details.pointer !== undefined) entry.source = { pointer: err.details.pointer };
  if (via === undefined) return { errors: [entry] };
  return { jsonapi: JSONAPI_MEMBER, errors: [{ ...entry, links: { via: { href: via } } }] };
}
