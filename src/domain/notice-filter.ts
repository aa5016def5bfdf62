import { isCalendarDate } from "./notice.js";
import { parseFilterCondition } from "./notice-filter-condition.js";
import type { FilterCondition, FilterGroup } from "./notice-filter-node.js";
import {
  isParameterLeaf,
  leafValue,
  type ParameterNode,
  type ParameterTree,
  type PlainParameter,
  unquote,
} from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/** Bounds that keep any query string's SQL small, whatever a client sends. */
export const MAX_CONDITIONS = 64;
export const MAX_GROUP_DEPTH = 8;

/** The name of the root group, which conditions and groups without memberOf belong to. */
const ROOT = "@root";

interface PendingGroup {
  name: string;
  memberOf: string;
  node: FilterGroup;
  parameter: string;
}

interface PendingCondition {
  memberOf: string;
  node: FilterCondition;
  parameter: string;
}

const CONDITION_KEYS = new Set(["path", "operator", "value", "memberOf"]);
const GROUP_KEYS = new Set(["conjunction", "memberOf"]);

/**
 * The `filter[...]` family as a tree of conditions and groups under a root AND group, in Drupal's
 * forms: the shorthand `filter[field]=value`, `filter[key][condition][path|operator|value|memberOf]`
 * (or the same keys without `[condition]`, the key then being the default path), and
 * `filter[key][group][conjunction|memberOf]`. Members keep the request's order, groups before
 * conditions. Throws the 400 for anything else: unknown keys, undefined or cyclic memberOf, empty
 * groups, more than MAX_CONDITIONS conditions or groups, or nesting deeper than MAX_GROUP_DEPTH.
 */
export function parseNoticeFilter(tree: ParameterTree): FilterGroup {
  const root: FilterGroup = { kind: "group", conjunction: "AND", members: [] };
  const groups = new Map<string, PendingGroup>();
  const conditions: PendingCondition[] = [];
  for (const [key, item] of tree.children) {
    const parameter = `filter[${key}]`;
    if (isParameterLeaf(item)) {
      const node = parseFilterCondition(key, "=", item, parameter, parameter);
      conditions.push({ memberOf: ROOT, parameter, node });
    } else if (item.children.has("group")) {
      onlyKey(item, "group");
      if (key === ROOT) throw refuseNoticeQuery("reservedGroupName", parameter, { name: ROOT });
      groups.set(key, pendingGroup(key, item.children.get("group")!, `${parameter}[group]`));
    } else {
      conditions.push(pendingCondition(key, item, parameter));
    }
  }
  if (conditions.length > MAX_CONDITIONS || groups.size > MAX_CONDITIONS) {
    throw refuseNoticeQuery("tooManyConditions", "filter", { max: MAX_CONDITIONS });
  }
  attachMembers(root, groups, conditions);
  checkGroupTree(root, groups);
  return root;
}

/** `filter[key][...]` that is not a group: a condition, with `[condition]` or without. */
function pendingCondition(key: string, item: ParameterTree, parameter: string): PendingCondition {
  let body = item;
  let bodyParameter = parameter;
  let defaultPath: string | undefined = key;
  if (item.children.has("condition")) {
    onlyKey(item, "condition");
    const inner = item.children.get("condition")!;
    bodyParameter = `${parameter}[condition]`;
    if (isParameterLeaf(inner)) throw refuseNoticeQuery("conditionNotKeys", bodyParameter);
    body = inner;
    defaultPath = undefined;
  }
  for (const [child] of body.children) {
    if (!CONDITION_KEYS.has(child)) {
      throw refuseNoticeQuery("conditionKeyUnknown", `${bodyParameter}[${child}]`, {
        key: child,
        parameter: bodyParameter,
      });
    }
  }
  const pathNode = body.children.get("path");
  const path = pathNode === undefined ? defaultPath : leafValue(pathNode, `${bodyParameter}[path]`);
  if (path === undefined) throw refuseNoticeQuery("pathMissing", `${bodyParameter}[path]`);
  const operatorNode = body.children.get("operator");
  const operatorText =
    operatorNode === undefined ? "=" : leafValue(operatorNode, `${bodyParameter}[operator]`);
  const memberNode = body.children.get("memberOf");
  const memberOf = memberNode === undefined ? ROOT : leafValue(memberNode, `${bodyParameter}[memberOf]`);
  const pathParameter = pathNode === undefined ? parameter : `${bodyParameter}[path]`;
  return {
    memberOf,
    parameter: bodyParameter,
    node: parseFilterCondition(path, operatorText, body.children.get("value"), bodyParameter, pathParameter),
  };
}

