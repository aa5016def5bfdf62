/**
 * The FTC's publication calendar (spec 1.4): Do Not Call complaints are published each business
 * day by about noon Eastern time; weekend data comes on Monday, holiday data on the next business
 * day. Business days are weekdays that are not US federal holidays as observed (5 U.S.C. 6103: a
 * holiday on a Saturday is observed the Friday before, on a Sunday the Monday after). Dates are
 * `YYYY-MM-DD` strings; instants are milliseconds since the epoch. No I/O.
 */

import { MILLISECONDS_PER_DAY, MILLISECONDS_PER_HOUR } from "./time.js";

export interface FederalHoliday {
  name: string;
  /** The holiday's own date. */
  date: string;
  /** The weekday on which it is observed (the date itself unless that falls on a weekend). */
  observed: string;
}

/** Where and when publications happen. */
export interface PublicationSchedule {
  /** IANA zone of the publisher's clock. */
  timeZone: string;
  /** Hour of the day (0-24, on that clock; 24 is the day's end) by which a day's publication is out. */
  hour: number;
  /** Which days publish: business days only, or every calendar day. */
  days: "business" | "every";
  /**
   * True when a scheduled publication may legitimately bring nothing (notices: a day on which no
   * deal received early termination), so an unchanged collection is not by itself behind: a
   * mirror run after the due time, finding nothing, counts as current.
   */
  mayBeEmpty: boolean;
  /** The schedule in words, for `/v0/status`. */
  description: string;
}

/** Complaints (spec 1.4): each business day by about noon in Washington; each publication brings complaints. */
export const COMPLAINT_SCHEDULE: PublicationSchedule = {
  timeZone: "America/New_York",
  hour: 12,
  days: "business",
  mayBeEmpty: false,
  description: "each business day (US federal holidays observed) by about 12:00 America/New_York",
};

/**
 * Notices (spec 1.2): "updated daily with deals that receive early termination". The spec names
 * no hour and no days off, so each calendar day is taken as a publication due by the end of that
 * day on Washington's clock; a day without early terminations adds nothing, so the schedule may
 * be empty.
 */
export const NOTICE_SCHEDULE: PublicationSchedule = {
  timeZone: "America/New_York",
  hour: 24,
  days: "every",
  mayBeEmpty: true,
  description:
    "every day by the end of the day (24:00) America/New_York; a day on which no deal received early termination adds nothing",
};

/** `YYYY-MM-DD` to days since 1970-01-01. */
export function dayNumberOf(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`not a date as YYYY-MM-DD: '${date}'`);
  const millis = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (dateOfDayNumber(millis / MILLISECONDS_PER_DAY) !== date)
    throw new RangeError(`not a calendar date: '${date}'`);
  return millis / MILLISECONDS_PER_DAY;
}

/** Days since 1970-01-01 to `YYYY-MM-DD`. */
export function dateOfDayNumber(dayNumber: number): string {
  return new Date(dayNumber * MILLISECONDS_PER_DAY).toISOString().slice(0, 10);
}

/** 0 = Sunday ... 6 = Saturday. */
function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

function day(year: number, month: number, date: number): number {
  return Date.UTC(year, month - 1, date) / MILLISECONDS_PER_DAY;
}

/** The `nth` (1-based) given weekday of a month; `nth` = -1 for the last. */
function nthWeekday(year: number, month: number, weekday: number, nth: number): number {
  if (nth === -1) {
    const last = day(year, month + 1, 0);
    return last - ((weekdayOf(last) - weekday + 7) % 7);
  }
  const first = day(year, month, 1);
  return first + ((weekday - weekdayOf(first) + 7) % 7) + (nth - 1) * 7;
}

function observedDay(dayNumber: number): number {
  const weekday = weekdayOf(dayNumber);
  if (weekday === 6) return dayNumber - 1;
  if (weekday === 0) return dayNumber + 1;
  return dayNumber;
}

const MONDAY = 1;
const THURSDAY = 4;

/**
 * The federal holidays of `year` (by their own dates, in calendar order). Juneteenth counts from
 * 2021, when it became one. A New Year's Day on a Saturday is observed on December 31 of the year
 * before: see `observedHolidaysIn`.
 */
