import type { CountGroup } from "./api-client.js";

/** One day of a chart: complaints created that day and how many of them were robocalls (`Y`). */
export interface DailyPoint {
  day: string;
  total: number;
  robocalls: number;
}

const DAY_MS = 86_400_000;

/** The day `YYYY-MM-DD` as milliseconds since 1970 (UTC midnight). */
export function dayMillis(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** Milliseconds as the day `YYYY-MM-DD` (UTC). */
export function dayText(millis: number): string {
  return new Date(millis).toISOString().slice(0, 10);
}

/** `day` moved by a number of days. */
export function addDays(day: string, days: number): string {
  return dayText(dayMillis(day) + days * DAY_MS);
}

/**
 * Every day from `from` to `to` (inclusive), with the groups of a `by=created_date,is_robocall`
 * answer added up per day; days without complaints are 0, so a chart has one point per day.
 */
export function dailySeries(groups: readonly CountGroup[], from: string, to: string): DailyPoint[] {
  const start = dayMillis(from);
  const days = Math.max(0, Math.round((dayMillis(to) - start) / DAY_MS) + 1);
  const points: DailyPoint[] = Array.from({ length: days }, (_, index) => ({
    day: dayText(start + index * DAY_MS),
    total: 0,
    robocalls: 0,
  }));
  for (const group of groups) {
    const day = group["created-date"];
    if (day === undefined) continue;
    const point = points[Math.round((dayMillis(day) - start) / DAY_MS)];
    if (point === undefined) continue;
    point.total += group.count;
    if (group["recorded-message-or-robocall"] === "Y") point.robocalls += group.count;
  }
  return points;
}
