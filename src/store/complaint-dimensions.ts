import type { Complaint } from "../domain/complaint.js";
import type { ComplaintQuery } from "../domain/complaint-query.js";
import { dayOf } from "../domain/date-time.js";

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

/**
 * Counts of complaints per dimension, value and day, summed in memory before they are written: the
 * one definition of which dimensions a stored complaint is counted in. Nested maps keyed by the
 * value and the day number, since building a key text for each of a row's six counts cost more
 * than the rest of writing the row.
 */
export class DimensionTally {
  private readonly tallies: Record<Dimension["name"], Map<string, Map<number, number>>> = {
    all: new Map(),
    state: new Map(),
    city: new Map(),
    area: new Map(),
    robocall: new Map(),
    violation: new Map(),
  };
  /** Distinct (dimension, value, day) counts held. */
  size = 0;

  /** Counts one complaint; `stateKey` and `cityKey` are its match keys. */
  add(complaint: Complaint, stateKey: string, cityKey: string): void {
    const day = dayOf(complaint.createdAt);
    this.bump(this.tallies.all, "", day);
    this.bump(this.tallies.state, stateKey, day);
    this.bump(this.tallies.city, `${stateKey}${SEPARATOR}${cityKey}`, day);
    this.bump(this.tallies.area, complaint.areaCode, day);
    this.bump(this.tallies.robocall, complaint.robocall, day);
    this.bump(this.tallies.violation, "", dayOf(complaint.violationAt));
  }

  private bump(values: Map<string, Map<number, number>>, value: string, day: number): void {
    let days = values.get(value);
    if (days === undefined) {
      days = new Map();
      values.set(value, days);
    }
    const count = days.get(day);
    if (count === undefined) {
      days.set(day, 1);
      this.size++;
    } else days.set(day, count + 1);
  }

  /** Every count held, as (dimension, value, day, count). */
  *entries(): Generator<[name: Dimension["name"], value: string, day: number, count: number]> {
    for (const [name, values] of Object.entries(this.tallies) as Array<
      [Dimension["name"], Map<string, Map<number, number>>]
    >)
      for (const [value, days] of values) for (const [day, count] of days) yield [name, value, day, count];
  }

  clear(): void {
    for (const values of Object.values(this.tallies)) values.clear();
    this.size = 0;
  }
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
