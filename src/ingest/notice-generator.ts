import { createWriteStream } from "node:fs";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { stringify } from "csv-stringify";
import { ENTITY_SEPARATOR, NOTICE_CSV_HEADER } from "../domain/notice.js";
import { formatTimestamp, SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";

export interface NoticeGeneratorOptions {
  rows: number;
  seed: number;
}

/** Early terminations were granted from the start of the data (1999) until their suspension in February 2021. */
const FIRST_DAY = Date.UTC(1999, 0, 4) / 1000;
const LAST_DAY = Date.UTC(2021, 1, 3) / 1000;
/** Records dated before this were loaded into the FTC's site in one batch on this day. */
const BULK_LOAD = Date.UTC(2013, 8, 24, 20, 5, 39) / 1000;

const FIRST_NAMES = [
  "Carl",
  "Charles",
  "Warren",
  "John",
  "Michael",
  "David",
  "Robert",
  "James",
  "William",
  "Richard",
  "Thomas",
  "Mary",
  "Patricia",
  "Linda",
  "Barbara",
  "Elizabeth",
  "Susan",
  "Margaret",
  "Ronald",
  "Stephen",
  "Laurene",
  "Sumner",
  "Rupert",
  "Kenneth",
  "Lawrence",
  "Philip",
  "Leon",
  "Henry",
  "George",
  "Anne",
];
const INITIALS = [
  "",
  "",
  "",
  "A. ",
  "B. ",
  "C. ",
  "D. ",
  "E. ",
  "F. ",
  "J. ",
  "K. ",
  "L. ",
  "M. ",
  "P. ",
  "R. ",
  "S. ",
  "W. ",
];
const LAST_NAMES = [
  "Icahn",
  "Ergen",
  "Buffett",
  "Malone",
  "Ellison",
  "Bloomberg",
  "Koch",
  "Walton",
  "Anschutz",
  "Redstone",
  "Murdoch",
  "Tisch",
  "Bass",
  "Pritzker",
  "Perelman",
  "Schwarzman",
  "Kravis",
  "Roberts",
  "Black",
  "Dell",
  "Ross",
  "Soros",
  "Simons",
  "Griffin",
  "Zell",
  "Hunt",
  "Cargill",
  "MacMillan",
  "Fisher",
  "Moore",
];
const ROOTS = [
  "Apex",
  "Blue Ridge",
  "Cardinal",
  "Summit",
  "Meridian",
  "Pinnacle",
  "Harbor",
  "Granite",
  "Sterling",
  "Northstar",
  "Evergreen",
  "Liberty",
  "Atlas",
  "Keystone",
  "Riverbend",
  "Silverline",
  "Crescent",
  "Beacon",
  "Horizon",
  "Pioneer",
  "Frontier",
  "Westbrook",
  "Oakmont",
  "Redwood",
  "Stonebridge",
  "Bayside",
  "Lakeshore",
  "Ironwood",
  "Clearwater",
  "Hawthorne",
  "Blackstone",
  "Carlyle",
  "Bain",
  "Warburg",
  "Vista",
  "Thoma",
  "Berkshire",
  "General",
  "United",
  "American",
  "National",
  "Pacific",
  "Atlantic",
  "Continental",
  "Midwest",
  "Southern",
  "Northern",
  "Great Lakes",
  "Rocky Mountain",
  "Gulf Coast",
  "Tri-State",
  "Empire",
  "Heritage",
  "Allied",
  "Consolidated",
  "Premier",
  "Sovereign",
  "Trinity",
  "Vanguard",
  "Zenith",
];
const INDUSTRIES = [
  "Energy",
  "Health",
  "Pharmaceuticals",
  "Media",
  "Communications",
  "Foods",
  "Chemicals",
  "Technologies",
  "Software",
  "Logistics",
  "Industries",
  "Financial",
  "Insurance",
  "Semiconductor",
  "Medical",
  "Realty",
  "Aerospace",
  "Automotive",
  "Retail",
  "Brands",
  "Materials",
  "Biosciences",
  "Networks",
  "Oil & Gas",
  "Pipeline",
  "Hospital",
  "Steel",
  "Paper",
  "Packaging",
  "Entertainment",
  "Wireless",
  "Utilities",
];
const FORMS = [
  "Holdings",
  "Group",
  "Systems",
  "International",
  "Partners",
  "Enterprises",
  "Resources",
  "Services",
];
const SUFFIXES = [
  ", Inc.",
  ", Inc.",
  ", Inc.",
  " Corporation",
  " Corporation",
  " Company",
  " LLC",
  " LLC",
  ", L.P.",
  " Ltd.",
  " plc",
  " AG",
  " N.V.",
  " S.A.",
  " Co., Ltd.",
  " GmbH",
  " S.p.A.",
  " Limited",
];
const ROMAN = ["II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"];
const SUBSIDIARIES = [
  "Operating Company",
  "Acquisition Corp.",
  "Holdings LLC",
  "Finance LLC",
  "Services, Inc.",
  "Intermediate, Inc.",
  "Midstream, L.P.",
  "International B.V.",
  "USA, Inc.",
  "Canada ULC",
  "Properties LLC",
  "Manufacturing, Inc.",
];

/** mulberry32: a small, well-distributed 32-bit generator; deterministic for a seed. */
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

/**
 * Synthetic notices as CSV rows (NOTICE_CSV_HEADER), deterministic for the options: dates spread
 * over business days from 1999 to February 2021 in order, transaction numbers of the filing year and
 * a sequence that grows through the year, individuals and companies as acquirers, fund names,
 * debtors-in-possession, and several acquired entities on some notices.
 */
export function* generateNoticeRows(options: NoticeGeneratorOptions): Generator<string[]> {
  const next = random(options.seed * 7919 + 17);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const span = (LAST_DAY - FIRST_DAY) / SECONDS_PER_DAY;
  const days: number[] = [];
  for (let index = 0; index < options.rows; index++) {
    let day = FIRST_DAY + Math.floor(next() * span) * SECONDS_PER_DAY;
    const weekday = new Date(day * 1000).getUTCDay();
    if (weekday === 0) day += SECONDS_PER_DAY;
    if (weekday === 6) day -= SECONDS_PER_DAY;
    days.push(day);
  }
  days.sort((a, b) => a - b);
  const sequences = new Map<number, number>();

  const company = (): string => {
    const roll = next();
    if (roll < 0.12) return `${pick(ROOTS)} Capital Partners ${pick(ROMAN)}, L.P.`;
    if (roll < 0.2) return `${pick(ROOTS)} ${pick(INDUSTRIES)} Fund ${pick(ROMAN)}, L.P.`;
    if (roll < 0.55) return `${pick(ROOTS)} ${pick(INDUSTRIES)}${pick(SUFFIXES)}`;
    return `${pick(ROOTS)} ${pick(INDUSTRIES)} ${pick(FORMS)}${pick(SUFFIXES)}`;
  };
  const person = (): string => `${pick(FIRST_NAMES)} ${pick(INITIALS)}${pick(LAST_NAMES)}`;

  for (const day of days) {
    const filed = new Date((day - (14 + Math.floor(next() * 30)) * SECONDS_PER_DAY) * 1000).getUTCFullYear();
    const sequence = (sequences.get(filed) ?? 0) + 1 + Math.floor(next() * 3);
    sequences.set(filed, sequence);
    const transaction = `${filed}${String(sequence).padStart(4, "0")}`;
    const acquiring = next() < 0.22 ? person() : company();
    let acquired = company();
    if (next() < 0.03) acquired = `${acquired} - Debtor-in-Possession`;
    const entities = [acquired];
    const extra = next();
    if (extra < 0.2) {
      const base = acquired
        .replace(/(, Inc\.|, L\.P\.|,? [A-Z][A-Za-z.,]*)$/, "")
        .replace(/ - Debtor-in-Possession$/, "");
      const count = 1 + Math.floor(next() * 3);
      for (let index = 0; index < count; index++) entities.push(`${base} ${pick(SUBSIDIARIES)}`);
    } else if (extra < 0.27) {
      entities.splice(0, 1, company(), company());
    }
    let created: number;
    let updated: number;
    if (day < BULK_LOAD - 30 * SECONDS_PER_DAY) {
      created = BULK_LOAD + Math.floor(next() * 600);
      updated = created + 8000 + Math.floor(next() * 400);
    } else {
      created =
        day +
        Math.floor(next() * 3) * SECONDS_PER_DAY +
        (13 + Math.floor(next() * 9)) * SECONDS_PER_HOUR +
        Math.floor(next() * SECONDS_PER_HOUR);
      updated =
        next() < 0.9
          ? created + Math.floor(next() * SECONDS_PER_HOUR)
          : created + Math.floor(next() * 60) * SECONDS_PER_DAY;
    }
    yield [
      transaction,
      acquiring,
      acquired,
      [...new Set(entities)].join(ENTITY_SEPARATOR),
      new Date(day * 1000).toISOString().slice(0, 10),
      formatTimestamp(created),
      formatTimestamp(updated),
    ];
  }
}

/** Writes generated notices as CSV (header first, LF line ends, RFC 4180 quoting). */
export async function writeNoticeCsv(options: NoticeGeneratorOptions, out: string | Writable): Promise<void> {
  const target = typeof out === "string" ? createWriteStream(out) : out;
  await pipeline(
    Readable.from(generateNoticeRows(options)),
    stringify({ header: true, columns: [...NOTICE_CSV_HEADER] }),
    target,
  );
}
