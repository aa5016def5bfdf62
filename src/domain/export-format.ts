import { ApiError } from "./api-error.js";

/** How a list request is answered: a page of JSON (the default), or every matching record streamed. */
export type ExportFormat = "json" | "csv" | "ndjson";

/** The media types of the two export formats. */
export const EXPORT_CONTENT_TYPES = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
} as const;

/** An export costs one request of the key's limit per this many records started. */
export const RECORDS_PER_EXPORT_REQUEST = 10_000;

/** The most records DEMO_KEY may export in one request. */
export const MAX_DEMO_EXPORT_RECORDS = 10_000;

/** The query parameter that chooses the format. */
export const FORMAT_PARAMETER = "format";

const FORMATS: readonly ExportFormat[] = ["json", "csv", "ndjson"];

/** Accept media types and the format each asks for; wildcards and JSON types keep the page. */
const ACCEPTED: Readonly<Record<string, ExportFormat>> = {
  "text/csv": "csv",
  "application/x-ndjson": "ndjson",
};

/**
 * The format a list request asks for: its `format` parameter (`json`, `csv`, `ndjson`, any case,
 * given once), else its `Accept` header when the media type it prefers most is `text/csv` or
 * `application/x-ndjson` (ties go to the one listed first), else `json`. Throws a 400
 * INVALID_PARAMETER for any other `format` value. `values` are the request's `format` values.
 */
export function exportFormatOf(values: readonly string[], accept: string | undefined): ExportFormat {
  if (values.length > 1) {
    throw new ApiError("INVALID_PARAMETER", {
      parameter: FORMAT_PARAMETER,
      detail: "The query parameter 'format' was given more than once; give it once.",
    });
  }
  if (values.length === 1) {
    const raw = values[0]!;
    const value = raw
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim()
      .toLowerCase();
    const format = FORMATS.find((candidate) => candidate === value);
    if (format === undefined) {
      throw new ApiError("INVALID_PARAMETER", {
        parameter: FORMAT_PARAMETER,
        detail: `The parameter 'format' must be 'json' (a page, the default), 'csv' or 'ndjson' (every matching record in one answer); got '${raw}'.`,
      });
    }
    return format;
  }
  return accept === undefined ? "json" : formatOfAccept(accept);
}

/**
 * The format a list request asks for (see `exportFormatOf`; `accept` is its Accept header, as
 * given once or several times), and its query pairs without `format`. With csv or ndjson, a paging
 * parameter (`isPaging`) is refused with 400 EXPORT_NOT_PAGED.
 */
export function exportRequestOf(
  pairs: ReadonlyArray<readonly [string, string]>,
  accept: string | readonly string[] | undefined,
  isPaging: (name: string) => boolean,
): { format: ExportFormat; pairs: Array<readonly [string, string]> } {
  const values = pairs.filter(([name]) => name === FORMAT_PARAMETER).map(([, value]) => value);
  const format = exportFormatOf(
    values,
    typeof accept === "string" || accept === undefined ? accept : accept.join(","),
  );
  const rest = pairs.filter(([name]) => name !== FORMAT_PARAMETER);
  if (format !== "json") {
    const paging = rest.find(([name]) => isPaging(name));
    if (paging) throw exportNotPaged(paging[0], format);
  }
  return { format, pairs: rest };
}

/** The format an Accept header prefers: the first of its highest-quality media types decides. */
function formatOfAccept(accept: string): ExportFormat {
  let best: { format: ExportFormat; quality: number } | undefined;
  for (const range of accept.split(",")) {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase());
    if (type === "") continue;
    let quality = 1;
    for (const parameter of parameters) {
      const match = /^q=([01](?:\.\d{0,3})?)$/.exec(parameter);
      if (match) quality = Number(match[1]);
    }
    if (quality <= 0) continue;
    const format = ACCEPTED[type] ?? "json";
    if (best === undefined || quality > best.quality) best = { format, quality };
  }
  return best?.format ?? "json";
}

/** The requests an export of `records` records costs: one per RECORDS_PER_EXPORT_REQUEST started, at least one. */
export function exportCostOf(records: number): number {
  return Math.max(1, Math.ceil(records / RECORDS_PER_EXPORT_REQUEST));
}

/** The 400 for a paging parameter given with an export format. */
export function exportNotPaged(parameter: string, format: ExportFormat): ApiError {
  return new ApiError("EXPORT_NOT_PAGED", {
    parameter,
    detail: `An export (format ${format}) holds every matching record in one answer, so it takes no paging parameter; remove '${parameter}'.`,
  });
}
