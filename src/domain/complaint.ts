import { hash } from "node:crypto";
import { formatDateTime } from "./time.js";

/** A Do Not Call complaint as stored: times in seconds, empty values as empty strings. */
export interface Complaint {
  id: string;
  companyPhoneNumber: string;
  createdAt: number;
  violationAt: number;
  city: string;
  state: string;
  areaCode: string;
  subject: string;
  robocall: string;
}

/**
 * A complaint as the store reads a page of them: its values in this order, with no object made per
 * row (see `complaintPageText`).
 */
export type ComplaintRow = readonly [
  id: string,
  createdAt: number,
  violationAt: number,
  companyPhoneNumber: string,
  city: string,
  state: string,
  areaCode: string,
  subject: string,
  robocall: string,
];

/** The complaint a row holds. */
export function complaintFromRow(row: ComplaintRow): Complaint {
  const [id, createdAt, violationAt, companyPhoneNumber, city, state, areaCode, subject, robocall] = row;
  return { id, createdAt, violationAt, companyPhoneNumber, city, state, areaCode, subject, robocall };
}

/** The header of the FTC's daily and weekly extracts, unchanged since 2019. */
export const COMPLAINT_CSV_HEADER = [
  "Company_Phone_Number",
  "Created_Date",
  "Violation_Date",
  "Consumer_City",
  "Consumer_State",
  "Consumer_Area_Code",
  "Subject",
  "Recorded_Message_Or_Robocall",
] as const;

/** The API attributes of a complaint, in the live service's member order. */
export interface ComplaintAttributes {
  "company-phone-number": string;
  "created-date": string;
  "violation-date": string;
  "consumer-city": string;
  "consumer-state": string;
  "consumer-area-code": string;
  subject: string;
  "recorded-message-or-robocall": string;
}

export function complaintAttributes(complaint: Complaint): ComplaintAttributes {
  return {
    "company-phone-number": complaint.companyPhoneNumber,
    "created-date": formatDateTime(complaint.createdAt),
    "violation-date": formatDateTime(complaint.violationAt),
    "consumer-city": complaint.city,
    "consumer-state": complaint.state,
    "consumer-area-code": complaint.areaCode,
    subject: complaint.subject,
    "recorded-message-or-robocall": complaint.robocall,
  };
}

/**
 * The key that `state` and `city` filters compare: the value without regard to case, since the
 * extracts hold "san pedro" beside "San Pedro".
 */
export function matchKey(value: string): string {
  return value.trim().toLowerCase();
}

/**
 * A complaint's id: 32 lowercase hex characters derived from the row. The first 8 are its created
 * time (seconds, hex), the other 24 come from an MD5 of its eight values and of how many identical
 * rows came before it in the same file. So re-importing a file, or a weekly extract that overlaps
 * daily ones, yields the same ids; identical rows within one file stay separate complaints; and ids
 * grow with time, as the live service's do, which keeps index inserts local.
 */
export function complaintId(values: readonly string[], occurrence: number, createdAt: number): string {
  return complaintIdFromText(values.join("\u001f"), occurrence, createdAt);
}

/** `complaintId` for values already joined with U+001F (the importer joins them once per row). */
export function complaintIdFromText(joinedValues: string, occurrence: number, createdAt: number): string {
  const text = occurrence > 0 ? `${joinedValues}\u001e${occurrence}` : joinedValues;
  const time = (Math.max(0, createdAt) >>> 0).toString(16).padStart(8, "0");
  return time + hash("md5", text, "hex").slice(0, 24);
}

/** Ids are exactly 32 lowercase hex characters. */
export const COMPLAINT_ID_PATTERN = /^[0-9a-f]{32}$/;
