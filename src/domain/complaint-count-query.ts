import {
  COMPLAINT_PARAMETERS,
  type ComplaintFilters,
  readComplaintFilters,
  readComplaintParameters,
} from "./complaint-query.js";
import {
  COUNT_OPTION_PARAMETERS,
  type CountOptions,
  PAGING_PARAMETERS,
  pagingRefused,
  parseCountBy,
  parseCountOptions,
} from "./count-options.js";

/** The fields complaints are counted by, as `by` names them. */
export const COMPLAINT_COUNT_FIELDS = [
  "created_date",
  "violation_date",
  "state",
  "city",
  "area_code",
  "subject",
  "is_robocall",
  "company_phone_number",
] as const;

export type ComplaintCountField = (typeof COMPLAINT_COUNT_FIELDS)[number];

/** Each field's member in a group object: the record attribute that shows its value. */
export const COMPLAINT_COUNT_MEMBERS: Readonly<Record<ComplaintCountField, string>> = {
  created_date: "created-date",
  violation_date: "violation-date",
  state: "consumer-state",
  city: "consumer-city",
  area_code: "consumer-area-code",
  subject: "subject",
  is_robocall: "recorded-message-or-robocall",
  company_phone_number: "company-phone-number",
};

/** The complaint list's filters (`subject` among them), in any AND-combination. */
export type ComplaintCountFilters = ComplaintFilters;

/** A validated `GET /v0/dnc-complaints/counts` request. */
export interface ComplaintCountQuery extends CountOptions {
  by: ComplaintCountField[];
  filters: ComplaintCountFilters;
}

/** Parameters of the complaint counts endpoint, besides `api_key`. */
export const COMPLAINT_COUNT_PARAMETERS: readonly string[] = [
  ...COMPLAINT_PARAMETERS.filter(
    (name) => !["sort_by", "sort_order", "items_per_page", "offset"].includes(name),
  ),
  ...COUNT_OPTION_PARAMETERS,
];

/**
 * Whether the complaint counts endpoint reads a parameter of this name (whatever its value): its
 * own, and the list's paging parameters, which it refuses rather than ignores.
 */
export function isComplaintCountParameterName(name: string): boolean {
  return (
    name === "api_key" ||
    COMPLAINT_COUNT_PARAMETERS.includes(name) ||
    (PAGING_PARAMETERS as readonly string[]).includes(name)
  );
}

/**
 * Turns the raw query parameters of a complaint counts request into a typed query, or throws an
 * ApiError (400) as the complaint list does: the filters take the list's value syntax, but combine
 * freely (`city` alone matches that city in every state). Paging parameters are refused.
 */
export function parseComplaintCountQuery(
  params: ReadonlyArray<readonly [string, string]>,
): ComplaintCountQuery {
  const paging = params.find(([name]) => (PAGING_PARAMETERS as readonly string[]).includes(name));
  if (paging) throw pagingRefused(paging[0]);
  const values = readComplaintParameters(params, COMPLAINT_COUNT_PARAMETERS);
  const by = parseCountBy(values.get("by"), COMPLAINT_COUNT_FIELDS, 2);
  const filters: ComplaintCountFilters = {};
  readComplaintFilters(values, filters);
  const options = parseCountOptions({
    minCount: values.get("min_count"),
    limit: values.get("limit"),
    sort: values.get("sort"),
  });
  return { by, filters, ...options };
}
