import { createWriteStream } from "node:fs";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import { COMPLAINT_CSV_HEADER } from "../domain/complaint.js";
import {
  formatDateTime,
  nowSeconds,
  SECONDS_PER_DAY,
  SECONDS_PER_HOUR,
  SECONDS_PER_MINUTE,
} from "../domain/time.js";

export interface GeneratorOptions {
  rows: number;
  /** Created dates span this many days before `endSeconds`. */
  days: number;
  seed: number;
  /** Exclusive end of the created range, seconds; by default the start of today, UTC. */
  endSeconds: number;
}

/** Counts per state in the real 2021-07-08 extract (14,034 rows); "" is the empty state. */
const STATE_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ["California", 1915],
  ["Texas", 1234],
  ["Florida", 1037],
  ["New York", 843],
  ["Ohio", 615],
  ["New Jersey", 541],
  ["Illinois", 539],
  ["Pennsylvania", 508],
  ["Virginia", 465],
  ["Arizona", 432],
  ["Georgia", 409],
  ["North Carolina", 392],
  ["Maryland", 377],
  ["Michigan", 298],
  ["Tennessee", 288],
  ["Washington", 284],
  ["Colorado", 280],
  ["Massachusetts", 258],
  ["Minnesota", 232],
  ["Indiana", 217],
  ["Oregon", 211],
  ["Wisconsin", 199],
  ["Alabama", 199],
  ["South Carolina", 194],
  ["Kentucky", 187],
  ["Missouri", 182],
  ["Oklahoma", 168],
  ["Connecticut", 155],
  ["Nevada", 124],
  ["Kansas", 121],
  ["Louisiana", 113],
  ["Utah", 105],
  ["West Virginia", 93],
  ["Mississippi", 86],
  ["Nebraska", 85],
  ["New Mexico", 80],
  ["New Hampshire", 78],
  ["Arkansas", 77],
  ["Iowa", 76],
  ["Rhode Island", 64],
  ["Idaho", 40],
  ["Hawaii", 38],
  ["Delaware", 29],
  ["South Dakota", 29],
  ["", 25],
  ["Maine", 23],
  ["Montana", 20],
  ["Vermont", 19],
  ["District of Columbia", 15],
  ["North Dakota", 13],
  ["Wyoming", 10],
  ["Alaska", 7],
  ["Puerto Rico", 4],
  ["Virgin Islands", 1],
];

/** The 15 subject texts of the real data with their counts; the double spaces before "&" are real. */
const SUBJECT_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ["Other", 5049],
  ["Dropped call or no message", 2078],
  ["Calls pretending to be government, businesses, or family and friends", 1830],
  ["No Subject Provided", 1786],
  ["Warranties  & protection plans", 1467],
  ["Reducing your debt (credit cards, mortgage, student loans)", 584],
  ["Medical  & prescriptions", 507],
  ["Energy, solar,  & utilities", 195],
  ["Computer  & technical support", 175],
  ["Vacation  & timeshares", 95],
  ["Charities", 93],
  ["Lotteries, prizes  & sweepstakes", 75],
  ["Home improvement  & cleaning", 58],
  ["Work from home  & other ways to make money", 21],
  ["Home security  & alarms", 21],
];

const ROBOCALL_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ["Y", 9698],
  ["N", 3310],
  ["", 1026],
];

