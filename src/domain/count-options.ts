import { ApiError } from "./api-error.js";

/** The most groups one counts answer shows. */
export const MAX_COUNT_LIMIT = 100_000;

/** Groups shown when `limit` is not given. */
export const DEFAULT_COUNT_LIMIT = 1_000;

/**
 * How a counts answer orders its groups: `-count`, count descending with ties by key ascending;
 * `key`, ascending by the group's values in `by` order.
 */
export type CountSort = "-count" | "key";

/** What a counts request asks of its groups, besides what it counts and filters. */
export interface CountOptions {
  /** Groups with fewer complaints (notices) are left out, and not counted in `group-total`. */
  minCount: number;
  limit: number;
  sort: CountSort;
}

/** The parameters every counts endpoint takes besides `by` and the collection's filters. */
export const COUNT_OPTION_PARAMETERS = ["by", "min_count", "limit", "sort"] as const;

/** Paging parameters of the lists, which counts refuse (a counts answer is not paged). */
export const PAGING_PARAMETERS = ["offset", "items_per_page", "page[offset]", "page[limit]"] as const;

/** A 400 INVALID_PARAMETER naming the parameter and what is wrong with it. */
function invalid(parameter: string, detail: string): ApiError {
  return new ApiError("INVALID_PARAMETER", { parameter, detail });
}

/** `min_count`, `limit` and `sort`, given as their raw (unquoted) texts when present. */
export function parseCountOptions(values: {
  minCount?: string | undefined;
  limit?: string | undefined;
  sort?: string | undefined;
}): CountOptions {
  const options: CountOptions = { minCount: 1, limit: DEFAULT_COUNT_LIMIT, sort: "-count" };
  if (values.minCount !== undefined) {
    const parsed = wholeNumber(values.minCount);
    if (parsed === null || parsed < 1) {
      throw invalid(
        "min_count",
        `The parameter 'min_count' must be a whole number, 1 or more; got '${values.minCount}'.`,
      );
    }
    options.minCount = parsed;
  }
  if (values.limit !== undefined) {
    const parsed = wholeNumber(values.limit);
    if (parsed === null || parsed < 1 || parsed > MAX_COUNT_LIMIT) {
      throw invalid(
        "limit",
        `The parameter 'limit' must be a whole number from 1 to ${MAX_COUNT_LIMIT}; got '${values.limit}'.`,
      );
    }
    options.limit = parsed;
  }
  if (values.sort !== undefined) {
    if (values.sort !== "-count" && values.sort !== "key") {
      throw invalid(
        "sort",
        `The parameter 'sort' must be '-count' (most first, the default) or 'key' (by the groups' values); got '${values.sort}'.`,
      );
    }
    options.sort = values.sort;
  }
  return options;
}

/** The fields of `by`: one or two distinct names from `accepted`, comma-separated. */
export function parseCountBy<Field extends string>(
  text: string | undefined,
  accepted: readonly Field[],
  maxFields: number,
): Field[] {
  const choices = accepted.map((name) => `'${name}'`).join(", ");
  if (text === undefined) {
    throw invalid(
      "by",
      `The parameter 'by' is required: name ${maxFields === 1 ? "the field" : `one or ${maxFields === 2 ? "two" : maxFields} fields (comma-separated)`} to count by, from ${choices}.`,
    );
  }
  const names = text.split(",").map((name) => name.trim());
  if (names.length > maxFields) {
    throw invalid(
      "by",
      `The parameter 'by' takes at most ${maxFields === 1 ? "one field" : `${maxFields} fields`}; got '${text}'.`,
    );
  }
  const fields: Field[] = [];
  for (const name of names) {
    if (!(accepted as readonly string[]).includes(name)) {
      throw invalid(
        "by",
        `The parameter 'by' names '${name}', which cannot be counted by; choose from ${choices}.`,
      );
    }
    if ((fields as string[]).includes(name)) {
      throw invalid("by", `The parameter 'by' names '${name}' twice; name each field once.`);
    }
    fields.push(name as Field);
  }
  return fields;
}

/** A paging parameter given to a counts endpoint. */
export function pagingRefused(name: string): ApiError {
  return invalid(
    name,
    `The parameter '${name}' does not apply to counts: every group is in one answer (use 'limit' and 'min_count' to shorten it).`,
  );
}

function wholeNumber(text: string): number | null {
  if (!/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

/** One group of a counts answer: its values in `by` order (null for notices without a date), and its count. */
export interface CountGroup {
  values: Array<string | null>;
  count: number;
}

/** The groups of a counts answer and its totals, as the store computes them. */
export interface CountResult {
  /** Records matching the filters, whatever their group. */
  recordTotal: number;
  /** Groups with at least `minCount` records, before `limit`. */
  groupTotal: number;
  /** At most `limit` groups, in the requested order. */
  groups: CountGroup[];
}

/**
 * The body of a counts answer: one object per group with a member per `by` field (named by
 * `memberNames`, in `by` order) and `count`, then the totals and the request's own URL.
 */
export function countsDocument(
  by: readonly string[],
  memberNames: readonly string[],
  result: CountResult,
  selfUrl: string,
): string {
  const data = result.groups.map((group) => {
    const item: Record<string, string | number | null> = {};
    memberNames.forEach((name, index) => {
      item[name] = group.values[index] ?? null;
    });
    item.count = group.count;
    return item;
  });
  return JSON.stringify({
    data,
    meta: {
      by,
      "record-total": result.recordTotal,
      "group-total": result.groupTotal,
      "groups-this-page": data.length,
    },
    links: { self: selfUrl },
  });
}

/**
 * Orders groups as `sort` asks and keeps the first `limit` of those with at least `minCount`; the
 * one definition of the order, for every store that counts in memory. Values compare by code point
 * (as the databases' byte order compares UTF-8), null last.
 */
export function selectGroups(groups: CountGroup[], options: CountOptions): CountResult {
  let recordTotal = 0;
  const kept: CountGroup[] = [];
  for (const group of groups) {
    recordTotal += group.count;
    if (group.count >= options.minCount) kept.push(group);
  }
  const byKey = (left: CountGroup, right: CountGroup) => {
    for (let index = 0; index < left.values.length; index++) {
      const order = compareValues(left.values[index] ?? null, right.values[index] ?? null);
      if (order !== 0) return order;
    }
    return 0;
  };
  kept.sort(options.sort === "key" ? byKey : (left, right) => right.count - left.count || byKey(left, right));
  return { recordTotal, groupTotal: kept.length, groups: kept.slice(0, options.limit) };
}

/** Code-point order (UTF-16 code units misorder characters above U+FFFF), null after every text. */
export function compareValues(left: string | null, right: string | null): number {
  if (left === right) return 0;
  if (left === null) return 1;
  if (right === null) return -1;
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.codePointAt(index)!;
    const b = right.codePointAt(index)!;
    if (a !== b) return a - b;
    if (a > 0xffff) index++;
  }
  return left.length - right.length;
}
