import { ApiError } from "./api-error.js";
import { isCalendarDate, parseTimestamp } from "./notice.js";
import {
  type FieldKind,
  isNoticeField,
  NOTICE_ATTRIBUTE_NAMES,
  NOTICE_FIELDS,
  NOTICE_RELATIONSHIP_NAMES,
  type NoticeAttributeName,
  type NoticeFieldName,
} from "./notice-fields.js";

/** Drupal's filter operators, all of them. */
export const OPERATORS = [
  "=",
  "<>",
  ">",
  ">=",
  "<",
  "<=",
  "STARTS_WITH",
  "CONTAINS",
  "ENDS_WITH",
  "IN",
  "NOT IN",
  "BETWEEN",
  "NOT BETWEEN",
  "IS NULL",
  "IS NOT NULL",
] as const;

export type Operator = (typeof OPERATORS)[number];

/**
 * One condition. `values` holds what the operator takes: none for IS NULL / IS NOT NULL, two for
 * BETWEEN, one or more for IN, one otherwise. Timestamps are seconds; everything else is text.
 */
export interface FilterCondition {
  kind: "condition";
  field: NoticeFieldName;
  operator: Operator;
  values: Array<string | number>;
}

export interface FilterGroup {
  kind: "group";
  conjunction: "AND" | "OR";
  members: FilterNode[];
}

export type FilterNode = FilterCondition | FilterGroup;

export interface SortKey {
  /** A list field sorts by its first value. */
  field: NoticeFieldName;
  direction: "ASC" | "DESC";
}

/** A validated notice list request. `filter` is the root group (AND), possibly empty. */
export interface NoticeQuery {
  filter: FilterGroup;
  /** Empty: newest first by `created`. Ties are always broken by id. */
  sort: SortKey[];
  offset: number;
  limit: number;
  /** Sparse fieldset: the attributes and relationships to show; undefined shows all. */
  fields: ReadonlyArray<NoticeAttributeName | "node_type"> | undefined;
}

export const MAX_PAGE_LIMIT = 50;
/** Bounds that keep any query string's SQL small, whatever a client sends. */
export const MAX_CONDITIONS = 64;
export const MAX_GROUP_DEPTH = 8;
export const MAX_LIST_VALUES = 200;
/** Sort keys a request may give; each field at most once. */
export const MAX_SORT_KEYS = 4;

const ROOT = "@root";
/** The spec's plain parameters and the older API's names. */
const PLAIN_PARAMETERS = [
  "title",
  "keywords",
  "transaction_number",
  "date",
  "sort_by",
  "sort_order",
  "items_per_page",
  "offset",
] as const;
type PlainParameter = (typeof PLAIN_PARAMETERS)[number];
const PLAIN = new Set<string>(PLAIN_PARAMETERS);
const NAME_PATTERN = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/** A bracketed parameter family read into a tree: `filter[a][b]=v` sets tree.a.b = v. */
interface Tree {
  children: Map<string, Tree | Leaf>;
  /** The parameter name up to this node, for error sources. */
  name: string;
}
interface Leaf {
  value: string;
  name: string;
}

function isLeaf(node: Tree | Leaf): node is Leaf {
  return "value" in node;
}

/**
 * Turns the raw query parameters of a notice list request into a typed query, or throws an ApiError
 * (400) worded like Drupal's JSON:API messages where Drupal has one. Accepts Drupal's parameter
 * families (`filter`, `sort`, `page`, `fields`) and the spec's plain parameters; nothing is
 * silently ignored or capped.
 */
