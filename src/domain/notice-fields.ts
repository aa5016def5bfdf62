/**
 * The notice collection as data: each public field's name (as the API spells it) and kind. The
 * kind decides which operators and values a filter on it takes and how the store compares it:
 * - `text`: case-insensitive text; `id`: the UUID, case-insensitive;
 * - `date`: `YYYY-MM-DD` text, compared as dates;
 * - `timestamp`: a moment (ISO 8601, or seconds since the epoch), compared as moments;
 * - `array`: several text values; a condition holds when any one value satisfies it.
 */
export const NOTICE_FIELDS = {
  id: "id",
  title: "text",
  "transaction-number": "text",
  "acquiring-party": "text",
  "acquired-party": "text",
  "acquired-entities": "array",
  date: "date",
  created: "timestamp",
  updated: "timestamp",
  tags: "array",
} as const;

export type NoticeFieldName = keyof typeof NOTICE_FIELDS;
export type FieldKind = (typeof NOTICE_FIELDS)[NoticeFieldName];

/** The attributes a sparse fieldset may name, in the order records show them. */
export const NOTICE_ATTRIBUTE_NAMES = [
  "title",
  "created",
  "updated",
  "acquired-party",
  "acquiring-party",
  "date",
  "acquired-entities",
  "transaction-number",
  "tags",
] as const;

export type NoticeAttributeName = (typeof NOTICE_ATTRIBUTE_NAMES)[number];

/** The one relationship a record shows, which a sparse fieldset may also name. */
export const NOTICE_RELATIONSHIP_NAMES = ["node_type"] as const;

export function isNoticeField(name: string): name is NoticeFieldName {
  return Object.hasOwn(NOTICE_FIELDS, name);
}
