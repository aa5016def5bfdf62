import { ApiError } from "./api-error.js";
import { matchKey } from "./complaint.js";
import { parseDate, parseDateTime, SECONDS_PER_DAY } from "./time.js";

/** An inclusive range of moments, in seconds. */
export interface TimeRange {
  from: number;
  to: number;
}

/** The filters of a complaint request. State and city are match keys (see `matchKey`). */
export interface ComplaintFilters {
  created?: TimeRange;
  violation?: TimeRange;
  state?: string;
  city?: string;
  areaCode?: string;
  robocall?: "Y" | "N";
  phone?: string;
  /** The subject's match key (`matchKey`: trimmed, lowercased): exact match, any case. */
  subject?: string;
}

/** A validated complaint list request. */
export interface ComplaintQuery extends ComplaintFilters {
  order: "ASC" | "DESC";
  limit: number;
  offset: number;
}

export const MAX_ITEMS_PER_PAGE = 50;

/** Parameters of `GET /v0/dnc-complaints`, besides `api_key`, which the gateway consumes. */
export const COMPLAINT_PARAMETERS = [
  "created_date",
  "created_date_from",
  "created_date_to",
  "violation_date",
  "violation_date_from",
  "violation_date_to",
  "state",
  "city",
  "area_code",
  "is_robocall",
  "company_phone_number",
  "subject",
  "sort_by",
  "sort_order",
  "items_per_page",
  "offset",
] as const;

export type ComplaintParameter = (typeof COMPLAINT_PARAMETERS)[number];
const KNOWN = new Set<string>(COMPLAINT_PARAMETERS);
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Whether a complaint list request takes a parameter of this name (whatever its value). */
export function isComplaintParameterName(name: string): boolean {
  return name === "api_key" || KNOWN.has(name);
}

/**
 * Turns the raw query parameters of a complaint list request into a typed query, or throws an
 * ApiError (400) naming the parameter and what it accepts. Nothing is silently ignored.
 */
export function parseComplaintQuery(params: ReadonlyArray<readonly [string, string]>): ComplaintQuery {
  // `format` is the route's (an export), read before this; the refusal names it all the same.
  const values = readComplaintParameters(params, COMPLAINT_PARAMETERS, ["format"]);
  const query: ComplaintQuery = { order: "DESC", limit: MAX_ITEMS_PER_PAGE, offset: 0 };
  readComplaintFilters(values, query);
  readOrderAndPage(values, query);
  return query;
}

/**
 * Reads the complaint list's filters from parameters read by `readComplaintParameters` into
 * `filters`, with the list's value syntax; throws the list's 400s.
 */
export function readComplaintFilters(values: ReadonlyMap<string, string>, filters: ComplaintFilters): void {
  const created = intersect(
    dayParameter(values, "created_date"),
    rangeParameters(values, "created_date_from", "created_date_to"),
  );
  if (created) filters.created = created;
  const violation = intersect(
    dayParameter(values, "violation_date"),
    rangeParameters(values, "violation_date_from", "violation_date_to"),
  );
  if (violation) filters.violation = violation;
  readPlaceFilters(values, filters);
  readCallerFilters(values, filters);
}

/**
 * The parameters by name, unquoted; names not in `accepted`, repeated, empty or control-character
 * values refused (`api_key` is skipped: the gateway consumes it). `acceptedElsewhere`: parameters
 * the request takes that were read before this, named in the refusal of an unknown one.
 */
export function readComplaintParameters(
  params: ReadonlyArray<readonly [string, string]>,
  accepted: readonly string[],
  acceptedElsewhere: readonly string[] = [],
): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, raw] of params) {
    if (name === "api_key") continue;
    if (!accepted.includes(name)) {
      throw new ApiError("UNKNOWN_PARAMETER", {
        parameter: name,
        detail: `The query parameter '${name}' is not supported. Accepted parameters: ${[...accepted, ...acceptedElsewhere].join(", ")}, api_key.`,
      });
    }
    const key = name;
    if (values.has(key)) {
      throw invalid(key, `The query parameter '${name}' was given more than once; give it once.`);
    }
    if (CONTROL_CHARACTER.test(raw)) {
      throw invalid(
        key,
        `The query parameter '${name}' contains a control character (such as NUL); no accepted value has one.`,
      );
    }
    const value = unquote(raw);
    if (value === "")
      throw invalid(key, `The query parameter '${name}' is empty; give it a value or leave it out.`);
    values.set(key, value);
  }
  return values;
}

/** `state`, `city` (in every state without `state`), `area_code` and `is_robocall`, in any combination. */
function readPlaceFilters(values: ReadonlyMap<string, string>, query: ComplaintFilters): void {
  const state = values.get("state");
  const city = values.get("city");
  const areaCode = values.get("area_code");
  const robocall = values.get("is_robocall");
  if (state !== undefined) query.state = matchKey(state);
  if (city !== undefined) query.city = matchKey(city);
  if (areaCode !== undefined) {
    if (!/^\d{1,4}$/.test(areaCode)) {
      throw invalid(
        "area_code",
        `The parameter 'area_code' must be a number of up to 4 digits, such as 202; got '${areaCode}'.`,
      );
    }
    query.areaCode = areaCode;
  }
  if (robocall !== undefined) {
    const lowered = robocall.toLowerCase();
    if (lowered !== "true" && lowered !== "false") {
      throw invalid(
        "is_robocall",
        `The parameter 'is_robocall' must be 'true' or 'false'; got '${robocall}'.`,
      );
    }
    query.robocall = lowered === "true" ? "Y" : "N";
  }
}