export function parseNoticeQuery(params: ReadonlyArray<readonly [string, string]>): NoticeQuery {
  const filterTree: Tree = { children: new Map(), name: "filter" };
  const sortTree: Tree = { children: new Map(), name: "sort" };
  const pageTree: Tree = { children: new Map(), name: "page" };
  const fieldsTree: Tree = { children: new Map(), name: "fields" };
  const plain = new Map<PlainParameter, string>();
  let sortText: string | undefined;

  for (const [name, value] of params) {
    if (name === "api_key") continue;
    if (name.includes("\u0000") || value.includes("\u0000")) {
      throw invalid("INVALID_PARAMETER", safeName(name), "Query parameters may not contain NUL characters.");
    }
    const match = NAME_PATTERN.exec(name);
    const base = match?.[1];
    const segments = match?.[2] ? [...match[2].matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!) : [];
    if (!match || base === undefined) throw unknownParameter(name);
    if (segments.length === 0) {
      if (base === "sort") {
        if (sortText !== undefined) throw repeated(name);
        sortText = value;
        continue;
      }
      if (PLAIN.has(base)) {
        const key = base as PlainParameter;
        if (plain.has(key)) throw repeated(name);
        plain.set(key, value);
        continue;
      }
      throw unknownParameter(name);
    }
    const tree =
      base === "filter"
        ? filterTree
        : base === "sort"
          ? sortTree
          : base === "page"
            ? pageTree
            : base === "fields"
              ? fieldsTree
              : undefined;
    if (!tree) throw unknownParameter(name);
    place(tree, segments, value, name);
  }

  const query: NoticeQuery = {
    filter: buildFilter(filterTree),
    sort: [],
    offset: 0,
    limit: MAX_PAGE_LIMIT,
    fields: undefined,
  };
  applyPlainFilters(query.filter, plain);
  if (query.filter.members.length > MAX_CONDITIONS) {
    throw invalid(
      "INVALID_FILTER",
      "filter",
      `A request may hold at most ${MAX_CONDITIONS} filter conditions.`,
    );
  }
  query.sort = boundedSort(buildSort(sortText, sortTree, plain));
  const page = buildPage(pageTree, plain);
  query.offset = page.offset;
  query.limit = page.limit;
  query.fields = buildFields(fieldsTree);
  return query;
}

function safeName(name: string): string {
  return name.replaceAll("\u0000", "");
}

function invalid(
  code: "INVALID_PARAMETER" | "INVALID_FILTER" | "INVALID_SORT" | "INVALID_PAGE",
  parameter: string,
  detail: string,
): ApiError {
  return new ApiError(code, { parameter, detail });
}

function unknownParameter(name: string): ApiError {
  return new ApiError("UNKNOWN_PARAMETER", {
    parameter: name,
    detail: `The query parameter '${name}' is not supported. Accepted: filter[...], sort, sort[...], page[offset], page[limit], fields[early_termination_notice], ${PLAIN_PARAMETERS.join(", ")}, api_key.`,
  });
}

function repeated(name: string): ApiError {
  return invalid(
    "INVALID_PARAMETER",
    name,
    `The query parameter '${name}' was given more than once; give it once.`,
  );
}

/** Stores `value` at `segments` below `tree`; `[]` appends to a list. */
function place(tree: Tree, segments: string[], value: string, name: string): void {
  let node = tree;
  let path = tree.name;
  for (let index = 0; index < segments.length; index++) {
    let segment = segments[index]!;
    if (segment === "") segment = String(node.children.size);
    path += `[${segment}]`;
    const last = index === segments.length - 1;
    const existing = node.children.get(segment);
    if (last) {
      if (existing !== undefined) throw repeated(name);
      node.children.set(segment, { value, name });
      return;
    }
    if (existing === undefined) {
      const child: Tree = { children: new Map(), name: path };
      node.children.set(segment, child);
      node = child;
    } else if (isLeaf(existing)) {
      throw invalid(
        "INVALID_PARAMETER",
        name,
        `The query parameter '${name}' conflicts with '${existing.name}': '${path}' cannot be both a value and a set of keys.`,
      );
    } else {
      node = existing;
    }
  }
  throw invalid("INVALID_PARAMETER", name, `The query parameter '${name}' needs a key in brackets.`);
}

// ---------------------------------------------------------------------------------------------
// Filters

