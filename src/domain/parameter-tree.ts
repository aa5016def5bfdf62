import { refuseNoticeQuery } from "./notice-query-messages.js";

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
