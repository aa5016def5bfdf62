import {
  NOTICE_ATTRIBUTE_NAMES,
  NOTICE_RELATIONSHIP_NAMES,
  type NoticeAttributeName,
} from "./notice-fields.js";
import { leafValue, type ParameterTree, type PlainParameter, unquote } from "./notice-parameters.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/** The largest page a notice list request may ask for (Drupal's JSON:API cap). */
export const MAX_PAGE_LIMIT = 50;

/** Which records of the ordered list a request wants. */
export interface NoticePage {
  offset: number;
  limit: number;
}

/**
 * The page of a notice list request, from `page[offset]` and `page[limit]` or the older API's
 * `offset` and `items_per_page` (each given one way at most; quotes allowed): offset 0 and
 * MAX_PAGE_LIMIT records unless given. A larger page is refused rather than capped. Throws the
 * 400 naming the first problem.
 */
export function parseNoticePage(tree: ParameterTree, plain: ReadonlyMap<PlainParameter, string>): NoticePage {
  for (const [key] of tree.children) {
    if (key !== "offset" && key !== "limit")
      throw refuseNoticeQuery("pageKeyUnknown", `page[${key}]`, { key });
  }
  const limitNode = tree.children.get("limit");
  const offsetNode = tree.children.get("offset");
  if (limitNode !== undefined && plain.has("items_per_page")) {
    throw refuseNoticeQuery("pageSizeGivenTwice", "items_per_page");
  }
  if (offsetNode !== undefined && plain.has("offset")) throw refuseNoticeQuery("offsetGivenTwice", "offset");
  const limitParameter = limitNode !== undefined ? "page[limit]" : "items_per_page";
  const limitText =
    limitNode !== undefined ? leafValue(limitNode, "page[limit]") : plain.get("items_per_page");
  const offsetParameter = offsetNode !== undefined ? "page[offset]" : "offset";
  const offsetText = offsetNode !== undefined ? leafValue(offsetNode, "page[offset]") : plain.get("offset");
  let limit = MAX_PAGE_LIMIT;
  if (limitText !== undefined) {
    const parsed = wholeNumber(limitText);
    if (parsed === null || parsed < 1) throw refuseNoticeQuery("pageSizeInvalid", limitParameter);
    if (parsed > MAX_PAGE_LIMIT) {
      throw refuseNoticeQuery("pageSizeTooLarge", limitParameter, { max: MAX_PAGE_LIMIT, value: parsed });
    }
    limit = parsed;
  }
  let offset = 0;
  if (offsetText !== undefined) {
    const parsed = wholeNumber(offsetText);
    if (parsed === null) throw refuseNoticeQuery("offsetInvalid", offsetParameter);
    offset = parsed;
  }
  return { offset, limit };
}

function wholeNumber(text: string): number | null {
  const trimmed = unquote(text);
  if (!/^\d{1,15}$/.test(trimmed)) return null;
  return Number(trimmed);
}

/** Sparse fieldset: the attributes and relationships to show; undefined shows all. */
export type NoticeFieldset = ReadonlyArray<NoticeAttributeName | "node_type"> | undefined;

/**
 * The sparse fieldset of `fields[early_termination_notice]=title,date` (comma-separated, empty
 * names skipped; an empty list shows no attributes); undefined when the family is absent. Throws
 * the 400 for another type or a name that is neither an attribute nor `node_type`.
 */
export function parseNoticeFieldset(tree: ParameterTree): NoticeFieldset {
  if (tree.children.size === 0) return undefined;
  const allowed = new Set<string>([...NOTICE_ATTRIBUTE_NAMES, ...NOTICE_RELATIONSHIP_NAMES]);
  let fields: Array<NoticeAttributeName | "node_type"> | undefined;
  for (const [type, node] of tree.children) {
    const parameter = `fields[${type}]`;
    if (type !== "early_termination_notice")
      throw refuseNoticeQuery("fieldsetTypeUnknown", parameter, { type });
    const text = leafValue(node, parameter);
    fields = [];
    for (const name of text.split(",").map((part) => part.trim())) {
      if (name === "") continue;
      if (!allowed.has(name)) {
        throw refuseNoticeQuery("fieldsetFieldUnknown", parameter, {
          field: name,
          fields: [...allowed].join(", "),
        });
      }
      fields.push(name as NoticeAttributeName | "node_type");
    }
  }
  return fields;
}