interface PendingGroup {
  name: string;
  conjunction: "AND" | "OR";
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

function buildFilter(tree: Tree): FilterGroup {
  const root: FilterGroup = { kind: "group", conjunction: "AND", members: [] };
  const groups = new Map<string, PendingGroup>();
  const conditions: PendingCondition[] = [];
  for (const [key, item] of tree.children) {
    const parameter = `filter[${key}]`;
    if (isLeaf(item)) {
      conditions.push({ memberOf: ROOT, parameter, node: condition(key, "=", item, parameter, parameter) });
      continue;
    }
    if (item.children.has("group")) {
      onlyKey(item, "group");
      if (key === ROOT) throw invalid("INVALID_FILTER", parameter, `The group name '${ROOT}' is reserved.`);
      groups.set(key, group(key, item.children.get("group")!, `${parameter}[group]`));
      continue;
    }
    let body: Tree = item;
    let bodyParameter = parameter;
    let defaultPath: string | undefined = key;
    if (item.children.has("condition")) {
      onlyKey(item, "condition");
      const inner = item.children.get("condition")!;
      bodyParameter = `${parameter}[condition]`;
      if (isLeaf(inner)) {
        throw invalid(
          "INVALID_FILTER",
          bodyParameter,
          "You must provide a valid filter condition. Check that you have set the required keys for your filter.",
        );
      }
      body = inner;
      defaultPath = undefined;
    }
    for (const [child] of body.children) {
      if (!CONDITION_KEYS.has(child)) {
        throw invalid(
          "INVALID_FILTER",
          `${bodyParameter}[${child}]`,
          `Invalid filter key '${child}' in ${bodyParameter}: a condition takes path, operator, value and memberOf.`,
        );
      }
    }
    const pathNode = body.children.get("path");
    const path = pathNode === undefined ? defaultPath : leafValue(pathNode, `${bodyParameter}[path]`);
    if (path === undefined) {
      throw invalid("INVALID_FILTER", `${bodyParameter}[path]`, "Filter parameter is missing a 'path' key.");
    }
    const operatorNode = body.children.get("operator");
    const operatorText =
      operatorNode === undefined ? "=" : leafValue(operatorNode, `${bodyParameter}[operator]`);
    const memberNode = body.children.get("memberOf");
    const memberOf = memberNode === undefined ? ROOT : leafValue(memberNode, `${bodyParameter}[memberOf]`);
    conditions.push({
      memberOf,
      parameter: bodyParameter,
      node: condition(
        path,
        operatorText,
        body.children.get("value"),
        bodyParameter,
        pathNode === undefined ? parameter : `${bodyParameter}[path]`,
      ),
    });
  }
  if (conditions.length > MAX_CONDITIONS || groups.size > MAX_CONDITIONS) {
    throw invalid(
      "INVALID_FILTER",
      "filter",
      `A request may hold at most ${MAX_CONDITIONS} filter conditions.`,
    );
  }

  const parentOf = (memberOf: string, parameter: string): FilterGroup => {
    if (memberOf === ROOT) return root;
    const parent = groups.get(memberOf);
    if (!parent) {
      throw invalid(
        "INVALID_FILTER",
        `${parameter}[memberOf]`,
        `The filter group '${memberOf}' named in ${parameter}[memberOf] is not defined; define it with filter[${memberOf}][group][conjunction]=AND or OR.`,
      );
    }
    return parent.node;
  };
  for (const pending of groups.values())
    parentOf(pending.memberOf, pending.parameter).members.push(pending.node);
  for (const pending of conditions) parentOf(pending.memberOf, pending.parameter).members.push(pending.node);

  const reached = new Set<FilterGroup>();
  const walk = (node: FilterGroup, depth: number): void => {
    if (depth > MAX_GROUP_DEPTH) {
      throw invalid(
        "INVALID_FILTER",
        "filter",
        `Filter groups may be nested at most ${MAX_GROUP_DEPTH} deep.`,
      );
    }
    reached.add(node);
    for (const member of node.members) if (member.kind === "group") walk(member, depth + 1);
  };
  walk(root, 0);
  for (const pending of groups.values()) {
    if (!reached.has(pending.node)) {
      throw invalid(
        "INVALID_FILTER",
        `${pending.parameter}[memberOf]`,
        `The filter group '${pending.name}' is a member of itself through memberOf; groups must form a tree.`,
      );
    }
    if (pending.node.members.length === 0) {
      throw invalid(
        "INVALID_FILTER",
        pending.parameter,
        `The filter group '${pending.name}' has no members; give conditions or groups memberOf '${pending.name}', or leave the group out.`,
      );
    }
  }
  return root;
}

function onlyKey(item: Tree, key: string): void {
  for (const [child] of item.children) {
    if (child !== key) {
      throw invalid(
        "INVALID_FILTER",
        `${item.name}[${child}]`,
        `${item.name} holds a ${key}; it cannot also have the key '${child}'.`,
      );
    }
  }
}

function leafValue(node: Tree | Leaf, parameter: string): string {
  if (!isLeaf(node)) {
    throw invalid(
      "INVALID_FILTER",
      parameter,
      `The parameter ${parameter} takes a single value, not a list.`,
    );
  }
  return node.value;
}

function group(name: string, node: Tree | Leaf, parameter: string): PendingGroup {
  if (isLeaf(node)) {
    throw invalid(
      "INVALID_FILTER",
      parameter,
      `The filter group '${name}' needs ${parameter}[conjunction]=AND or OR.`,
    );
  }
  for (const [child] of node.children) {
    if (!GROUP_KEYS.has(child)) {
      throw invalid(
        "INVALID_FILTER",
        `${parameter}[${child}]`,
        `Invalid filter key '${child}' in ${parameter}: a group takes conjunction and memberOf.`,
      );
    }
  }
  const conjunctionNode = node.children.get("conjunction");
  if (conjunctionNode === undefined) {
    throw invalid(
      "INVALID_FILTER",
      `${parameter}[conjunction]`,
      `Filter group '${name}' is missing a 'conjunction' key; give AND or OR.`,
    );
  }
  const conjunction = leafValue(conjunctionNode, `${parameter}[conjunction]`).toUpperCase();
  if (conjunction !== "AND" && conjunction !== "OR") {
    throw invalid(
      "INVALID_FILTER",
      `${parameter}[conjunction]`,
      `The conjunction '${leafValue(conjunctionNode, parameter)}' of filter group '${name}' is not allowed; use AND or OR.`,
    );
  }
  const memberNode = node.children.get("memberOf");
  return {
    name,
    conjunction,
    memberOf: memberNode === undefined ? ROOT : leafValue(memberNode, `${parameter}[memberOf]`),
    node: { kind: "group", conjunction, members: [] },
    parameter,
  };
}

function condition(
  path: string,
  operatorText: string,
  valueNode: Tree | Leaf | undefined,
  parameter: string,
  pathParameter: string,
): FilterCondition {
  const field = resolveField(path, pathParameter, "filtering");
  const operator = OPERATORS.find((candidate) => candidate === operatorText.toUpperCase().trim());
  if (!operator) {
    throw invalid(
      "INVALID_FILTER",
      `${parameter}[operator]`,
      `The '${operatorText}' operator is not allowed in a filter parameter.`,
    );
  }
  if (operator === "IS NULL" || operator === "IS NOT NULL") {
    if (valueNode !== undefined) {
      throw invalid(
        "INVALID_FILTER",
        `${parameter}[value]`,
        `Filters using the '${operator}' operator should not provide a value.`,
      );
    }
    return { kind: "condition", field, operator, values: [] };
  }
  if (valueNode === undefined) {
    throw invalid("INVALID_FILTER", `${parameter}[value]`, "Filter parameter is missing a 'value' key.");
  }
  const texts = valueList(valueNode, `${parameter}[value]`);
  const valueParameter = `${parameter}[value]`;
  if (operator === "BETWEEN" || operator === "NOT BETWEEN") {
    if (texts.length !== 2) {
      throw invalid(
        "INVALID_FILTER",
        valueParameter,
        `The '${operator}' operator takes exactly two values, as ${valueParameter}[]=low&${valueParameter}[]=high; got ${texts.length}.`,
      );
    }
  } else if (operator === "IN" || operator === "NOT IN") {
    if (texts.length > MAX_LIST_VALUES) {
      throw invalid(
        "INVALID_FILTER",
        valueParameter,
        `The '${operator}' operator takes at most ${MAX_LIST_VALUES} values; got ${texts.length}.`,
      );
    }
  } else if (texts.length !== 1 || !isLeaf(valueNode)) {
    throw invalid(
      "INVALID_FILTER",
      valueParameter,
      `The '${operator}' operator takes a single value; only IN, NOT IN, BETWEEN and NOT BETWEEN take several.`,
    );
  }
  const kind: FieldKind = NOTICE_FIELDS[field];
  const textual = operator === "STARTS_WITH" || operator === "CONTAINS" || operator === "ENDS_WITH";
  if (kind === "timestamp") {
    if (textual) {
      throw invalid(
        "INVALID_FILTER",
        `${parameter}[operator]`,
        `The '${operator}' operator does not apply to \`${field}\`, which holds a moment; compare it with =, <>, <, <=, >, >=, IN or BETWEEN.`,
      );
    }
    return {
      kind: "condition",
      field,
      operator,
      values: texts.map((text) => moment(text, field, valueParameter)),
    };
  }
  if (kind === "date" && !textual) {
    for (const text of texts) {
      if (!isCalendarDate(text)) {
        throw invalid(
          "INVALID_FILTER",
          valueParameter,
          `The field \`date\` is compared as a date: give YYYY-MM-DD, such as 2011-04-11; got '${text}'. STARTS_WITH also takes a year or a month (2011, 2011-04).`,
        );
      }
    }
  }
  return { kind: "condition", field, operator, values: texts };
}

function valueList(node: Tree | Leaf, parameter: string): string[] {
  if (isLeaf(node)) return [node.value];
  const entries = [...node.children];
  if (entries.length === 0 || !entries.every(([key]) => /^\d{1,6}$/.test(key))) {
    throw invalid(
      "INVALID_FILTER",
      parameter,
      `The parameter ${parameter} takes a value, or a list as ${parameter}[]=a&${parameter}[]=b.`,
    );
  }
  return entries
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([, child]) => leafValue(child, `${parameter}[]`));
}