/**
 * `company_phone_number`: the caller's number, digits only; `subject`: any text (empty and control
 * characters are refused by `readComplaintParameters`), compared by its match key.
 */
function readCallerFilters(values: ReadonlyMap<string, string>, query: ComplaintFilters): void {
  const subject = values.get("subject");
  if (subject !== undefined) query.subject = matchKey(subject);
  const phone = values.get("company_phone_number");
  if (phone !== undefined) {
    if (!/^\d{1,20}$/.test(phone)) {
      throw invalid(
        "company_phone_number",
        `The parameter 'company_phone_number' must be the caller's number as digits only, such as 2025550123; got '${phone}'.`,
      );
    }
    query.phone = phone;
  }
}

/** `sort_by` (created_date only), `sort_order`, `items_per_page` and `offset`. */
function readOrderAndPage(values: ReadonlyMap<string, string>, query: ComplaintQuery): void {
  const sortBy = values.get("sort_by");
  if (sortBy !== undefined && !["created_date", "created-date"].includes(sortBy.toLowerCase())) {
    throw invalid("sort_by", `Complaints can only be sorted by 'created_date'; got '${sortBy}'.`);
  }
  const order = values.get("sort_order");
  if (order !== undefined) {
    const upper = order.toUpperCase();
    if (upper !== "ASC" && upper !== "DESC") {
      throw invalid(
        "sort_order",
        `The parameter 'sort_order' must be 'ASC' or 'DESC' (any case); got '${order}'.`,
      );
    }
    query.order = upper;
  }
  const limit = values.get("items_per_page");
  if (limit !== undefined) {
    const parsed = integer(limit);
    if (parsed === null || parsed < 1 || parsed > MAX_ITEMS_PER_PAGE) {
      throw invalid(
        "items_per_page",
        `The parameter 'items_per_page' must be a whole number from 1 to ${MAX_ITEMS_PER_PAGE}; got '${limit}'.`,
      );
    }
    query.limit = parsed;
  }
  const offset = values.get("offset");
  if (offset !== undefined) {
    const parsed = integer(offset);
    if (parsed === null || parsed < 0) {
      throw invalid("offset", `The parameter 'offset' must be a whole number, 0 or more; got '${offset}'.`);
    }
    query.offset = parsed;
  }
}

function invalid(parameter: string, detail: string): ApiError {
  return new ApiError("INVALID_PARAMETER", { parameter, detail });
}

/** Clients quote dates and names (`created_date="2021-07-07"`); one pair of quotes is removed. */
function unquote(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"'))
    return trimmed.slice(1, -1).trim();
  return trimmed;
}

function integer(text: string): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

function dayParameter(values: ReadonlyMap<string, string>, name: ComplaintParameter): TimeRange | undefined {
  const text = values.get(name);
  if (text === undefined) return undefined;
  const start = parseDate(text);
  if (start === null) {
    throw invalid(
      name,
      `The parameter '${name}' must be a date as YYYY-MM-DD, such as "2021-07-07"; got '${text}'.`,
    );
  }
  return { from: start, to: start + SECONDS_PER_DAY - 1 };
}

function rangeParameters(
  values: ReadonlyMap<string, string>,
  fromName: ComplaintParameter,
  toName: ComplaintParameter,
): TimeRange | undefined {
  const fromText = values.get(fromName);
  const toText = values.get(toName);
  if (fromText === undefined && toText === undefined) return undefined;
  if (fromText === undefined || toText === undefined) {
    const missing = fromText === undefined ? fromName : toName;
    const given = fromText === undefined ? toName : fromName;
    throw invalid(given, `The parameter '${given}' must be used together with '${missing}'.`);
  }
  const from = bound(fromName, fromText, "start");
  const to = bound(toName, toText, "end");
  if (from > to) {
    throw invalid(
      fromName,
      `The range is inverted: '${fromName}' (${fromText}) is after '${toName}' (${toText}).`,
    );
  }
  return { from, to };
}

/** A date-only bound covers its whole day: 00:00:00 for a start, 23:59:59 for an end. */
function bound(name: string, text: string, side: "start" | "end"): number {
  const day = parseDate(text);
  if (day !== null) return side === "start" ? day : day + SECONDS_PER_DAY - 1;
  const moment = parseDateTime(text);
  if (moment === null) {
    throw invalid(
      name,
      `The parameter '${name}' must be a date as YYYY-MM-DD or a time as "YYYY-MM-DD HH:MM:SS"; got '${text}'.`,
    );
  }
  return moment;
}

/** Both a day and a range may be given; a record must satisfy both. An empty intersection stays empty. */
function intersect(a: TimeRange | undefined, b: TimeRange | undefined): TimeRange | undefined {
  if (!a) return b;
  if (!b) return a;
  return { from: Math.max(a.from, b.from), to: Math.min(a.to, b.to) };
}
