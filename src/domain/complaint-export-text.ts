import { COMPLAINT_CSV_HEADER, type Complaint } from "./complaint.js";
import { complaintResource } from "./complaint-envelope.js";
import { csvText } from "./csv-text.js";
import { formatDateTime } from "./time.js";

/**
 * The FTC extract's CSV dialect, as `ftcapi generate dnc` writes it: CRLF line ends, quotes only
 * where a value needs them (a comma, a quote, a line break).
 */
const EXTRACT_LINE_END = "\r\n";

/** The header line of a complaints CSV export: the extract's, unchanged. */
export function complaintCsvHeader(): string {
  return csvText([COMPLAINT_CSV_HEADER], EXTRACT_LINE_END);
}

/**
 * Complaints as lines of the FTC extract, each value as published (times as `YYYY-MM-DD HH:MM:SS`),
 * so that `ftcapi import dnc` reads them back into the same complaints with the same ids.
 */
export function complaintCsvText(complaints: readonly Complaint[]): string {
  return csvText(
    complaints.map((complaint) => [
      complaint.companyPhoneNumber,
      formatDateTime(complaint.createdAt),
      formatDateTime(complaint.violationAt),
      complaint.city,
      complaint.state,
      complaint.areaCode,
      complaint.subject,
      complaint.robocall,
    ]),
    EXTRACT_LINE_END,
  );
}

/**
 * Complaints as NDJSON: each a line holding the resource object a page's `data` holds.
 * @param recordBaseUrl absolute URL of the collection, without a trailing slash.
 */
export function complaintNdjsonText(complaints: readonly Complaint[], recordBaseUrl: string): string {
  let text = "";
  for (const complaint of complaints)
    text += `${JSON.stringify(complaintResource(complaint, recordBaseUrl))}\n`;
  return text;
}