const SECONDS_LIMIT = 253_402_300_799; // 9999-12-31T23:59:59Z

function moment(text: string, field: string, parameter: string): number {
  const trimmed = text.trim();
  if (/^-?\d{1,12}$/.test(trimmed)) {
    const seconds = Number(trimmed);
    if (Math.abs(seconds) <= SECONDS_LIMIT) return seconds;
  }
  const seconds = parseTimestamp(trimmed);
  if (seconds === null || Math.abs(seconds) > SECONDS_LIMIT) {
    throw invalid(
      "INVALID_FILTER",
      parameter,
      `The field \`${field}\` holds a moment: give ISO 8601 (2013-09-24T20:05:39+00:00, 2013-09-24T20:05:39Z, 2013-09-24), or seconds since 1970; got '${text}'.`,
    );
  }
  return seconds;
}

/** Drupal's message for a path naming no field; `.value` after a field is Drupal's own spelling of the field's value. */
function resolveField(path: string, parameter: string, use: "filtering" | "sorting"): NoticeFieldName {
  const parts = path.split(".");
  const first = parts[0] ?? "";
  const code = use === "filtering" ? "INVALID_FILTER" : "INVALID_SORT";
  if (!isNoticeField(first)) {
    throw invalid(
      code,
      parameter,
      `Invalid nested ${use}. The field \`${first}\`, given in the path \`${path}\`, does not exist.`,
    );
  }
  if (parts.length > 2 || (parts.length === 2 && (parts[1] !== "value" || first === "id"))) {
    throw invalid(
      code,
      parameter,
      `Invalid nested ${use}. The field \`${parts[1]}\`, given in the path \`${path}\`, does not exist.`,
    );
  }
  return first;
}

