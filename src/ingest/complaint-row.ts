import { COMPLAINT_CSV_HEADER, type Complaint, complaintIdFromText } from "../domain/complaint.js";
import { parseDateTime } from "../domain/time.js";
import type { RowOccurrences } from "./row-occurrences.js";

/**
 * Reads one extract row (its eight values, as published) into a complaint, or returns the reason
 * it cannot be read. Values are kept exactly as published, messy ones included (the real extracts
 * hold caller numbers such as "833number" or "781558****"); a row is unreadable only when it has
 * the wrong number of fields or a time that is not one, since every complaint is ordered by time.
 *
 * `occurrences` counts the identical rows seen so far in the same file; identical rows after the
 * first get ids of their own.
 */
export function complaintFromRow(values: readonly string[], occurrences: RowOccurrences): Complaint | string {
  if (values.length !== COMPLAINT_CSV_HEADER.length) {
    return `expected ${COMPLAINT_CSV_HEADER.length} fields, found ${values.length}`;
  }
  const [phone, created, violation, city, state, areaCode, subject, robocall] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const createdAt = parseDateTime(created);
  if (createdAt === null) return `Created_Date is not a time as YYYY-MM-DD HH:MM:SS: '${created}'`;
  const violationAt = parseDateTime(violation);
  if (violationAt === null) return `Violation_Date is not a time as YYYY-MM-DD HH:MM:SS: '${violation}'`;
  const joined = values.join("\u001f");
  const firstId = complaintIdFromText(joined, 0, createdAt);
  const occurrence = occurrences.next(firstId, createdAt);
  return {
    id: occurrence === 0 ? firstId : complaintIdFromText(joined, occurrence, createdAt),
    companyPhoneNumber: phone,
    createdAt,
    violationAt,
    city,
    state,
    areaCode,
    subject,
    robocall,
  };
}
