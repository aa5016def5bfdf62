import { nextPublicationAfter, type PublicationSchedule } from "../domain/publication-calendar.js";
import { MILLISECONDS_PER_MINUTE, MILLISECONDS_PER_SECOND } from "../domain/time.js";

/** After a failed run in `mirror --follow`: try again this much later (or at the next due time, if sooner). */
export const RETRY_MINUTES = 15;
/**
 * After a successful run that left a collection behind its schedule (a publication was due but
 * the upstream had not published it yet): look again this much later (or at the next due time).
 */
export const RECHECK_MINUTES = 60;

/** One collection a follow mirror copies. */
export interface FollowedCollection {
  schedule: PublicationSchedule;
  /**
   * When the copy last gained records, in seconds since the epoch; undefined when never (or not
   * read). Only a schedule whose publications always bring records (`mayBeEmpty` false) uses it.
   */
  lastUpdatedSeconds?: number;
}

/** What `nextRunAt` decides. */
export interface NextRun {
  /** When to run next, in milliseconds since the epoch. */
  atMillis: number;
  /**
   * Why: `publication`, the next due time (a scheduled publication plus the margin) of any
   * collection; `retry`, the last run failed; `recheck`, a collection missed a publication.
   * The time is the earlier of the due time and the retry or recheck delay.
   */
  reason: "publication" | "retry" | "recheck";
}

/**
 * When `mirror --follow` runs next, from the collections it follows, how the last run ended and
 * the time now (milliseconds since the epoch). Pure: no clock, no I/O. `collections` must not be
 * empty (a RangeError otherwise).
 *
 * - The due time is the earliest next publication after now among the collections' schedules,
 *   plus `marginMinutes`.
 * - After a failed run: the earlier of the due time and RETRY_MINUTES from now.
 * - After a successful run, when a collection is behind (its schedule's publications always
 *   bring records, yet the first publication after its last update is already past): the
 *   earlier of the due time and RECHECK_MINUTES from now. A collection never updated, or whose
 *   publications may be empty (notices), is never behind.
 * - Otherwise: the due time.
 */
export function nextRunAt(input: {
  collections: readonly FollowedCollection[];
  lastRun: "succeeded" | "failed";
  nowMillis: number;
  marginMinutes: number;
}): NextRun {
  const { collections, nowMillis } = input;
  if (collections.length === 0) throw new RangeError("nextRunAt: no collection to follow");
  const due =
    Math.min(...collections.map((collection) => nextPublicationAfter(nowMillis, collection.schedule))) +
    input.marginMinutes * MILLISECONDS_PER_MINUTE;
  if (input.lastRun === "failed") {
    return { atMillis: Math.min(due, nowMillis + RETRY_MINUTES * MILLISECONDS_PER_MINUTE), reason: "retry" };
  }
  if (collections.some((collection) => isBehind(collection, nowMillis))) {
    return {
      atMillis: Math.min(due, nowMillis + RECHECK_MINUTES * MILLISECONDS_PER_MINUTE),
      reason: "recheck",
    };
  }
  return { atMillis: due, reason: "publication" };
}

function isBehind(collection: FollowedCollection, nowMillis: number): boolean {
  const { schedule, lastUpdatedSeconds } = collection;
  if (schedule.mayBeEmpty || lastUpdatedSeconds === undefined) return false;
  return nextPublicationAfter(lastUpdatedSeconds * MILLISECONDS_PER_SECOND, schedule) < nowMillis;
}