/** `filter[name][group]`: its conjunction and the group it belongs to. */
function pendingGroup(name: string, node: ParameterNode, parameter: string): PendingGroup {
  if (isParameterLeaf(node)) throw refuseNoticeQuery("groupNotKeys", parameter, { group: name, parameter });
  for (const [child] of node.children) {
    if (!GROUP_KEYS.has(child)) {
      throw refuseNoticeQuery("groupKeyUnknown", `${parameter}[${child}]`, { key: child, parameter });
    }
  }
  const conjunctionNode = node.children.get("conjunction");
  if (conjunctionNode === undefined) {
    throw refuseNoticeQuery("conjunctionMissing", `${parameter}[conjunction]`, { group: name });
  }
  const conjunction = leafValue(conjunctionNode, `${parameter}[conjunction]`).toUpperCase();
  if (conjunction !== "AND" && conjunction !== "OR") {
    throw refuseNoticeQuery("conjunctionInvalid", `${parameter}[conjunction]`, {
      conjunction: leafValue(conjunctionNode, parameter),
      group: name,
    });
  }
  const memberNode = node.children.get("memberOf");
  return {
    name,
    memberOf: memberNode === undefined ? ROOT : leafValue(memberNode, `${parameter}[memberOf]`),
    node: { kind: "group", conjunction, members: [] },
    parameter,
  };
}

/** Refuses any key of `item` besides `key` (a condition or group holds nothing else). */
function onlyKey(item: ParameterTree, key: string): void {
  for (const [child] of item.children) {
    if (child !== key) {
      throw refuseNoticeQuery("onlyKey", `${item.name}[${child}]`, {
        parameter: item.name,
        key,
        other: child,
      });
    }
  }
}

/** Puts each group, then each condition, into the group its memberOf names. */
function attachMembers(
  root: FilterGroup,
  groups: ReadonlyMap<string, PendingGroup>,
  conditions: readonly PendingCondition[],
): void {
  const parentOf = (memberOf: string, parameter: string): FilterGroup => {
    if (memberOf === ROOT) return root;
    const parent = groups.get(memberOf);
    if (!parent) {
      throw refuseNoticeQuery("groupUndefined", `${parameter}[memberOf]`, { group: memberOf, parameter });
    }
    return parent.node;
  };
  for (const pending of groups.values())
    parentOf(pending.memberOf, pending.parameter).members.push(pending.node);
  for (const pending of conditions) parentOf(pending.memberOf, pending.parameter).members.push(pending.node);
}

/** Groups must hang from the root (no memberOf cycle), not too deep, and each hold a member. */
function checkGroupTree(root: FilterGroup, groups: ReadonlyMap<string, PendingGroup>): void {
  const reached = new Set<FilterGroup>();
  const walk = (node: FilterGroup, depth: number): void => {
    if (depth > MAX_GROUP_DEPTH) throw refuseNoticeQuery("groupTooDeep", "filter", { max: MAX_GROUP_DEPTH });
    reached.add(node);
    for (const member of node.members) if (member.kind === "group") walk(member, depth + 1);
  };
  walk(root, 0);
  for (const pending of groups.values()) {
    if (!reached.has(pending.node)) {
      throw refuseNoticeQuery("groupCycle", `${pending.parameter}[memberOf]`, { group: pending.name });
    }
    if (pending.node.members.length === 0) {
      throw refuseNoticeQuery("groupEmpty", pending.parameter, { group: pending.name });
    }
  }
}

/**
 * The spec's plain filter parameters as conditions for the root group, in this order: each word
 * of `title`, then of `keywords` (a double-quoted phrase stays one) as title CONTAINS;
 * `transaction_number` as equal digits; `date` as an equal calendar date (quotes allowed). Throws
 * the 400 for an empty keyword text, a transaction number that is not digits, or a bad date.
 */
export function plainNoticeFilters(plain: ReadonlyMap<PlainParameter, string>): FilterCondition[] {
  const conditions: FilterCondition[] = [];
  for (const name of ["title", "keywords"] as const) {
    const text = plain.get(name);
    if (text === undefined) continue;
    const words = keywords(text);
    if (words.length === 0) throw refuseNoticeQuery("keywordsEmpty", name, { name });
    for (const word of words)
      conditions.push({ kind: "condition", field: "title", operator: "CONTAINS", values: [word] });
  }
  const transaction = plain.get("transaction_number");
  if (transaction !== undefined) {
    if (!/^\d{1,20}$/.test(transaction.trim())) {
      throw refuseNoticeQuery("transactionNumberInvalid", "transaction_number", { value: transaction });
    }
    conditions.push({
      kind: "condition",
      field: "transaction-number",
      operator: "=",
      values: [transaction.trim()],
    });
  }
  const date = plain.get("date");
  if (date !== undefined) {
    const text = unquote(date);
    if (!isCalendarDate(text)) throw refuseNoticeQuery("dateInvalid", "date", { value: date });
    conditions.push({ kind: "condition", field: "date", operator: "=", values: [text] });
  }
  return conditions;
}

/** Words of a keyword search; a double-quoted phrase stays one. */
function keywords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|([^\s"]+)/g)) {
    const word = (match[1] ?? match[2] ?? "").trim();
    if (word !== "") words.push(word);
  }
  return words;
}