/** The spec's plain parameters, as conditions of the root group. */
function applyPlainFilters(root: FilterGroup, plain: Map<PlainParameter, string>): void {
  for (const name of ["title", "keywords"] as const) {
    const text = plain.get(name);
    if (text === undefined) continue;
    const words = keywords(text);
    if (words.length === 0) {
      throw invalid(
        "INVALID_PARAMETER",
        name,
        `The parameter '${name}' is empty; give words of the title, or leave it out.`,
      );
    }
    for (const word of words)
      root.members.push({ kind: "condition", field: "title", operator: "CONTAINS", values: [word] });
  }
  const transaction = plain.get("transaction_number");
  if (transaction !== undefined) {
    if (!/^\d{1,20}$/.test(transaction.trim())) {
      throw invalid(
        "INVALID_PARAMETER",
        "transaction_number",
        `The parameter 'transaction_number' is a number, such as 20110718; got '${transaction}'.`,
      );
    }
    root.members.push({
      kind: "condition",
      field: "transaction-number",
      operator: "=",
      values: [transaction.trim()],
    });
  }
  const date = plain.get("date");
  if (date !== undefined) {
    const text = unquote(date);
    if (!isCalendarDate(text)) {
      throw invalid(
        "INVALID_PARAMETER",
        "date",
        `The parameter 'date' is a date as YYYY-MM-DD, such as 2011-04-11; got '${date}'.`,
      );
    }
    root.members.push({ kind: "condition", field: "date", operator: "=", values: [text] });
  }
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

function unquote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1)
    : trimmed;
}

