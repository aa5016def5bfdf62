import {
  ENTITY_SEPARATOR,
  isCalendarDate,
  NOTICE_CSV_HEADER,
  NOTICE_ID_PATTERN,
  NOTICE_TYPE,
  type Notice,
  noticeIdFor,
  noticeTitle,
  parseTimestamp,
} from "../domain/notice.js";

/**
 * Reads one notices CSV row into a notice, or returns why it cannot be read. The id is derived from
 * the transaction number; the title is built as the FTC builds it; entities are split on `;`.
 */
export function noticeFromCsvRow(values: readonly string[]): Notice | string {
  if (values.length !== NOTICE_CSV_HEADER.length) {
    return `expected ${NOTICE_CSV_HEADER.length} fields, found ${values.length}`;
  }
  const [transaction, acquiring, acquired, entities, date, created, updated] = values.map((value) =>
    value.trim(),
  ) as [string, string, string, string, string, string, string];
  if (!/^\d{1,20}$/.test(transaction))
    return `transaction_number must be digits, such as 20110718: '${transaction}'`;
  if (date !== "" && !isCalendarDate(date)) return `date is not a date as YYYY-MM-DD: '${date}'`;
  const createdAt = parseTimestamp(created);
  if (createdAt === null)
    return `created is not a time as ISO 8601 (2013-09-24T20:05:39+00:00): '${created}'`;
  const updatedAt = updated === "" ? createdAt : parseTimestamp(updated);
  if (updatedAt === null)
    return `updated is not a time as ISO 8601 (2013-09-24T22:22:27+00:00): '${updated}'`;
  if (updatedAt < createdAt) return `updated (${updated}) is before created (${created})`;
  const acquiringParty = acquiring === "" ? null : acquiring;
  const acquiredParty = acquired === "" ? null : acquired;
  return {
    id: noticeIdFor(transaction),
    revision: 1,
    title: noticeTitle(transaction, acquiringParty, acquiredParty),
    transactionNumber: transaction,
    acquiringParty,
    acquiredParty,
    acquiredEntities: entities
      .split(ENTITY_SEPARATOR)
      .map((entity) => entity.trim())
      .filter((entity) => entity !== ""),
    date: date === "" ? null : date,
    createdAt,
    updatedAt,
    tags: [],
  };
}

/**
 * Reads one resource object of a saved JSON:API page of the live collection into a notice, or
 * returns why it cannot be read. The record's UUID and its revision (from `resourceVersion` in its
 * link) are kept.
 */
export function noticeFromResource(resource: unknown): Notice | string {
  if (typeof resource !== "object" || resource === null || Array.isArray(resource))
    return "not a resource object";
  const record = resource as Record<string, unknown>;
  if (record.type !== NOTICE_TYPE) return `type is '${String(record.type)}', expected '${NOTICE_TYPE}'`;
  const id = typeof record.id === "string" ? record.id.toLowerCase() : "";
  if (!NOTICE_ID_PATTERN.test(id)) return `id is not a UUID: '${String(record.id)}'`;
  const attributes = record.attributes;
  if (typeof attributes !== "object" || attributes === null) return "attributes are missing";
  const read = attributes as Record<string, unknown>;
  const text = (name: string): string | null | undefined => {
    const value = read[name];
    if (value === undefined || value === null || value === "") return null;
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
    return undefined;
  };
  const list = (name: string): string[] | undefined => {
    const value = read[name];
    if (value === undefined || value === null) return [];
    if (typeof value === "string") return value === "" ? [] : [value];
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return undefined;
    return value as string[];
  };
  const transaction = text("transaction-number");
  if (!transaction) return "transaction-number is missing";
  const acquiringParty = text("acquiring-party");
  const acquiredParty = text("acquired-party");
  if (acquiringParty === undefined || acquiredParty === undefined) return "the parties must be text";
  const date = text("date");
  if (date === undefined || (date !== null && !isCalendarDate(date)))
    return `date is not YYYY-MM-DD: '${String(read.date)}'`;
  const createdText = text("created");
  const createdAt = createdText ? parseTimestamp(createdText) : null;
  if (createdAt === null) return `created is not an ISO 8601 time: '${String(read.created)}'`;
  const updatedText = text("updated");
  const updatedAt = updatedText ? parseTimestamp(updatedText) : createdAt;
  if (updatedAt === null) return `updated is not an ISO 8601 time: '${String(read.updated)}'`;
  const entities = list("acquired-entities");
  if (entities === undefined) return "acquired-entities must be a list of text";
  const tags = list("tags");
  if (tags === undefined) return "tags must be a list of text";
  const title = text("title");
  if (title === undefined) return "title must be text";
  return {
    id,
    revision: revisionOf(record.links) ?? 1,
    title: title ?? noticeTitle(transaction, acquiringParty, acquiredParty),
    transactionNumber: transaction,
    acquiringParty,
    acquiredParty,
    acquiredEntities: entities,
    date,
    createdAt,
    updatedAt,
    tags,
  };
}

/** The revision in a record's self link (`?resourceVersion=id%3A2358`), in either link form. */
function revisionOf(links: unknown): number | undefined {
  if (typeof links !== "object" || links === null) return undefined;
  const self = (links as Record<string, unknown>).self;
  const href =
    typeof self === "string"
      ? self
      : typeof self === "object" && self !== null
        ? (self as Record<string, unknown>).href
        : undefined;
  if (typeof href !== "string") return undefined;
  const match = /resourceVersion=id(?::|%3A)(\d{1,12})/i.exec(href);
  return match ? Number(match[1]) : undefined;
}
