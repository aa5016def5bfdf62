import { createHash } from "node:crypto";
import { formatTimestamp, SECONDS_PER_MINUTE } from "./time.js";

/**
 * An HSR early-termination notice as stored: times in seconds (UTC), `date` as `YYYY-MM-DD`, absent
 * values as null, and the two multi-value fields as arrays of strings.
 */
export interface Notice {
  id: string;
  /** The revision number shown in `resourceVersion=id:<revision>`; grows when an import changes the notice. */
  revision: number;
  title: string;
  transactionNumber: string;
  acquiredParty: string | null;
  acquiringParty: string | null;
  acquiredEntities: string[];
  date: string | null;
  createdAt: number;
  updatedAt: number;
  tags: string[];
}

/** The columns of the notices CSV that `ftcapi import notices` reads and `ftcapi generate notices` writes. */
export const NOTICE_CSV_HEADER = [
  "transaction_number",
  "acquiring_party",
  "acquired_party",
  "acquired_entities",
  "date",
  "created",
  "updated",
] as const;

/** Separates the acquired entities inside the CSV's `acquired_entities` column. */
export const ENTITY_SEPARATOR = ";";

export const NOTICE_TYPE = "early_termination_notice";

/** The API attributes of a notice, in the live service's member order. */
export interface NoticeAttributes {
  title: string;
  created: string;
  updated: string;
  "acquired-party": string | null;
  "acquiring-party": string | null;
  date: string | null;
  "acquired-entities": string[];
  "transaction-number": string;
  tags: string[];
}

export function noticeAttributes(notice: Notice): NoticeAttributes {
  return {
    title: notice.title,
    created: formatTimestamp(notice.createdAt),
    updated: formatTimestamp(notice.updatedAt),
    "acquired-party": notice.acquiredParty,
    "acquiring-party": notice.acquiringParty,
    date: notice.date,
    "acquired-entities": notice.acquiredEntities,
    "transaction-number": notice.transactionNumber,
    tags: notice.tags,
  };
}

/**
 * The notice whose `noticeAttributes` these are, with its id and revision; its times are given in
 * seconds, as stored (the attributes hold them formatted).
 */
export function noticeFromAttributes(
  id: string,
  revision: number,
  attributes: NoticeAttributes,
  times: { createdAt: number; updatedAt: number },
): Notice {
  return {
    id,
    revision,
    title: attributes.title,
    transactionNumber: attributes["transaction-number"],
    acquiredParty: attributes["acquired-party"],
    acquiringParty: attributes["acquiring-party"],
    acquiredEntities: attributes["acquired-entities"],
    date: attributes.date,
    createdAt: times.createdAt,
    updatedAt: times.updatedAt,
    tags: attributes.tags,
  };
}

/** The title the FTC gives a notice: the transaction number, a colon, then the party names. */
export function noticeTitle(
  transactionNumber: string,
  acquiringParty: string | null,
  acquiredParty: string | null,
): string {
  const parties = [acquiringParty, acquiredParty].filter((party) => party !== null && party !== "");
  return `${transactionNumber}: ${parties.join("; ")}`;
}

/**
 * The id of a notice known only by its transaction number (a CSV row): a name-based UUID (version 5
 * layout) of the transaction number, so that every import of the same notice yields the same id.
 */
export function noticeIdFor(transactionNumber: string): string {
  const bytes = createHash("sha1").update(`ftcapi:early_termination_notice:${transactionNumber}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Notice ids are UUIDs, stored and compared in lower case. */
export const NOTICE_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ISO_MOMENT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Reads a moment: ISO 8601 with or without an offset (`2013-09-24T20:05:39+00:00`,
 * `2013-09-24 20:05:39`, read as UTC when no offset is given) or a date alone (its midnight, UTC).
 * Returns seconds, or null when the text is not a real moment.
 */
export function parseTimestamp(text: string): number | null {
  const date = ISO_DATE.exec(text);
  if (date) return calendarSeconds(date, 0, 0, 0, 0);
  const match = ISO_MOMENT.exec(text);
  if (!match) return null;
  let offsetMinutes = 0;
  const zone = match[8];
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5));
    if (hours > 14 || minutes > 59) return null;
    offsetMinutes = (digits.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
  }
  return calendarSeconds(match, Number(match[4]), Number(match[5]), Number(match[6]), offsetMinutes);
}

/** True when `text` is a real calendar date as `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  return match !== null && calendarSeconds(match, 0, 0, 0, 0) !== null;
}

function calendarSeconds(
  match: RegExpExecArray,
  hours: number,
  minutes: number,
  seconds: number,
  offsetMinutes: number,
): number | null {
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 59)
    return null;
  const check = new Date(Date.UTC(2000, month - 1, day));
  if (check.getUTCDate() !== day) return null;
  const leapCheck = new Date(0);
  leapCheck.setUTCFullYear(year, month - 1, day);
  if (leapCheck.getUTCDate() !== day) return null;
  leapCheck.setUTCHours(hours, minutes, seconds, 0);
  return leapCheck.getTime() / 1000 - offsetMinutes * SECONDS_PER_MINUTE;
}

/**
 * A digest of everything a notice says except its revision and update time: two imports of the
 * same notice have the same digest, so re-importing changes nothing.
 */
export function noticeContentDigest(notice: Notice): string {
  return createHash("sha1")
    .update(
      JSON.stringify([
        notice.title,
        notice.transactionNumber,
        notice.acquiredParty,
        notice.acquiringParty,
        notice.acquiredEntities,
        notice.date,
        notice.createdAt,
        notice.tags,
      ]),
    )
    .digest("hex");
}
