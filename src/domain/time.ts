/**
 * Time, named once: its units, the clock, and the text forms of dates and moments. Stored moments
 * are whole seconds since the epoch (UTC); the publication calendar and timers work in
 * milliseconds. No I/O besides reading the clock.
 */

export const MILLISECONDS_PER_SECOND = 1000;
export const SECONDS_PER_MINUTE = 60;
export const SECONDS_PER_HOUR = 3600;
export const SECONDS_PER_DAY = 86_400;
export const MILLISECONDS_PER_MINUTE = SECONDS_PER_MINUTE * MILLISECONDS_PER_SECOND;
export const MILLISECONDS_PER_HOUR = SECONDS_PER_HOUR * MILLISECONDS_PER_SECOND;
export const MILLISECONDS_PER_DAY = SECONDS_PER_DAY * MILLISECONDS_PER_SECOND;

/** The current time as whole seconds since the epoch, rounded down (as moments are stored). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / MILLISECONDS_PER_SECOND);
}

/*
 * Complaint times carry no zone in the FTC's data; ftcapi stores them as seconds since the epoch
 * read as if they were UTC, so that formatting returns exactly the text that was imported.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` to the seconds of its midnight, or null when it is not a real calendar date. */
export function parseDate(text: string): number | null {
  const match = DATE.exec(text);
  if (!match) return null;
  return midnightOf(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** Midnights of the dates already read, keyed by YYYYMMDD as a number: an extract holds few dates. */
const midnights = new Map<number, number | null>();

/**
 * `YYYY-MM-DD HH:MM:SS` (or with `T`) to seconds, or null when it is not a real moment.
 * Read character by character, with each date's midnight computed once: the importer reads two
 * times a row, and a regular expression and a Date per time cost as much as the rest of a row.
 */
export function parseDateTime(text: string): number | null {
  if (text.length !== 19) return null;
  const separator = text.charCodeAt(10);
  if (
    (separator !== 32 && separator !== 84) ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  )
    return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hours = digitsAt(text, 11, 2);
  const minutes = digitsAt(text, 14, 2);
  const seconds = digitsAt(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hours < 0 || minutes < 0 || seconds < 0) return null;
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  const key = year * 10_000 + month * 100 + day;
  let midnight = midnights.get(key);
  if (midnight === undefined) {
    midnight = midnightOf(year, month, day);
    if (midnights.size >= 20_000) midnights.clear();
    midnights.set(key, midnight);
  }
  return midnight === null
    ? null
    : midnight + hours * SECONDS_PER_HOUR + minutes * SECONDS_PER_MINUTE + seconds;
}

/** The number written with `length` ASCII digits from `at`, or -1 when one is not a digit. */
function digitsAt(text: string, at: number, length: number): number {
  let value = 0;
  for (let index = at; index < at + length; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Years a complaint date may name; `Date.UTC` would read 0000-0099 as 1900-1999. */
const FIRST_YEAR = 1000;

/** Seconds of a date's midnight (UTC), or null when the date does not exist or its year is before 1000. */
function midnightOf(year: number, month: number, day: number): number | null {
  if (year < FIRST_YEAR || month < 1 || month > 12 || day < 1 || day > 31) return null;
  const millis = Date.UTC(year, month - 1, day);
  const check = new Date(millis);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  return millis / 1000;
}

const dayTexts = new Map<number, string>();

/** Seconds to `YYYY-MM-DD HH:MM:SS`, the format of the extracts and of the API. */
export function formatDateTime(seconds: number): string {
  const day = Math.floor(seconds / SECONDS_PER_DAY);
  if (!Number.isInteger(seconds) || day < 0) {
    const iso = new Date(seconds * 1000).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  }
  // Pages hold many complaints of the same few days: the date part is formatted once per day.
  let date = dayTexts.get(day);
  if (date === undefined) {
    date = new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10);
    if (dayTexts.size >= 20_000) dayTexts.clear();
    dayTexts.set(day, date);
  }
  const within = seconds - day * SECONDS_PER_DAY;
  const hours = Math.floor(within / SECONDS_PER_HOUR);
  const minutes = Math.floor(within / SECONDS_PER_MINUTE) % 60;
  const rest = within % SECONDS_PER_MINUTE;
  return `${date} ${hours < 10 ? "0" : ""}${hours}:${minutes < 10 ? "0" : ""}${minutes}:${rest < 10 ? "0" : ""}${rest}`;
}

/** Seconds to ISO 8601 with an explicit UTC offset, as Drupal writes them: `2013-09-24T20:05:39+00:00`. */
export function formatTimestamp(seconds: number): string {
  // formatDateTime keeps each day's text, which a page's notices share; a Date per time cost more.
  return `${formatDateTime(seconds).replace(" ", "T")}+00:00`;
}

/** Seconds to `YYYY-MM-DD`. */
export function formatDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The day number (days since the epoch) that holds a moment. */
export function dayOf(seconds: number): number {
  return Math.floor(seconds / SECONDS_PER_DAY);
}
