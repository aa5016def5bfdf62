import { ApiError } from "./api-error.js";
import {
  COUNT_OPTION_PARAMETERS,
  type CountOptions,
  PAGING_PARAMETERS,
  pagingRefused,
  parseCountBy,
  parseCountOptions,
} from "./count-options.js";
import type { FilterGroup } from "./notice-filter-node.js";
import { isNoticeParameterName } from "./notice-parameters.js";
import { parseNoticeQuery } from "./notice-query.js";

/** What notices are counted by: the year (`YYYY`) or the month (`YYYY-MM`) of their `date`. */
export const NOTICE_COUNT_FIELDS = ["year", "month"] as const;

export type NoticeCountField = (typeof NOTICE_COUNT_FIELDS)[number];

/** A validated `GET /v0/hsr-early-termination-notices/counts` request. */
export interface NoticeCountQuery extends CountOptions {
  by: [NoticeCountField];
  /** The notice list's filter, as the list parses it. */
  filter: FilterGroup;
}

/** List parameters that order or shape a page, which a counts answer has none of. */
const NOT_FOR_COUNTS = /^(?:sort_by|sort_order|sort\[.*|fields\[.*)$/;

/**
 * Whether the notice counts endpoint reads a parameter of this name (whatever its value): its own,
 * the list's filters, and the list's paging, sorting and fieldset parameters, which it refuses
 * rather than ignores.
 */
export function isNoticeCountParameterName(name: string): boolean {
  if ((COUNT_OPTION_PARAMETERS as readonly string[]).includes(name)) return true;
  if ((PAGING_PARAMETERS as readonly string[]).includes(name) || NOT_FOR_COUNTS.test(name)) return true;
  return isNoticeParameterName(name);
}

/**
 * Turns the raw query parameters of a notice counts request into a typed query, or throws an
 * ApiError (400): `by`, `min_count`, `limit` and `sort` (counts' own), and every filter of the
 * notice list (the Drupal `filter[...]` grammar and the plain parameters), parsed by the list's
 * parser so that its refusals are the list's. Paging, sorting and fieldset parameters are refused.
 */
export function parseNoticeCountQuery(params: ReadonlyArray<readonly [string, string]>): NoticeCountQuery {
  const own = new Map<string, string>();
  const listPairs: Array<readonly [string, string]> = [];
  for (const pair of params) {
    const [name, value] = pair;
    if ((PAGING_PARAMETERS as readonly string[]).includes(name)) throw pagingRefused(name);
    if (NOT_FOR_COUNTS.test(name)) {
      throw new ApiError("INVALID_PARAMETER", {
        parameter: name,
        detail: `The parameter '${name}' does not apply to counts: groups are ordered by 'sort' (-count or key) and show only their values and counts.`,
      });
    }
    if ((COUNT_OPTION_PARAMETERS as readonly string[]).includes(name)) {
      if (own.has(name)) {
        throw new ApiError("INVALID_PARAMETER", {
          parameter: name,
          detail: `The query parameter '${name}' was given more than once; give it once.`,
        });
      }
      own.set(name, value.trim());
    } else listPairs.push(pair);
  }
  const by = parseCountBy(own.get("by") || undefined, NOTICE_COUNT_FIELDS, 1);
  const filter = parseNoticeQuery(listPairs).filter;
  const options = parseCountOptions({
    minCount: own.get("min_count"),
    limit: own.get("limit"),
    sort: own.get("sort"),
  });
  return { by: [by[0]!], filter, ...options };
}