/** A few real cities and area codes per state (the first city of each state is its most frequent). */
const PLACES: Readonly<Record<string, { cities: string[]; areaCodes: string[] }>> = {
  California: {
    cities: [
      "Los Angeles",
      "San Diego",
      "San Jose",
      "San Francisco",
      "Sacramento",
      "San Pedro",
      "Fresno",
      "Riverside",
    ],
    areaCodes: ["213", "310", "415", "510", "619", "714", "818", "909", "916", "951"],
  },
  Texas: {
    cities: ["Houston", "San Antonio", "Dallas", "Austin", "Fort Worth", "El Paso"],
    areaCodes: ["214", "281", "512", "682", "713", "817", "915"],
  },
  Florida: {
    cities: ["Miami", "Orlando", "Tampa", "Jacksonville", "Fort Lauderdale"],
    areaCodes: ["305", "407", "813", "904", "954"],
  },
  "New York": {
    cities: ["New York", "Brooklyn", "Buffalo", "Rochester", "Fresh Meadows"],
    areaCodes: ["212", "347", "716", "718", "917"],
  },
  Ohio: {
    cities: ["Columbus", "Cleveland", "Cincinnati", "Toledo"],
    areaCodes: ["216", "513", "614", "419"],
  },
  "New Jersey": {
    cities: ["Newark", "Jersey City", "Paterson", "Trenton"],
    areaCodes: ["201", "609", "732", "973"],
  },
  Illinois: {
    cities: ["Chicago", "Aurora", "Springfield", "Marion", "Clinton"],
    areaCodes: ["217", "312", "618", "630", "773"],
  },
  Pennsylvania: {
    cities: ["Philadelphia", "Pittsburgh", "Allentown"],
    areaCodes: ["215", "412", "610", "717"],
  },
  Virginia: {
    cities: ["Virginia Beach", "Richmond", "Arlington", "Earlysville", "Poquoson"],
    areaCodes: ["434", "703", "757", "804"],
  },
  Arizona: { cities: ["Phoenix", "Tucson", "Mesa", "Scottsdale"], areaCodes: ["480", "520", "602", "623"] },
  Georgia: { cities: ["Atlanta", "Savannah", "Augusta"], areaCodes: ["404", "678", "770", "912"] },
  "North Carolina": {
    cities: ["Charlotte", "Raleigh", "Greensboro", "Mount Olive"],
    areaCodes: ["336", "704", "919"],
  },
  Maryland: { cities: ["Baltimore", "Silver Spring", "Rockville"], areaCodes: ["240", "301", "410"] },
  Michigan: { cities: ["Detroit", "Grand Rapids", "Lansing"], areaCodes: ["248", "313", "616"] },
  Tennessee: { cities: ["Nashville", "Memphis", "Knoxville"], areaCodes: ["615", "901", "865"] },
  Washington: { cities: ["Seattle", "Spokane", "Tacoma"], areaCodes: ["206", "253", "509"] },
  Colorado: { cities: ["Denver", "Colorado Springs", "Aurora"], areaCodes: ["303", "719", "720"] },
  Massachusetts: { cities: ["Boston", "Worcester", "Springfield"], areaCodes: ["413", "508", "617"] },
  Minnesota: { cities: ["Minneapolis", "Saint Paul", "Duluth"], areaCodes: ["218", "612", "651"] },
  Indiana: { cities: ["Indianapolis", "Fort Wayne"], areaCodes: ["260", "317"] },
  Oregon: { cities: ["Portland", "Salem", "Eugene"], areaCodes: ["503", "541"] },
  Wisconsin: { cities: ["Milwaukee", "Madison"], areaCodes: ["414", "608"] },
  Alabama: { cities: ["Birmingham", "Montgomery", "Mobile"], areaCodes: ["205", "251", "334"] },
  "South Carolina": { cities: ["Columbia", "Charleston"], areaCodes: ["803", "843"] },
  Kentucky: { cities: ["Louisville", "Lexington"], areaCodes: ["502", "859"] },
  Missouri: { cities: ["Kansas City", "Saint Louis"], areaCodes: ["314", "816"] },
  Oklahoma: { cities: ["Oklahoma City", "Tulsa"], areaCodes: ["405", "918"] },
  Connecticut: { cities: ["Hartford", "New Haven"], areaCodes: ["203", "860"] },
  Nevada: { cities: ["Las Vegas", "Reno"], areaCodes: ["702", "775"] },
  Kansas: { cities: ["Wichita", "Topeka"], areaCodes: ["316", "785"] },
  Louisiana: { cities: ["New Orleans", "Baton Rouge"], areaCodes: ["225", "504"] },
  Utah: { cities: ["Salt Lake City", "Provo"], areaCodes: ["385", "801"] },
  "West Virginia": { cities: ["Charleston", "Huntington"], areaCodes: ["304"] },
  Mississippi: { cities: ["Jackson", "Gulfport"], areaCodes: ["228", "601"] },
  Nebraska: { cities: ["Omaha", "Lincoln"], areaCodes: ["402"] },
  "New Mexico": { cities: ["Albuquerque", "Santa Fe"], areaCodes: ["505"] },
  "New Hampshire": { cities: ["Manchester", "Nashua"], areaCodes: ["603"] },
  Arkansas: { cities: ["Little Rock", "Fayetteville"], areaCodes: ["479", "501"] },
  Iowa: { cities: ["Des Moines", "Cedar Rapids"], areaCodes: ["319", "515"] },
  "Rhode Island": { cities: ["Providence", "Warwick"], areaCodes: ["401"] },
  Idaho: { cities: ["Boise", "Nampa"], areaCodes: ["208"] },
  Hawaii: { cities: ["Honolulu", "Hilo"], areaCodes: ["808"] },
  Delaware: { cities: ["Wilmington", "Dover"], areaCodes: ["302"] },
  "South Dakota": { cities: ["Sioux Falls", "Rapid City"], areaCodes: ["605"] },
  Maine: { cities: ["Portland", "Bangor"], areaCodes: ["207"] },
  Montana: { cities: ["Billings", "Missoula"], areaCodes: ["406"] },
  Vermont: { cities: ["Burlington"], areaCodes: ["802"] },
  "District of Columbia": { cities: ["Washington"], areaCodes: ["202"] },
  "North Dakota": { cities: ["Fargo", "Bismarck"], areaCodes: ["701"] },
  Wyoming: { cities: ["Cheyenne", "Casper"], areaCodes: ["307"] },
  Alaska: { cities: ["Anchorage", "Fairbanks"], areaCodes: ["907"] },
  "Puerto Rico": { cities: ["San Juan"], areaCodes: ["787"] },
  "Virgin Islands": { cities: ["Charlotte Amalie"], areaCodes: ["340"] },
  "": { cities: [""], areaCodes: ["720", "212", "800"] },
};

