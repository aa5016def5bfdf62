/**
 * Units of time, named once. Stored moments are whole seconds since the epoch (UTC); the
 * publication calendar and timers work in milliseconds. No I/O besides reading the clock.
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
