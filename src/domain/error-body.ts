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

/**
 * The response body for an error: exactly `{"error":{"code","message"}}` for gateway errors, as
 * api.data.gov answers; a JSON:API error document for errors of the collections themselves.
 */
export function errorBody(err: ApiError): GatewayErrorBody | JsonApiErrorBody {
  if (err.format === "gateway") return { error: { code: err.code, message: err.message } };
  const entry: JsonApiErrorBody["errors"][number] = {
    status: String(err.status),
    code: err.code,
    title: err.title,
    detail: err.message,
  };
  if (err.details.parameter !== undefined) entry.source = { parameter: err.details.parameter };
  else if (err.details.pointer !== undefined) entry.source = { pointer: err.details.pointer };
  return { errors: [entry] };
}
