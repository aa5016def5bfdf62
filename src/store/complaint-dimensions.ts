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
): Array<{ name: Dimension["name"]; value: string; at: number; hourly: boolean }> {
  const stateKey = matchKey(complaint.state);
  const cityKey = matchKey(complaint.city);
  return [
    { name: "all", value: "", at: complaint.createdAt, hourly: true },
    { name: "state", value: stateKey, at: complaint.createdAt, hourly: true },
    { name: "city", value: `${stateKey}${SEPARATOR}${cityKey}`, at: complaint.createdAt, hourly: false },
    { name: "area", value: complaint.areaCode, at: complaint.createdAt, hourly: false },
    { name: "robocall", value: complaint.robocall, at: complaint.createdAt, hourly: true },
    { name: "violation", value: "", at: complaint.violationAt, hourly: true },
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

export const SECONDS_PER_HOUR = 3600;

/**
 * The dimensions with many complaints a day, which `complaint_hour_counts` also counts per hour,
 * and the columns they are counted from (for backfilling): the stored value and the time.
 */
export const HOURLY_DIMENSIONS: ReadonlyArray<{
  name: Dimension["name"];
  value: string | null;
  column: "created_at" | "violation_at";
}> = [
  { name: "all", value: null, column: "created_at" },
  { name: "state", value: "state_key", column: "created_at" },
  { name: "robocall", value: "robocall", column: "created_at" },
  { name: "violation", value: null, column: "violation_at" },
];

/** Whether `name` is counted per hour as well as per day. */
export function isHourly(name: Dimension["name"]): boolean {
  return HOURLY_DIMENSIONS.some((dimension) => dimension.name === name);
}