// ---------------------------------------------------------------------------------------------
// Sorting, paging, fieldsets

function sortKey(path: string, direction: "ASC" | "DESC", parameter: string): SortKey {
  return { field: resolveField(path.trim(), parameter, "sorting"), direction };
}

/**
 * A sort names each field once and at most MAX_SORT_KEYS fields: a repeated field changes no order
 * but multiplies the cost of every comparison (200 repeats took seconds).
 */
function boundedSort(keys: SortKey[]): SortKey[] {
  const seen = new Set<NoticeFieldName>();
  for (const key of keys) {
    if (seen.has(key.field)) {
      throw invalid(
        "INVALID_SORT",
        "sort",
        `The sort names the field '${key.field}' more than once; name each field once.`,
      );
    }
    seen.add(key.field);
  }
  if (keys.length > MAX_SORT_KEYS) {
    throw invalid(
      "INVALID_SORT",
      "sort",
      `A request may sort by at most ${MAX_SORT_KEYS} fields; this one gives ${keys.length}.`,
    );
  }
  return keys;
}

function buildSort(text: string | undefined, tree: Tree, plain: Map<PlainParameter, string>): SortKey[] {
  const sortBy = plain.get("sort_by");
  const sortOrder = plain.get("sort_order");
  const given = [text !== undefined, tree.children.size > 0, sortBy !== undefined].filter(Boolean).length;
  if (given > 1) {
    const parameter = sortBy !== undefined ? "sort_by" : "sort";
    throw invalid(
      "INVALID_SORT",
      parameter,
      "Give the sort once: as sort=-created,title, as sort[key][path]=...&sort[key][direction]=..., or as sort_by with sort_order.",
    );
  }
  if (sortOrder !== undefined && (text !== undefined || tree.children.size > 0)) {
    throw invalid(
      "INVALID_SORT",
      "sort_order",
      "The parameter 'sort_order' goes with 'sort_by'; with sort, give the direction there (sort=-created).",
    );
  }
  if (text !== undefined) {
    const items = text.split(",");
    return items.map((item) => {
      const trimmed = item.trim();
      const descending = trimmed.startsWith("-");
      const path = descending ? trimmed.slice(1) : trimmed;
      if (path === "") {
        throw invalid(
          "INVALID_SORT",
          "sort",
          `The sort '${text}' has an empty field name; give fields separated by commas, such as -created,title.`,
        );
      }
      return sortKey(path, descending ? "DESC" : "ASC", "sort");
    });
  }
  if (tree.children.size > 0) {
    const keys: SortKey[] = [];
    for (const [key, node] of tree.children) {
      const parameter = `sort[${key}]`;
      if (isLeaf(node)) {
        throw invalid(
          "INVALID_SORT",
          parameter,
          `Give ${parameter}[path]=<field> and optionally ${parameter}[direction]=ASC or DESC.`,
        );
      }
      for (const [child] of node.children) {
        if (child !== "path" && child !== "direction") {
          throw invalid(
            "INVALID_SORT",
            `${parameter}[${child}]`,
            `Invalid sort key '${child}': a sort takes path and direction.`,
          );
        }
      }
      const pathNode = node.children.get("path");
      if (pathNode === undefined) {
        throw invalid(
          "INVALID_SORT",
          `${parameter}[path]`,
          "You need to provide a field name for the sort parameter.",
        );
      }
      const directionNode = node.children.get("direction");
      const directionText =
        directionNode === undefined
          ? "ASC"
          : leafValue(directionNode, `${parameter}[direction]`).toUpperCase();
      if (directionText !== "ASC" && directionText !== "DESC") {
        throw invalid(
          "INVALID_SORT",
          `${parameter}[direction]`,
          `The sort direction must be ASC or DESC; got '${directionText}'.`,
        );
      }
      keys.push(sortKey(leafValue(pathNode, `${parameter}[path]`), directionText, `${parameter}[path]`));
    }
    return keys;
  }
  let direction: "ASC" | "DESC" = "DESC";
  if (sortOrder !== undefined) {
    const upper = unquote(sortOrder).toUpperCase();
    if (upper !== "ASC" && upper !== "DESC") {
      throw invalid(
        "INVALID_PARAMETER",
        "sort_order",
        `The parameter 'sort_order' must be ASC or DESC (any case); got '${sortOrder}'.`,
      );
    }
    direction = upper;
  }
  if (sortBy !== undefined) {
    const name = unquote(sortBy).toLowerCase();
    if (name !== "created" && name !== "changed" && name !== "updated") {
      throw invalid(
        "INVALID_PARAMETER",
        "sort_by",
        `The parameter 'sort_by' must be 'created' or 'changed'; got '${sortBy}'.`,
      );
    }
    return [{ field: name === "created" ? "created" : "updated", direction }];
  }
  return sortOrder === undefined ? [] : [{ field: "created", direction }];
}