/** mulberry32: a small, fast, well-distributed 32-bit generator; deterministic for a seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(table: ReadonlyArray<readonly [T, number]>): (next: () => number) => T {
  const total = table.reduce((sum, [, weight]) => sum + weight, 0);
  const cumulative: number[] = [];
  let running = 0;
  for (const [, weight] of table) {
    running += weight;
    cumulative.push(running / total);
  }
  return (next) => {
    const roll = next();
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! > roll) high = middle;
      else low = middle + 1;
    }
    return table[low]![0];
  };
}

const pickState = weighted(STATE_WEIGHTS);
const pickSubject = weighted(SUBJECT_WEIGHTS);
const pickRobocall = weighted(ROBOCALL_WEIGHTS);

/** The start of today, UTC, in seconds: the default end of generated data. */
export function startOfTodaySeconds(): number {
  return Math.floor(nowSeconds() / SECONDS_PER_DAY) * SECONDS_PER_DAY;
}

/**
 * Synthetic complaint rows (the eight CSV values, in the extracts' order), deterministic for the
 * options, with the real data's texture. Rows come roughly, not strictly, in created order, as in
 * the real files.
 */
export function* generateComplaintRows(options: GeneratorOptions): Generator<string[]> {
  const next = random(options.seed);
  const start = options.endSeconds - options.days * SECONDS_PER_DAY;
  const spanSeconds = options.days * SECONDS_PER_DAY;
  const digits = (count: number) => {
    let text = String(2 + Math.floor(next() * 8));
    while (text.length < count) text += String(Math.floor(next() * 10));
    return text;
  };
  for (let index = 0; index < options.rows; index++) {
    const jitter = Math.floor((next() - 0.5) * 600);
    const created = Math.min(
      options.endSeconds - 1,
      Math.max(start, start + Math.floor((index / options.rows) * spanSeconds) + jitter),
    );
    const state = pickState(next);
    const place = PLACES[state] ?? PLACES[""]!;
    let city = next() < 0.35 ? "" : place.cities[Math.floor(next() * place.cities.length)]!;
    if (city && next() < 0.03) city = city.toLowerCase();
    const areaCode = place.areaCodes[Math.floor(next() * place.areaCodes.length)]!;
    const phoneRoll = next();
    const phone = phoneRoll < 0.05 ? "" : phoneRoll < 0.94 ? digits(10) : digits(7 + Math.floor(next() * 9));
    const delayRoll = next();
    let delaySeconds: number;
    if (delayRoll < 0.005) delaySeconds = -Math.floor(next() * 72 * SECONDS_PER_HOUR);
    else if (delayRoll < 0.7) delaySeconds = Math.floor(next() * 48 * SECONDS_PER_HOUR);
    else if (delayRoll < 0.9) delaySeconds = 2 * SECONDS_PER_DAY + Math.floor(next() * 28 * SECONDS_PER_DAY);
    else if (delayRoll < 0.99)
      delaySeconds = 30 * SECONDS_PER_DAY + Math.floor(next() * 700 * SECONDS_PER_DAY);
    else delaySeconds = 730 * SECONDS_PER_DAY + Math.floor(next() * 1100 * SECONDS_PER_DAY);
    const violation = Math.floor((created - delaySeconds) / SECONDS_PER_MINUTE) * SECONDS_PER_MINUTE;
    yield [
      phone,
      formatDateTime(created),
      formatDateTime(violation),
      city,
      state,
      areaCode,
      pickSubject(next),
      pickRobocall(next),
    ];
  }
}

/**
 * Writes a synthetic extract in the FTC's exact format (their header, CRLF, quotes only where a
 * value needs them) to `out`, streaming in constant memory.
 */
export async function writeComplaintCsv(options: GeneratorOptions, out: string | Writable): Promise<void> {
  const target = typeof out === "string" ? createWriteStream(out) : out;
  await pipeline(
    Readable.from(generateComplaintRows(options)),
    stringify({ header: true, columns: [...COMPLAINT_CSV_HEADER], record_delimiter: "windows" }),
    target,
  );
}
