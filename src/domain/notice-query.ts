import { MAX_CONDITIONS, parseNoticeFilter, plainNoticeFilters } from "./notice-filter.js";
import type { FilterGroup } from "./notice-filter-node.js";
import { type NoticeFieldset, parseNoticeFieldset, parseNoticePage } from "./notice-page.js";
import { readNoticeParameters } from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";
import { parseNoticeSort, type SortKey } from "./notice-sort.js";

/*
 * The parse of a notice list request, in steps, each in its own file: the parameters into
 * bracket trees (notice-parameters.ts), the filter (notice-filter.ts, bracket groups and the plain
 * parameters, with each condition in notice-filter-condition.ts), the sort (notice-sort.ts), and
 * the page with its sparse fieldset (notice-page.ts). Every refusal's text is in
 * notice-query-messages.ts. The types and
 * bounds are exported here too, so that callers import one module.
 */
export { MAX_CONDITIONS, MAX_GROUP_DEPTH } from "./notice-filter.js";
export { MAX_LIST_VALUES } from "./notice-filter-condition.js";
export {
  type FilterCondition,
  type FilterGroup,
  type FilterNode,
  OPERATORS,
  type Operator,
} from "./notice-filter-node.js";
export { MAX_PAGE_LIMIT } from "./notice-page.js";
export { MAX_SORT_KEYS, type SortKey } from "./notice-sort.js";

/** A validated notice list request. `filter` is the root group (AND), possibly empty. */
export interface NoticeQuery {
  filter: FilterGroup;
  /** Empty: newest first by `created`. Ties are always broken by id. */
  sort: SortKey[];
  offset: number;
  limit: number;
  /** Sparse fieldset: the attributes and relationships to show; undefined shows all. */
  fields: NoticeFieldset;
}

/**
 * Turns the raw query parameters of a notice list request into a typed query, or throws an ApiError
 * (400) worded like Drupal's JSON:API messages where Drupal has one. Accepts Drupal's parameter
 * families (`filter`, `sort`, `page`, `fields`) and the spec's plain parameters; nothing is
 * silently ignored or capped. Problems are looked for in this order, and the first is reported:
 * the parameters themselves, the filter, the plain filters, the sort, the page, the fieldset.
 */
export function parseNoticeQuery(params: ReadonlyArray<readonly [string, string]>): NoticeQuery {
  const parameters = readNoticeParameters(params);
  const filter = parseNoticeFilter(parameters.filter);
  filter.members.push(...plainNoticeFilters(parameters.plain));
  if (filter.members.length > MAX_CONDITIONS) {
    throw refuseNoticeQuery("tooManyConditions", "filter", { max: MAX_CONDITIONS });
  }
  const sort = parseNoticeSort(parameters.sortText, parameters.sort, parameters.plain);
  const page = parseNoticePage(parameters.page, parameters.plain);
  return {
    filter,
    sort,
    offset: page.offset,
    limit: page.limit,
    fields: parseNoticeFieldset(parameters.fields),
  };
}
