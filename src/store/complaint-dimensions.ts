import type { Complaint } from "../domain/complaint.js";
import { matchKey } from "../domain/complaint.js";
import type { ComplaintQuery } from "../domain/complaint-query.js";

/**
 * A dimension of `complaint_counts`: a set of complaints that a filter selects whole (all of
 * them, one state, one city, ...), counted per day of `created_at` (or of `violation_at`).
 */
export interface Dimension {
  name: "all" | "state" | "city" | "area" | "robocall" | "violation";
  value: string;
  column: "created_at" | "violation_at";
}

const SEPARATOR = "\u001f";

/** The dimensions a stored complaint is counted in. */
export function dimensionsOf(
  complaint: Complaint,
): Array<{ name: Dimension["name"]; value: string; at: number }> {
  const stateKey = matchKey(complaint.state);
  const cityKey = matchKey(complaint.city);
  return [
    { name: "all", value: "", at: complaint.createdAt },
    { name: "state", value: stateKey, at: complaint.createdAt },
    { name: "city", value: `${stateKey}${SEPARATOR}${cityKey}`, at: complaint.createdAt },
    { name: "area", value: complaint.areaCode, at: complaint.createdAt },
    { name: "robocall", value: complaint.robocall, at: complaint.createdAt },
    { name: "violation", value: "", at: complaint.violationAt },
  ];
}

/**
 * The dimension whose daily counts give a query's total, or null when the query mixes filters no
 * dimension covers (those are counted from the rows through the best index).
 */
export function dimensionFor(query: ComplaintQuery): Dimension | null {
  if (query.phone !== undefined) return null;
  if (query.violation) {
    const alone =
      !query.created && query.state === undefined && query.areaCode === undefined && !query.robocall;
    return alone ? { name: "violation", value: "", column: "violation_at" } : null;
  }
  if (query.city !== undefined && query.state !== undefined) {
    return { name: "city", value: `${query.state}${SEPARATOR}${query.city}`, column: "created_at" };
  }
  if (query.state !== undefined) return { name: "state", value: query.state, column: "created_at" };
  if (query.areaCode !== undefined) return { name: "area", value: query.areaCode, column: "created_at" };
  if (query.robocall !== undefined) return { name: "robocall", value: query.robocall, column: "created_at" };
  return { name: "all", value: "", column: "created_at" };
}
