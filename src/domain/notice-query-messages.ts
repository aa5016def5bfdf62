import { ApiError } from "./api-error.js";

/**
 * Every refusal of a notice list request, by message id: its error code and the text of its
 * `detail`, worded like Drupal's JSON:API messages where Drupal has one. `{name}` marks a value
 * filled in by `refuseNoticeQuery`; the filled-in values are never read again for placeholders.
 */
export const NOTICE_QUERY_MESSAGES = {
  // Parameters and the bracket tree
  nulCharacter: {
    code: "INVALID_PARAMETER",
    text: "Query parameters may not contain NUL characters.",
  },
  unknownParameter: {
    code: "UNKNOWN_PARAMETER",
    text: "The query parameter '{name}' is not supported. Accepted: filter[...], sort, sort[...], page[offset], page[limit], fields[early_termination_notice], {plain}, api_key.",
  },
  repeatedParameter: {
    code: "INVALID_PARAMETER",
    text: "The query parameter '{name}' was given more than once; give it once.",
  },
  valueAndKeys: {
    code: "INVALID_PARAMETER",
    text: "The query parameter '{name}' conflicts with '{other}': '{path}' cannot be both a value and a set of keys.",
  },
  keyMissing: {
    code: "INVALID_PARAMETER",
    text: "The query parameter '{name}' needs a key in brackets.",
  },
  notSingleValue: {
    code: "INVALID_FILTER",
    text: "The parameter {parameter} takes a single value, not a list.",
  },

  // Filter: conditions and groups
  tooManyConditions: {
    code: "INVALID_FILTER",
    text: "A request may hold at most {max} filter conditions and at most {max} filter groups.",
  },
  reservedGroupName: {
    code: "INVALID_FILTER",
    text: "The group name '{name}' is reserved.",
  },
  conditionNotKeys: {
    code: "INVALID_FILTER",
    text: "You must provide a valid filter condition. Check that you have set the required keys for your filter.",
  },
  conditionKeyUnknown: {
    code: "INVALID_FILTER",
    text: "Invalid filter key '{key}' in {parameter}: a condition takes path, operator, value and memberOf.",
  },
  pathMissing: {
    code: "INVALID_FILTER",
    text: "Filter parameter is missing a 'path' key.",
  },
  onlyKey: {
    code: "INVALID_FILTER",
    text: "{parameter} holds a {key}; it cannot also have the key '{other}'.",
  },
  groupNotKeys: {
    code: "INVALID_FILTER",
    text: "The filter group '{group}' needs {parameter}[conjunction]=AND or OR.",
  },
  groupKeyUnknown: {
    code: "INVALID_FILTER",
    text: "Invalid filter key '{key}' in {parameter}: a group takes conjunction and memberOf.",
  },
  conjunctionMissing: {
    code: "INVALID_FILTER",
    text: "Filter group '{group}' is missing a 'conjunction' key; give AND or OR.",
  },
  conjunctionInvalid: {
    code: "INVALID_FILTER",
    text: "The conjunction '{conjunction}' of filter group '{group}' is not allowed; use AND or OR.",
  },
  groupUndefined: {
    code: "INVALID_FILTER",
    text: "The filter group '{group}' named in {parameter}[memberOf] is not defined; define it with filter[{group}][group][conjunction]=AND or OR.",
  },
  groupTooDeep: {
    code: "INVALID_FILTER",
    text: "Filter groups may be nested at most {max} deep.",
  },
  groupCycle: {
    code: "INVALID_FILTER",
    text: "The filter group '{group}' is a member of itself through memberOf; groups must form a tree.",
  },
  groupEmpty: {
    code: "INVALID_FILTER",
    text: "The filter group '{group}' has no members; give conditions or groups memberOf '{group}', or leave the group out.",
  },

  // Filter: fields, operators and values
  filterFieldUnknown: {
    code: "INVALID_FILTER",
    text: "Invalid nested filtering. The field `{field}`, given in the path `{path}`, does not exist.",
  },
  operatorUnknown: {
    code: "INVALID_FILTER",
    text: "The '{operator}' operator is not allowed in a filter parameter.",
  },
  valueNotAllowed: {
    code: "INVALID_FILTER",
    text: "Filters using the '{operator}' operator should not provide a value.",
  },
  valueMissing: {
    code: "INVALID_FILTER",
    text: "Filter parameter is missing a 'value' key.",
  },
  valueNotList: {
    code: "INVALID_FILTER",
    text: "The parameter {parameter} takes a value, or a list as {parameter}[]=a&{parameter}[]=b.",
  },
  twoValuesNeeded: {
    code: "INVALID_FILTER",
    text: "The '{operator}' operator takes exactly two values, as {parameter}[]=low&{parameter}[]=high; got {count}.",
  },
  tooManyValues: {
    code: "INVALID_FILTER",
    text: "The '{operator}' operator takes at most {max} values; got {count}.",
  },
  oneValueNeeded: {
    code: "INVALID_FILTER",
    text: "The '{operator}' operator takes a single value; only IN, NOT IN, BETWEEN and NOT BETWEEN take several.",
  },
  textOperatorOnMoment: {
    code: "INVALID_FILTER",
    text: "The '{operator}' operator does not apply to `{field}`, which holds a moment; compare it with =, <>, <, <=, >, >=, IN or BETWEEN.",
  },
  dateValueInvalid: {
    code: "INVALID_FILTER",
    text: "The field `date` is compared as a date: give YYYY-MM-DD, such as 2011-04-11; got '{value}'. STARTS_WITH also takes a year or a month (2011, 2011-04).",
  },
  momentValueInvalid: {
    code: "INVALID_FILTER",
    text: "The field `{field}` holds a moment: give ISO 8601 (2013-09-24T20:05:39+00:00, 2013-09-24T20:05:39Z, 2013-09-24), or seconds since 1970; got '{value}'.",
  },

  // The spec's plain filter parameters
  keywordsEmpty: {
    code: "INVALID_PARAMETER",
    text: "The parameter '{name}' is empty; give words of the title, or leave it out.",
  },
  transactionNumberInvalid: {
    code: "INVALID_PARAMETER",
    text: "The parameter 'transaction_number' is a number, such as 20110718; got '{value}'.",
  },
  dateInvalid: {
    code: "INVALID_PARAMETER",
    text: "The parameter 'date' is a date as YYYY-MM-DD, such as 2011-04-11; got '{value}'.",
  },

  // Sort
  sortFieldUnknown: {
    code: "INVALID_SORT",
    text: "Invalid nested sorting. The field `{field}`, given in the path `{path}`, does not exist.",
  },
  sortFieldRepeated: {
    code: "INVALID_SORT",
    text: "The sort names the field '{field}' more than once; name each field once.",
  },
  tooManySortKeys: {
    code: "INVALID_SORT",
    text: "A request may sort by at most {max} fields; this one gives {count}.",
  },
  sortGivenTwice: {
    code: "INVALID_SORT",
    text: "Give the sort once: as sort=-created,title, as sort[key][path]=...&sort[key][direction]=..., or as sort_by with sort_order.",
  },
  sortOrderWithoutSortBy: {
    code: "INVALID_SORT",
    text: "The parameter 'sort_order' goes with 'sort_by'; with sort, give the direction there (sort=-created).",
  },
  sortFieldEmpty: {
    code: "INVALID_SORT",
    text: "The sort '{sort}' has an empty field name; give fields separated by commas, such as -created,title.",
  },
  sortNotKeys: {
    code: "INVALID_SORT",
    text: "Give {parameter}[path]=<field> and optionally {parameter}[direction]=ASC or DESC.",
  },
  sortKeyUnknown: {
    code: "INVALID_SORT",
    text: "Invalid sort key '{key}': a sort takes path and direction.",
  },
  sortPathMissing: {
    code: "INVALID_SORT",
    text: "You need to provide a field name for the sort parameter.",
  },
  sortDirectionInvalid: {
    code: "INVALID_SORT",
    text: "The sort direction must be ASC or DESC; got '{direction}'.",
  },
  sortOrderInvalid: {
    code: "INVALID_PARAMETER",
    text: "The parameter 'sort_order' must be ASC or DESC (any case); got '{value}'.",
  },
  sortByInvalid: {
    code: "INVALID_PARAMETER",
    text: "The parameter 'sort_by' must be 'created' or 'changed'; got '{value}'.",
  },

  // Paging
  pageKeyUnknown: {
    code: "INVALID_PAGE",
    text: "The paging parameter 'page[{key}]' does not exist; use page[offset] and page[limit].",
  },
  pageSizeGivenTwice: {
    code: "INVALID_PAGE",
    text: "Give the page size once: as page[limit] or as items_per_page.",
  },
  offsetGivenTwice: {
    code: "INVALID_PAGE",
    text: "Give the offset once: as page[offset] or as offset.",
  },
  pageSizeInvalid: {
    code: "INVALID_PAGE",
    text: "The page size needs to be a positive integer.",
  },
  pageSizeTooLarge: {
    code: "INVALID_PAGE",
    text: "The page size may be at most {max}; got {value}. Follow links.next for further pages.",
  },
  offsetInvalid: {
    code: "INVALID_PAGE",
    text: "The page offset needs to be a non-negative integer.",
  },

  // Sparse fieldsets
  fieldsetTypeUnknown: {
    code: "INVALID_PARAMETER",
    text: "This collection holds only the type 'early_termination_notice'; a sparse fieldset for '{type}' does not apply.",
  },
  fieldsetFieldUnknown: {
    code: "INVALID_PARAMETER",
    text: "The field '{field}' does not exist on early_termination_notice; fields are {fields}.",
  },
} as const satisfies Record<
  string,
  {
    code: "INVALID_PARAMETER" | "UNKNOWN_PARAMETER" | "INVALID_FILTER" | "INVALID_SORT" | "INVALID_PAGE";
    text: string;
  }
>;

/** The id of a notice query refusal. */
export type NoticeQueryMessageId = keyof typeof NOTICE_QUERY_MESSAGES;

/** The `{name}` placeholders of a template, as a union of names. */
type Placeholders<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The values a message needs: one per placeholder of its text, checked when compiling. */
export type NoticeQueryMessageValues<Id extends NoticeQueryMessageId> = Record<
  Placeholders<(typeof NOTICE_QUERY_MESSAGES)[Id]["text"]>,
  string | number
>;

/**
 * The refusal `id` of a notice list request, as the ApiError (400) to throw: the message's code,
 * `parameter` as its source, and its text with each `{name}` replaced by `values[name]`.
 */
export function refuseNoticeQuery<Id extends NoticeQueryMessageId>(
  id: Id,
  parameter: string,
  ...[values]: keyof NoticeQueryMessageValues<Id> extends never ? [] : [NoticeQueryMessageValues<Id>]
): ApiError {
  const message = NOTICE_QUERY_MESSAGES[id];
  const given = (values ?? {}) as Record<string, string | number>;
  const detail = message.text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in given ? String(given[name]) : whole,
  );
  return new ApiError(message.code, { parameter, detail });
}
