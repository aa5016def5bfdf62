import { isNoticeField, type NoticeFieldName } from "./notice-fields.js";
import { refuseNoticeQuery } from "./notice-query-messages.js";

/**
 * The field a filter or sort path names: a field name, optionally followed by `.value` (Drupal's
 * own spelling of a field's value; not after `id`). Any other path is refused with Drupal's
 * message for a path naming no field, as INVALID_FILTER or INVALID_SORT by `use`.
 */
export function resolveFieldPath(
  path: string,
  parameter: string,
  use: "filtering" | "sorting",
): NoticeFieldName {
  const parts = path.split(".");
  const first = parts[0] ?? "";
  const message = use === "filtering" ? "filterFieldUnknown" : "sortFieldUnknown";
  if (!isNoticeField(first)) throw refuseNoticeQuery(message, parameter, { field: first, path });
  if (parts.length > 2 || (parts.length === 2 && (parts[1] !== "value" || first === "id"))) {
    throw refuseNoticeQuery(message, parameter, { field: String(parts[1]), path });
  }
  return first;
}
