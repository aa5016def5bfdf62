import {
  NOTICE_ATTRIBUTE_NAMES,
  NOTICE_RELATIONSHIP_NAMES,
  type NoticeAttributeName,
} from "./notice-fields.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";
import { leafValue, type ParameterTree } from "./parameter-tree.js";

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