export function federalHolidays(year: number): FederalHoliday[] {
  const days: Array<[string, number]> = [
    ["New Year's Day", day(year, 1, 1)],
    ["Birthday of Martin Luther King, Jr.", nthWeekday(year, 1, MONDAY, 3)],
    ["Washington's Birthday", nthWeekday(year, 2, MONDAY, 3)],
    ["Memorial Day", nthWeekday(year, 5, MONDAY, -1)],
    ...(year >= 2021 ? [["Juneteenth National Independence Day", day(year, 6, 19)] as [string, number]] : []),
    ["Independence Day", day(year, 7, 4)],
    ["Labor Day", nthWeekday(year, 9, MONDAY, 1)],
    ["Columbus Day", nthWeekday(year, 10, MONDAY, 2)],
    ["Veterans Day", day(year, 11, 11)],
    ["Thanksgiving Day", nthWeekday(year, 11, THURSDAY, 4)],
    ["Christmas Day", day(year, 12, 25)],
  ];
  return days.map(([name, dayNumber]) => ({
    name,
    date: dateOfDayNumber(dayNumber),
    observed: dateOfDayNumber(observedDay(dayNumber)),
  }));
}

/** The holidays observed on a day of `year`, in order (including the next New Year's Day when observed on December 31). */
export function observedHolidaysIn(year: number): FederalHoliday[] {
  return [...federalHolidays(year), ...federalHolidays(year + 1)].filter((holiday) =>
    holiday.observed.startsWith(`${year}-`),
  );
}

const holidayCache = new Map<number, Set<number>>();

function observedDaysOf(year: number): Set<number> {
  let days = holidayCache.get(year);
  if (!days) {
    days = new Set(observedHolidaysIn(year).map((holiday) => dayNumberOf(holiday.observed)));
    holidayCache.set(year, days);
  }
  return days;
}

/** Whether a day (days since the epoch) is a federal holiday as observed. */
export function isObservedHoliday(dayNumber: number): boolean {
  return observedDaysOf(new Date(dayNumber * MILLISECONDS_PER_DAY).getUTCFullYear()).has(dayNumber);
}

/** Whether a day (days since the epoch) is a business day: Monday to Friday, not an observed holiday. */
export function isBusinessDay(dayNumber: number): boolean {
  const weekday = weekdayOf(dayNumber);
  return weekday !== 0 && weekday !== 6 && !isObservedHoliday(dayNumber);
}

/** The first business day after `dayNumber`. */
export function nextBusinessDay(dayNumber: number): number {
  let next = dayNumber + 1;
  while (!isBusinessDay(next)) next++;
  return next;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock reading of `instantMillis` in `timeZone`, as if it were UTC (milliseconds). */
function wallClockMillis(instantMillis: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(instantMillis));
  const value = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(
    value("year"),
    value("month") - 1,
    value("day"),
    value("hour"),
    value("minute"),
    value("second"),
  );
}

/** The day (days since the epoch) that `instantMillis` falls on in `timeZone`. */
export function localDayNumber(instantMillis: number, timeZone: string): number {
  return Math.floor(wallClockMillis(instantMillis, timeZone) / MILLISECONDS_PER_DAY);
}

/**
 * The instant at which the clock of `timeZone` reads `hour`:00 on the given day. Daylight saving
 * time is taken from the zone's rules for that day (US transitions happen at 02:00, never at noon or midnight).
 */
export function zonedInstant(dayNumber: number, hour: number, timeZone: string): number {
  const wall = dayNumber * MILLISECONDS_PER_DAY + hour * MILLISECONDS_PER_HOUR;
  const seconds = (millis: number) => Math.floor(millis / 1000) * 1000;
  let instant = wall - (wallClockMillis(wall, timeZone) - seconds(wall));
  // The offset at the first guess may differ from the offset at the answer near a transition.
  const corrected = wall - (wallClockMillis(instant, timeZone) - seconds(instant));
  if (corrected !== instant) instant = corrected;
  return instant;
}

/**
 * The first scheduled publication strictly after `afterMillis`: the schedule's hour on the first
 * publishing day (a business day, or any day, on the schedule's clock) on which that moment is
 * still ahead.
 */
export function nextPublicationAfter(
  afterMillis: number,
  schedule: PublicationSchedule = COMPLAINT_SCHEDULE,
): number {
  let dayNumber = localDayNumber(afterMillis, schedule.timeZone);
  for (;;) {
    if (schedule.days === "every" || isBusinessDay(dayNumber)) {
      const instant = zonedInstant(dayNumber, schedule.hour, schedule.timeZone);
      if (instant > afterMillis) return instant;
    }
    dayNumber++;
  }
}
