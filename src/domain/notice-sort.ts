import { resolveFieldPath } from "./notice-field-path.js";
import type { NoticeFieldName } from "./notice-fields.js";
import {
  isParameterLeaf,
  leafValue,
  type ParameterTree,
  type PlainParameter,
  unquote,
} from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/** Sort keys a request may give; each field at most once. */
export const MAX_SORT_KEYS = 4;

export interface SortKey {
  /** A list field sorts by its first value. */
  field: NoticeFieldName;
  direction: "ASC" | "DESC";
}

/**
 * The sort of a notice list request, given in exactly one of three ways: `sort=-created,title`
 * (`text`), `sort[key][path]=...&sort[key][direction]=...` (`tree`), or the older API's `sort_by`
 * (created or changed) with `sort_order` (ASC or DESC; alone, it orders by created). Empty when
 * none is given (the store then orders newest first). Each field may be named once and at most
 * MAX_SORT_KEYS fields: a repeated field changes no order but multiplies the cost of every
 * comparison (200 repeats took seconds). Throws the 400 naming the first problem.
 */
export function parseNoticeSort(
  text: string | undefined,
  tree: ParameterTree,
  plain: ReadonlyMap<PlainParameter, string>,
): SortKey[] {
  const sortBy = plain.get("sort_by");
  const sortOrder = plain.get("sort_order");
  const given = [text !== undefined, tree.children.size > 0, sortBy !== undefined].filter(Boolean).length;
  if (given > 1) throw refuseNoticeQuery("sortGivenTwice", sortBy !== undefined ? "sort_by" : "sort");
  if (sortOrder !== undefined && (text !== undefined || tree.children.size > 0)) {
    throw refuseNoticeQuery("sortOrderWithoutSortBy", "sort_order");
  }
  if (text !== undefined) return bounded(sortFromText(text));
  if (tree.children.size > 0) return bounded(sortFromTree(tree));
  return bounded(olderApiSort(sortBy, sortOrder));
}

/** `sort=-created,title`: comma-separated paths, `-` for descending. */
function sortFromText(text: string): SortKey[] {
  return text.split(",").map((item) => {
    const trimmed = item.trim();
    const descending = trimmed.startsWith("-");
    const path = descending ? trimmed.slice(1) : trimmed;
    if (path === "") throw refuseNoticeQuery("sortFieldEmpty", "sort", { sort: text });
    return sortKey(path, descending ? "DESC" : "ASC", "sort");
  });
}

/** `sort[key][path]=...&sort[key][direction]=...`, keys in request order; the direction defaults to ASC. */
function sortFromTree(tree: ParameterTree): SortKey[] {
  const keys: SortKey[] = [];
  for (const [key, node] of tree.children) {
    const parameter = `sort[${key}]`;
    if (isParameterLeaf(node)) throw refuseNoticeQuery("sortNotKeys", parameter, { parameter });
    for (const [child] of node.children) {
      if (child !== "path" && child !== "direction") {
        throw refuseNoticeQuery("sortKeyUnknown", `${parameter}[${child}]`, { key: child });
      }
    }
    const pathNode = node.children.get("path");
    if (pathNode === undefined) throw refuseNoticeQuery("sortPathMissing", `${parameter}[path]`);
    const directionNode = node.children.get("direction");
    const direction =
      directionNode === undefined ? "ASC" : leafValue(directionNode, `${parameter}[direction]`).toUpperCase();
    if (direction !== "ASC" && direction !== "DESC") {
      throw refuseNoticeQuery("sortDirectionInvalid", `${parameter}[direction]`, { direction });
    }
    keys.push(sortKey(leafValue(pathNode, `${parameter}[path]`), direction, `${parameter}[path]`));
  }
  return keys;
}

/** `sort_by` (created, or changed/updated) with `sort_order`, DESC by default; neither: no sort. */
function olderApiSort(sortBy: string | undefined, sortOrder: string | undefined): SortKey[] {
  let direction: "ASC" | "DESC" = "DESC";
  if (sortOrder !== undefined) {
    const upper = unquote(sortOrder).toUpperCase();
    if (upper !== "ASC" && upper !== "DESC") {
      throw refuseNoticeQuery("sortOrderInvalid", "sort_order", { value: sortOrder });
    }
    direction = upper;
  }
  if (sortBy !== undefined) {
    const name = unquote(sortBy).toLowerCase();
    if (name !== "created" && name !== "changed" && name !== "updated") {
      throw refuseNoticeQuery("sortByInvalid", "sort_by", { value: sortBy });
    }
    return [{ field: name === "created" ? "created" : "updated", direction }];
  }
  return sortOrder === undefined ? [] : [{ field: "created", direction }];
}

function sortKey(path: string, direction: "ASC" | "DESC", parameter: string): SortKey {
  return { field: resolveFieldPath(path.trim(), parameter, "sorting"), direction };
}

/** Each field at most once, at most MAX_SORT_KEYS fields. */
function bounded(keys: SortKey[]): SortKey[] {
  const seen = new Set<NoticeFieldName>();
  for (const key of keys) {
    if (seen.has(key.field)) throw refuseNoticeQuery("sortFieldRepeated", "sort", { field: key.field });
    seen.add(key.field);
  }
  if (keys.length > MAX_SORT_KEYS) {
    throw refuseNoticeQuery("tooManySortKeys", "sort", { max: MAX_SORT_KEYS, count: keys.length });
  }
  return keys;
}
