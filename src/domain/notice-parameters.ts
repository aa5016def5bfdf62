import { refuseNoticeQuery } from "./notice-query-messages.js";

/** The spec's plain parameters and the older API's names. */
export const PLAIN_PARAMETERS = [
  "title",
  "keywords",
  "transaction_number",
  "date",
  "sort_by",
  "sort_order",
  "items_per_page",
  "offset",
] as const;

export type PlainParameter = (typeof PLAIN_PARAMETERS)[number];

/** A notice list request's parameters, sorted by family but not yet checked for meaning. */
export interface NoticeParameters {
  filter: ParameterTree;
  sort: ParameterTree;
  page: ParameterTree;
  fields: ParameterTree;
  /** `sort=...` without brackets, when given. */
  sortText: string | undefined;
  plain: Map<PlainParameter, string>;
}

const PLAIN = new Set<string>(PLAIN_PARAMETERS);
const NAME_PATTERN = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/**
 * Sorts the raw query parameters of a notice list request into Drupal's bracketed families
 * (`filter`, `sort`, `page`, `fields`), the bare `sort` and the plain parameters, in request order.
 * `api_key` is skipped (the gateway consumes it). Throws the 400 for a NUL character, an unknown
 * name, or a parameter given twice.
 */
export function readNoticeParameters(params: ReadonlyArray<readonly [string, string]>): NoticeParameters {
  const read: NoticeParameters = {
    filter: emptyParameterTree("filter"),
    sort: emptyParameterTree("sort"),
    page: emptyParameterTree("page"),
    fields: emptyParameterTree("fields"),
    sortText: undefined,
    plain: new Map(),
  };
  for (const [name, value] of params) {
    if (name === "api_key") continue;
    if (name.includes("\u0000") || value.includes("\u0000")) {
      throw refuseNoticeQuery("nulCharacter", name.replaceAll("\u0000", ""));
    }
    const match = NAME_PATTERN.exec(name);
    const base = match?.[1];
    const segments = match?.[2] ? bracketSegments(match[2]) : [];
    if (!match || base === undefined) throw unknownParameter(name);
    if (segments.length === 0) readPlain(read, base, value, name);
    else placeParameter(familyOf(read, base, name), segments, value, name);
  }
  return read;
}

/** A parameter without brackets: the bare sort or a plain parameter. */
function readPlain(read: NoticeParameters, base: string, value: string, name: string): void {
  if (base === "sort") {
    if (read.sortText !== undefined) throw refuseNoticeQuery("repeatedParameter", name, { name });
    read.sortText = value;
    return;
  }
  if (!PLAIN.has(base)) throw unknownParameter(name);
  const key = base as PlainParameter;
  if (read.plain.has(key)) throw refuseNoticeQuery("repeatedParameter", name, { name });
  read.plain.set(key, value);
}

function familyOf(read: NoticeParameters, base: string, name: string): ParameterTree {
  if (base === "filter") return read.filter;
  if (base === "sort") return read.sort;
  if (base === "page") return read.page;
  if (base === "fields") return read.fields;
  throw unknownParameter(name);
}

/**
 * Whether a notice list request takes a parameter of this name (whatever its value): `api_key`,
 * the bracketed families, the bare `sort` and the plain parameters.
 */
export function isNoticeParameterName(name: string): boolean {
  if (name === "api_key") return true;
  const match = NAME_PATTERN.exec(name);
  const base = match?.[1];
  if (!match || base === undefined) return false;
  if (match[2]) return base === "filter" || base === "sort" || base === "page" || base === "fields";
  return base === "sort" || PLAIN.has(base);
}

function unknownParameter(name: string) {
  return refuseNoticeQuery("unknownParameter", name, { name, plain: PLAIN_PARAMETERS.join(", ") });
}

/** The text inside one pair of double quotes around it (trimmed), or the trimmed text. */
export function unquote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1)
    : trimmed;
}

/**
 * A bracketed parameter family read into a tree: `filter[a][b]=v` sets tree.a.b = v. Keys keep
 * the order in which the request first gave them.
 */
export interface ParameterTree {
  children: Map<string, ParameterTree | ParameterLeaf>;
  /** The parameter name up to this node (`filter[a]`), for error sources. */
  name: string;
}

/** One value of a bracketed family, with the full parameter name that gave it. */
export interface ParameterLeaf {
  value: string;
  name: string;
}

export type ParameterNode = ParameterTree | ParameterLeaf;

/** A tree with no keys yet, for the family `name` (`filter`, `sort`, ...). */
export function emptyParameterTree(name: string): ParameterTree {
  return { children: new Map(), name };
}

/** Whether a node is a single value rather than a set of keys. */
export function isParameterLeaf(node: ParameterNode): node is ParameterLeaf {
  return "value" in node;
}

/**
 * The segments of a bracketed name's brackets: `[a][]` gives `["a", ""]`. `brackets` must be
 * well formed (`(\[[^[\]]*\])*`, as a parameter name's pattern checks).
 */
export function bracketSegments(brackets: string): string[] {
  const segments: string[] = [];
  for (let open = 0; open < brackets.length; ) {
    const close = brackets.indexOf("]", open);
    segments.push(brackets.slice(open + 1, close));
    open = close + 1;
  }
  return segments;
}

/**
 * Stores `value` at `segments` below `tree`; an empty segment (`[]`) appends to a list, as the
 * next number. Throws the 400 for a parameter given twice, or for a name that makes one node both
 * a value and a set of keys. `segments` must not be empty.
 */
export function placeParameter(tree: ParameterTree, segments: string[], value: string, name: string): void {
  let node = tree;
  let path = tree.name;
  for (let index = 0; index < segments.length; index++) {
    let segment = segments[index]!;
    if (segment === "") segment = String(node.children.size);
    path += `[${segment}]`;
    const last = index === segments.length - 1;
    const existing = node.children.get(segment);
    if (last) {
      if (existing !== undefined) throw refuseNoticeQuery("repeatedParameter", name, { name });
      node.children.set(segment, { value, name });
      return;
    }
    if (existing === undefined) {
      const child = emptyParameterTree(path);
      node.children.set(segment, child);
      node = child;
    } else if (isParameterLeaf(existing)) {
      throw refuseNoticeQuery("valueAndKeys", name, { name, other: existing.name, path });
    } else {
      node = existing;
    }
  }
  throw refuseNoticeQuery("keyMissing", name, { name });
}

/** The value of a node that must be a single value; a set of keys is refused as `parameter`. */
export function leafValue(node: ParameterNode, parameter: string): string {
  if (!isParameterLeaf(node)) throw refuseNoticeQuery("notSingleValue", parameter, { parameter });
  return node.value;
}
