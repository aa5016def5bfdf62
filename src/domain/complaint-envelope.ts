import {
  type Complaint,
  type ComplaintAttributes,
  type ComplaintRow,
  complaintAttributes,
} from "./complaint.js";
import { formatDateTime } from "./time.js";

export interface ComplaintResource {
  type: "dnc_complaint";
  id: string;
  attributes: ComplaintAttributes;
  relationships: [];
  meta: [];
  links: { self: string };
}

/**
 * The complaint envelope as the live service and its clients expect it: integer counts, the exact
 * total under both spellings (`record-total` as served, `records-total` as documented).
 */
export interface ComplaintEnvelope {
  data: ComplaintResource[];
  meta: { "records-this-page": number; "record-total": number; "records-total": number };
  links: { self: string };
}

/**
 * Builds the envelope for a page of complaints.
 * @param recordBaseUrl absolute URL of the collection, without a trailing slash; records link below it.
 * @param selfUrl absolute URL of the request, already stripped of the API key.
 */
export function complaintEnvelope(
  records: readonly Complaint[],
  total: number,
  recordBaseUrl: string,
  selfUrl: string,
): ComplaintEnvelope {
  return {
    data: records.map((record) => complaintResource(record, recordBaseUrl)),
    meta: { "records-this-page": records.length, "record-total": total, "records-total": total },
    links: { self: selfUrl },
  };
}

/**
 * One complaint as a resource object of a page's `data` (and as a line of an NDJSON export).
 * @param recordBaseUrl absolute URL of the collection, without a trailing slash.
 */
export function complaintResource(record: Complaint, recordBaseUrl: string): ComplaintResource {
  return {
    type: "dnc_complaint",
    id: record.id,
    attributes: complaintAttributes(record),
    relationships: [],
    meta: [],
    links: { self: `${recordBaseUrl}/${record.id}` },
  };
}

/**
 * The text of `JSON.stringify(complaintEnvelope(...))` for a page read as rows, written directly:
 * no resource objects, no attribute objects, one string. With `reverse`, the rows were read last
 * to first and are written in the page's order.
 */
export function complaintPageText(
  rows: readonly ComplaintRow[],
  total: number,
  recordBaseUrl: string,
  selfUrl: string,
  reverse = false,
): string {
  return (
    `{"data":[${complaintResourcesText(rows, recordBaseUrl, reverse)}],"meta":{"records-this-page":${rows.length}` +
    `,"record-total":${total},"records-total":${total}},"links":{"self":${JSON.stringify(selfUrl)}}}`
  );
}

/**
 * The resource objects of a page's rows as JSON text, separated by commas (in reverse order with
 * `reverse`): what `complaintResource` gives, through `JSON.stringify`, for each. Ids (32
 * hexadecimal characters) and formatted times need no escaping; every other value is escaped as
 * JSON.stringify escapes it.
 * @param recordBaseUrl absolute URL of the collection, without a trailing slash.
 */
export function complaintResourcesText(
  rows: readonly ComplaintRow[],
  recordBaseUrl: string,
  reverse: boolean,
): string {
  const recordPrefix = JSON.stringify(`${recordBaseUrl}/`).slice(0, -1);
  let text = "";
  for (let step = 0; step < rows.length; step++) {
    const [id, createdAt, violationAt, phone, city, state, areaCode, subject, robocall] =
      rows[reverse ? rows.length - 1 - step : step]!;
    if (step > 0) text += ",";
    text +=
      `{"type":"dnc_complaint","id":"${id}","attributes":{"company-phone-number":${JSON.stringify(phone)}` +
      `,"created-date":"${formatDateTime(createdAt)}","violation-date":"${formatDateTime(violationAt)}"` +
      `,"consumer-city":${JSON.stringify(city)},"consumer-state":${JSON.stringify(state)}` +
      `,"consumer-area-code":${JSON.stringify(areaCode)},"subject":${JSON.stringify(subject)}` +
      `,"recorded-message-or-robocall":${JSON.stringify(robocall)}},"relationships":[],"meta":[]` +
      `,"links":{"self":${recordPrefix}${id}"}}`;
  }
  return text;
}

/**
 * How a page is written as text where its rows are read: a named writer and its arguments, plain
 * data, so that it can cross to the thread that read the rows (SQLite's read workers) and the whole
 * answer reaches the event loop as one block of UTF-8 bytes instead of rows to copy, write, encode
 * and join to the envelope.
 */
export interface PageRendering {
  readonly renderer: "complaint-page";
  /** Absolute URL of the collection, without a trailing slash; records link below it. */
  readonly recordBaseUrl: string;
  /** Write the rows last to first. */
  readonly reverse: boolean;
  /** The query's exact total, for the page's meta. */
  readonly total: number;
  /** The page's own link. */
  readonly selfUrl: string;
}

const encoder = new TextEncoder();

/**
 * The page of `rows` as `rendering` says, UTF-8 encoded; the bytes own their buffer, so that it can
 * be transferred.
 */
export function renderPage(rows: readonly unknown[][], rendering: PageRendering): Uint8Array {
  switch (rendering.renderer) {
    case "complaint-page":
      return encoder.encode(
        complaintPageText(
          rows as unknown as readonly ComplaintRow[],
          rendering.total,
          rendering.recordBaseUrl,
          rendering.selfUrl,
          rendering.reverse,
        ),
      );
  }
}
