/**
 * Complaint times carry no zone in the FTC's data; ftcapi stores them as seconds since the epoch
 * read as if they were UTC, so that formatting returns exactly the text that was imported.
 */
export const SECONDS_PER_DAY = 86_400;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD` to the seconds of its midnight, or null when it is not a real calendar date. */
export function parseDate(text: string): number | null {
  const match = DATE.exec(text);
  if (!match) return null;
  return toSeconds(match, 0, 0, 0);
}

/** `YYYY-MM-DD HH:MM:SS` (or with `T`) to seconds, or null when it is not a real moment. */
export function parseDateTime(text: string): number | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  return toSeconds(match, Number(match[4]), Number(match[5]), Number(match[6]));
}

function toSeconds(match: RegExpExecArray, hours: number, minutes: number, seconds: number): number | null {
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 59)
    return null;
  const millis = Date.UTC(year, month - 1, day, hours, minutes, seconds);
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
  const hours = Math.floor(within / 3600);
  const minutes = Math.floor(within / 60) % 60;
  const rest = within % 60;
  return `${date} ${hours < 10 ? "0" : ""}${hours}:${minutes < 10 ? "0" : ""}${minutes}:${rest < 10 ? "0" : ""}${rest}`;
}

/** Seconds to `YYYY-MM-DD`. */
export function formatDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The day number (days since the epoch) that holds a moment. */
export function dayOf(seconds: number): number {
  return Math.floor(seconds / SECONDS_PER_DAY);
}