function buildPage(tree: Tree, plain: Map<PlainParameter, string>): { offset: number; limit: number } {
  for (const [key] of tree.children) {
    if (key !== "offset" && key !== "limit") {
      throw invalid(
        "INVALID_PAGE",
        `page[${key}]`,
        `The paging parameter 'page[${key}]' does not exist; use page[offset] and page[limit].`,
      );
    }
  }
  const limitNode = tree.children.get("limit");
  const offsetNode = tree.children.get("offset");
  if (limitNode !== undefined && plain.has("items_per_page")) {
    throw invalid(
      "INVALID_PAGE",
      "items_per_page",
      "Give the page size once: as page[limit] or as items_per_page.",
    );
  }
  if (offsetNode !== undefined && plain.has("offset")) {
    throw invalid("INVALID_PAGE", "offset", "Give the offset once: as page[offset] or as offset.");
  }
  const limitParameter = limitNode !== undefined ? "page[limit]" : "items_per_page";
  const limitText =
    limitNode !== undefined ? leafValue(limitNode, "page[limit]") : plain.get("items_per_page");
  const offsetParameter = offsetNode !== undefined ? "page[offset]" : "offset";
  const offsetText = offsetNode !== undefined ? leafValue(offsetNode, "page[offset]") : plain.get("offset");
  let limit = MAX_PAGE_LIMIT;
  if (limitText !== undefined) {
    const parsed = wholeNumber(limitText);
    if (parsed === null || parsed < 1) {
      throw invalid("INVALID_PAGE", limitParameter, "The page size needs to be a positive integer.");
    }
    if (parsed > MAX_PAGE_LIMIT) {
      throw invalid(
        "INVALID_PAGE",
        limitParameter,
        `The page size may be at most ${MAX_PAGE_LIMIT}; got ${parsed}. Follow links.next for further pages.`,
      );
    }
    limit = parsed;
  }
  let offset = 0;
  if (offsetText !== undefined) {
    const parsed = wholeNumber(offsetText);
    if (parsed === null) {
      throw invalid("INVALID_PAGE", offsetParameter, "The page offset needs to be a non-negative integer.");
    }
    offset = parsed;
  }
  return { offset, limit };
}

function wholeNumber(text: string): number | null {
  const trimmed = unquote(text);
  if (!/^\d{1,15}$/.test(trimmed)) return null;
  return Number(trimmed);
}

function buildFields(tree: Tree): NoticeQuery["fields"] {
  if (tree.children.size === 0) return undefined;
  const allowed = new Set<string>([...NOTICE_ATTRIBUTE_NAMES, ...NOTICE_RELATIONSHIP_NAMES]);
  let fields: Array<NoticeAttributeName | "node_type"> | undefined;
  for (const [type, node] of tree.children) {
    const parameter = `fields[${type}]`;
    if (type !== "early_termination_notice") {
      throw invalid(
        "INVALID_PARAMETER",
        parameter,
        `This collection holds only the type 'early_termination_notice'; a sparse fieldset for '${type}' does not apply.`,
      );
    }
    const text = leafValue(node, parameter);
    fields = [];
    for (const name of text.split(",").map((part) => part.trim())) {
      if (name === "") continue;
      if (!allowed.has(name)) {
        throw invalid(
          "INVALID_PARAMETER",
          parameter,
          `The field '${name}' does not exist on early_termination_notice; fields are ${[...allowed].join(", ")}.`,
        );
      }
      fields.push(name as NoticeAttributeName | "node_type");
    }
  }
  return fields;
}
