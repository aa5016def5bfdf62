import type { Complaint } from "../domain/complaint.js";
import { SECONDS_PER_DAY } from "../domain/time.js";
import type { StoredComplaintQuery } from "./complaint-filters.js";

/**
 * A dimension of `complaint_counts`: a set of complaints that a filter selects whole (all of
 * them, one state, one city, ...), counted per day of `created_at` (or of `violation_at`). The
 * `shown_` dimensions and `subject` count by the value exactly as stored, for the counts endpoint's
 * groups (the `state`, `city` and `any_city`, a city in every state, dimensions count by match key,
 * for filters); `shown_area` is
 * counted per hour only (per day, `area` counts the same).
 */
export interface Dimension {
  name:
    | "all"
    | "state"
    | "city"
    | "any_city"
    | "area"
    | "robocall"
    | "violation"
    | "shown_state"
    | "shown_city"
    | "shown_area"
    | "subject";
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
  /**
   * Counts per bucket of `bucketSeconds` (a day, or an hour for `complaint_hour_counts`), of the
   * dimensions in `only` (all when absent).
   */
  constructor(
    private readonly bucketSeconds: number = SECONDS_PER_DAY,
    private readonly only?: ReadonlySet<Dimension["name"]>,
  ) {}

  private readonly tallies: Record<Dimension["name"], Map<string, Map<number, number>>> = {
    all: new Map(),
    state: new Map(),
    city: new Map(),
    any_city: new Map(),
    area: new Map(),
    robocall: new Map(),
    violation: new Map(),
    shown_state: new Map(),
    shown_city: new Map(),
    shown_area: new Map(),
    subject: new Map(),
  };
  /** Distinct (dimension, value, day) counts held. */
  size = 0;

  /** Counts one complaint; `stateKey` and `cityKey` are its match keys. */
  add(complaint: Complaint, stateKey: string, cityKey: string): void {
    const bucket = Math.floor(complaint.createdAt / this.bucketSeconds);
    const only = this.only;
    if (!only || only.has("all")) this.bump(this.tallies.all, "", bucket);
    if (!only || only.has("state")) this.bump(this.tallies.state, stateKey, bucket);
    if (!only || only.has("city")) this.bump(this.tallies.city, `${stateKey}${SEPARATOR}${cityKey}`, bucket);
    if (!only || only.has("any_city")) this.bump(this.tallies.any_city, cityKey, bucket);
    if (!only || only.has("area")) this.bump(this.tallies.area, complaint.areaCode, bucket);
    if (!only || only.has("robocall")) this.bump(this.tallies.robocall, complaint.robocall, bucket);
    if (!only || only.has("violation"))
      this.bump(this.tallies.violation, "", Math.floor(complaint.violationAt / this.bucketSeconds));
    if (!only || only.has("shown_state")) this.bump(this.tallies.shown_state, complaint.state, bucket);
    if (!only || only.has("shown_city")) this.bump(this.tallies.shown_city, complaint.city, bucket);
    if (!only || only.has("shown_area")) this.bump(this.tallies.shown_area, complaint.areaCode, bucket);
    if (!only || only.has("subject")) this.bump(this.tallies.subject, complaint.subject, bucket);
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
 * dimension covers (those are counted from the rows through the best index). A subject (resolved,
 * see `StoredComplaintQuery`) alone or with a created range is its one stored spelling's `subject`
 * counts; with another filter, or spelled several ways in the store, it is counted on rows.
 */
export function dimensionFor(query: StoredComplaintQuery): Dimension | null {
  if (query.phone !== undefined) return null;
  if (query.subject !== undefined) {
    const alone =
      query.subjects?.length === 1 &&
      query.state === undefined &&
      query.city === undefined &&
      query.areaCode === undefined &&
      query.robocall === undefined &&
      query.violation === undefined;
    return alone ? { name: "subject", value: query.subjects![0]!, column: "created_at" } : null;
  }
  // A combination of place filters is counted on rows; a city without a state is one place filter.
  const places =
    (query.state !== undefined || query.city !== undefined ? 1 : 0) +
    (query.areaCode !== undefined ? 1 : 0) +
    (query.robocall ? 1 : 0);
  if (places > 1) return null;
  if (query.violation) {
    const alone = !query.created && places === 0;
    return alone ? { name: "violation", value: "", column: "violation_at" } : null;
  }
  if (query.city !== undefined && query.state !== undefined) {
    return { name: "city", value: `${query.state}${SEPARATOR}${query.city}`, column: "created_at" };
  }
  if (query.city !== undefined) return { name: "any_city", value: query.city, column: "created_at" };
  if (query.state !== undefined) return { name: "state", value: query.state, column: "created_at" };
  if (query.areaCode !== undefined) return { name: "area", value: query.areaCode, column: "created_at" };
  if (query.robocall !== undefined) return { name: "robocall", value: query.robocall, column: "created_at" };
  return { name: "all", value: "", column: "created_at" };
}

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
  { name: "shown_state", value: "state", column: "created_at" },
  { name: "shown_city", value: "city", column: "created_at" },
  { name: "shown_area", value: "area_code", column: "created_at" },
  { name: "subject", value: "subject", column: "created_at" },
];

/** The dimensions `complaint_counts` holds per day: all but `shown_area` (per day, `area` is the same). */
export const DAILY_DIMENSIONS: ReadonlySet<Dimension["name"]> = new Set([
  "all",
  "state",
  "city",
  "any_city",
  "area",
  "robocall",
  "violation",
  "shown_state",
  "shown_city",
  "subject",
]);

/** Whether `name` is counted per hour as well as per day. */
export function isHourly(name: Dimension["name"]): boolean {
  return HOURLY_DIMENSIONS.some((dimension) => dimension.name === name);
}
