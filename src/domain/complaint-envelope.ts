import { type Complaint, type ComplaintAttributes, complaintAttributes } from "./complaint.js";

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
