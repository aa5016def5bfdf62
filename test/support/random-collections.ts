/**
 * Random complaints and notices with the real data's rough edges, built from a seed (the same seed
 * gives the same data on every dialect and every run), written as the files `ftcapi import` reads:
 * a Do Not Call extract (CSV) and a saved JSON:API page of notices. Used by the query oracle suite
 * (test/integration/query-oracle.test.ts), which draws its requests from what is generated here.
 */
import { writeFile } from "node:fs/promises";
import { COMPLAINT_CSV_HEADER } from "../../src/domain/complaint.js";
import { SeededRandom } from "./seeded-random.js";

const DAY = 86_400;
const HOUR = 3_600;

// ---------------------------------------------------------------------------------------------
// Complaints

/** What a request generator needs to know of the complaints: the span, and the values they hold. */
export interface RandomComplaints {
  csv: string;
  rows: number;
  /** Midnight (seconds) of the first day holding complaints, and how many days they span. */
  firstDay: number;
  days: number;
  /** Every created and violation time written (seconds, as the extract's times read as UTC). */
  createdTimes: number[];
  violationTimes: number[];
  /** State names as the extract usually spells them, with the cities seen in each. */
  states: Array<{ name: string; cities: string[] }>;
  areaCodes: string[];
  /** Caller numbers made of digits only (those a request can name). */
  phones: string[];
  /** The subjects drawn from, as usually spelled ("Other" is also stored as "other" and "OTHER"). */
  subjects: string[];
}

/** Full state names with weights, skewed as the real extracts are; the empty state is real too. */
const STATES: ReadonlyArray<readonly [string, number, readonly string[]]> = [
  ["California", 25, ["Los Angeles", "San Pedro", "San Diego", "Fresno", "Oakland"]],
  ["Texas", 15, ["Houston", "Dallas", "Austin", "El Paso"]],
  ["Florida", 12, ["Miami", "Tampa", "Orlando"]],
  ["New York", 10, ["New York", "Brooklyn", "Buffalo"]],
  ["Ohio", 6, ["Columbus", "Cleveland", "Dayton"]],
  ["Virginia", 5, ["Earlysville", "Poquoson", "Richmond"]],
  ["Georgia", 4, ["Atlanta", "Macon"]],
  ["Illinois", 4, ["Chicago", "Springfield"]],
  ["Arizona", 3, ["Phoenix", "Tucson"]],
  ["Oregon", 2, ["Portland", "Salem"]],
  ["District of Columbia", 1, ["Washington"]],
  ["Vermont", 0.6, ["Burlington"]],
  ["Wyoming", 0.2, ["Cheyenne"]],
  ["", 2, [""]],
];

const AREA_CODES = [
  "310",
  "213",
  "619",
  "559",
  "510",
  "713",
  "214",
  "512",
  "915",
  "305",
  "813",
  "407",
  "212",
  "718",
  "716",
  "614",
  "216",
  "937",
  "434",
  "757",
  "804",
  "404",
  "478",
  "312",
  "217",
  "602",
  "520",
  "503",
  "202",
  "802",
  "307",
];

const SUBJECTS = [
  "Other",
  "Computer & technical support",
  "Reducing your debt (credit cards, mortgage, student loans)",
  "Warranties  & protection plans",
  "Imposters",
  "Medical & prescriptions",
  "Dropped call or no message",
  "Vacation & timeshares",
];

/** A spelling of a place name seen in the extracts: mostly as usual, sometimes in another case or padded. */
function placeSpelling(random: SeededRandom, name: string): string {
  return random.weighted<string>([
    [name, 85],
    [name.toLowerCase(), 5],
    [name.toUpperCase(), 4],
    [`${name} `, 3],
    [` ${name}`, 3],
  ]);
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function formatComplaintTime(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/**
 * `rows` complaints over `days` days from `firstDay` (a midnight, in seconds): days of uneven
 * weight and one without any complaint, business hours busier, about one row in ten created in the
 * same second as another (ties broken by id), a few identical rows, violation times before the
 * created time (mostly hours or days before, some years), skewed states, cities, area codes,
 * callers and robocall flags, with the extracts' odd spellings (case, padding, empty values).
 */
export function randomComplaints(
  seed: number,
  rows: number,
  firstDay: number,
  days: number,
): RandomComplaints {
  const random = new SeededRandom(seed);
  const dayWeights = Array.from({ length: days }, (_, day) => {
    const weekday = new Date((firstDay + day * DAY) * 1000).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    return (weekend ? 0.4 : 1) * (0.3 + random.next() * 1.4);
  });
  // One quiet day inside the span: ranges across it meet a day without counts.
  dayWeights[Math.floor(days / 2) + 1] = 0;
  const dayChoices = dayWeights.map((weight, day) => [day, weight] as const);
  const hourChoices = Array.from(
    { length: 24 },
    (_, hour) => [hour, hour >= 9 && hour <= 18 ? 4 : 1] as const,
  );
  const phonePool = Array.from(
    { length: 400 },
    () => `${random.int(2, 9)}${random.int(100_000_000, 999_999_999)}`,
  );
  const areaPool = AREA_CODES;
  const records: string[][] = [];
  const created: number[] = [];
  for (let index = 0; index < rows; index++) {
    if (records.length > 0 && random.chance(0.01)) {
      // An identical row: the extracts hold some; each is a complaint with an id of its own.
      const twin = random.pick(records);
      records.push([...twin]);
      created.push(created[records.indexOf(twin)]!);
      continue;
    }
    let createdAt: number;
    if (created.length > 0 && random.chance(0.1)) {
      createdAt = random.pick(created);
    } else {
      const day = random.weighted(dayChoices);
      const hour = random.weighted(hourChoices);
      createdAt = firstDay + day * DAY + hour * HOUR + random.int(0, HOUR - 1);
    }
    const delay = random.weighted<number>([
      [0, 5],
      [random.int(1, HOUR), 15],
      [random.int(1, DAY), 30],
      [random.int(1, 7 * DAY), 30],
      [random.int(1, 60 * DAY), 15],
      [random.int(400 * DAY, 2000 * DAY), 5],
    ]);
    let violationAt = createdAt - delay;
    // Violation times are often given to the hour or the day only.
    const rounding = random.weighted<number>([
      [1, 50],
      [HOUR, 30],
      [DAY, 20],
    ]);
    violationAt -= ((violationAt % rounding) + rounding) % rounding;
    const [stateName, , cityNames] = random.weighted(STATES.map((entry) => [entry, entry[1]] as const));
    const state = stateName === "" ? "" : placeSpelling(random, stateName);
    const cityName = cityNames[random.skewedIndex(cityNames.length, 2.5)]!;
    const city = cityName === "" || random.chance(0.03) ? "" : placeSpelling(random, cityName);
    const areaCode = random.chance(0.02) ? "" : areaPool[random.skewedIndex(areaPool.length, 2.2)]!;
    const phone = random.weighted<string>([
      [phonePool[random.skewedIndex(phonePool.length, 2.2)]!, 95],
      ["", 3],
      [random.pick(["833number", "781558****", "1-800-FLOWERS"]), 2],
    ]);
    const robocall = random.weighted<string>([
      ["Y", 45],
      ["N", 50],
      ["", 5],
    ]);
    const subject = subjectSpelling(random.pick(SUBJECTS), index);
    records.push([
      phone,
      formatComplaintTime(createdAt),
      formatComplaintTime(violationAt),
      city,
      state,
      areaCode,
      subject,
      robocall,
    ]);
    created.push(createdAt);
  }
  // Extracts come in created order.
  const order = records.map((_, index) => index).sort((a, b) => created[a]! - created[b]! || a - b);
  const lines = [
    COMPLAINT_CSV_HEADER.join(","),
    ...order.map((index) => records[index]!.map(csvField).join(",")),
  ];
  const seconds = (text: string) => Date.parse(`${text.replace(" ", "T")}Z`) / 1000;
  return {
    csv: `${lines.join("\r\n")}\r\n`,
    rows: records.length,
    firstDay,
    days,
    createdTimes: records.map((record) => seconds(record[1]!)),
    violationTimes: records.map((record) => seconds(record[2]!)),
    states: STATES.filter(([name]) => name !== "").map(([name, , cities]) => ({
      name,
      cities: [...cities],
    })),
    areaCodes: [...areaPool],
    phones: [...new Set(records.map((record) => record[0]!).filter((phone) => /^\d+$/.test(phone)))],
    subjects: [...SUBJECTS],
  };
}

/**
 * A subject as the extracts may spell it: "Other" sometimes in another case (one subject stored in
 * three spellings), every other subject as it is. Decided by the row's index, so the draws of the
 * seeded generator are the same as without it.
 */
function subjectSpelling(subject: string, index: number): string {
  if (subject !== "Other") return subject;
  if (index % 40 === 3) return "other";
  if (index % 40 === 17) return "OTHER";
  return subject;
}

// ---------------------------------------------------------------------------------------------
// Notices

/** A generated notice as the API should show it (ids in lower case, times in seconds). */
export interface RandomNotice {
  id: string;
  title: string;
  "transaction-number": string;
  "acquiring-party": string | null;
  "acquired-party": string | null;
  "acquired-entities": string[];
  date: string | null;
  created: number;
  updated: number;
  tags: string[];
}

export interface RandomNotices {
  document: string;
  notices: RandomNotice[];
  /** Words the names are made of, for keyword and text filters that match across notices. */
  words: string[];
}

/** Name parts shared between notices, with LIKE's wildcards and escape, and letters beyond ASCII. */
const NAME_CORES = [
  "Capital",
  "Blockbuster",
  "Pipeline",
  "Energy",
  "Widget",
  "Acme",
  "Zeta",
  "Icahn",
  "Midstream",
  "Pharma",
  "Media",
  "Société Générale",
  "Zürich Re",
  "Under_Score",
  "100% Pure",
  "Back\\Slash",
  "50%_Off",
  "A_B",
  "Percent%Sign",
  "Carl C.",
];
const NAME_PREFIXES = ["", "", "", "The ", "First ", "New ", "Global ", "GLOBAL ", "global "];
const NAME_SUFFIXES = [
  "",
  " Inc.",
  " LLC",
  " L.P.",
  ", L.P.",
  " Corp.",
  " Partners",
  " Capital Partners",
  " Holdings, Inc.",
  " Company",
  " ULC",
  " - Debtor-in-Possession",
];
const TAGS = [
  "Retail",
  "retail",
  "RETAIL",
  "bankruptcy",
  "Energy",
  "energy",
  "Manufacturing",
  "100%",
  "a_b",
  "x\\y",
  "Health care",
  "Tech",
];

/**
 * `text` with its ASCII letters (only those) in upper or lower case, or alternating from lower
 * (`mixed`). Letters beyond ASCII keep their case: ftcapi compares notice text with SQL's lower(),
 * which folds ASCII letters only on SQLite (and on PostgreSQL under the C locale), so their case
 * is left out of the data and the requests (see test/integration/query-oracle.test.ts).
 */
export function asciiCase(text: string, change: "same" | "upper" | "lower" | "mixed"): string {
  if (change === "same") return text;
  let index = 0;
  return text.replace(/[A-Za-z]/g, (letter) => {
    const upper = change === "upper" || (change === "mixed" && index++ % 2 === 1);
    return upper ? letter.toUpperCase() : letter.toLowerCase();
  });
}

function caseVariant(random: SeededRandom, text: string): string {
  return asciiCase(
    text,
    random.weighted<"same" | "upper" | "lower" | "mixed">([
      ["same", 70],
      ["upper", 12],
      ["lower", 12],
      ["mixed", 6],
    ]),
  );
}

function partyName(random: SeededRandom): string {
  let name = `${random.pick(NAME_PREFIXES)}${caseVariant(random, NAME_CORES[random.skewedIndex(NAME_CORES.length, 1.2)]!)}`;
  if (random.chance(0.3)) name += ` ${random.pick(NAME_CORES)}`;
  return `${name}${random.pick(NAME_SUFFIXES)}`;
}

function uuid(random: SeededRandom): string {
  const variant = random.pick(["8", "9", "a", "b"]);
  return `${random.hex(8)}-${random.hex(4)}-4${random.hex(3)}-${variant}${random.hex(3)}-${random.hex(12)}`;
}

function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** A moment as the live service writes it, or with Z, or in another zone (the importer reads each). */
function momentText(random: SeededRandom, seconds: number): string {
  const zone = random.weighted<number>([
    [0, 80],
    [-300, 10],
    [120, 10],
  ]);
  const local = new Date((seconds + zone * 60) * 1000).toISOString().slice(0, 19);
  if (zone === 0) return random.chance(0.8) ? `${local}+00:00` : `${local}Z`;
  const sign = zone < 0 ? "-" : "+";
  const hours = String(Math.floor(Math.abs(zone) / 60)).padStart(2, "0");
  const minutes = String(Math.abs(zone) % 60).padStart(2, "0");
  return `${local}${sign}${hours}:${minutes}`;
}

/**
 * `count` notices: titles mostly as the FTC builds them (some written otherwise), parties from
 * shared name parts (so words recur across notices) in mixed case, with `%`, `_`, `\` and
 * non-ASCII letters, some absent; acquired entities and tags from none to several (some repeated in
 * another case); some absent dates; created and updated times with ties. Ids are random UUIDs, some
 * written in upper case (the importer keeps them in lower case).
 */
export function randomNotices(seed: number, count: number): RandomNotices {
  const random = new SeededRandom(seed);
  const notices: RandomNotice[] = [];
  const resources: unknown[] = [];
  const transactions = new Set<string>();
  const firstCreated = Date.UTC(2013, 0, 1) / 1000;
  const lastCreated = Date.UTC(2021, 2, 1) / 1000;
  const firstDate = Date.UTC(1999, 0, 1) / 1000;
  const lastDate = Date.UTC(2021, 1, 28) / 1000;
  for (let index = 0; index < count; index++) {
    let transaction: string;
    do transaction = `${random.int(1999, 2021)}${String(random.int(0, 9999)).padStart(4, "0")}`;
    while (transactions.has(transaction));
    transactions.add(transaction);
    const acquiring = random.chance(0.08) ? null : partyName(random);
    const acquired = random.chance(0.1) ? null : partyName(random);
    const parties = [acquiring, acquired].filter((party): party is string => party !== null);
    const builtTitle = `${transaction}: ${parties.join("; ")}`;
    const customTitle = random.chance(0.15)
      ? `${transaction}: ${caseVariant(random, random.pick(NAME_CORES))} ${random.pick(["%", "_", "\\", "50% off", "a_b", "Back\\Slash", "MIXED case"])} ${partyName(random)}`
      : undefined;
    const entityCount = random.weighted<number>([
      [0, 25],
      [1, 40],
      [2, 20],
      [3, 10],
      [4, 5],
    ]);
    const entities: string[] = [];
    for (let at = 0; at < entityCount; at++) {
      if (at === 0 && acquired !== null && random.chance(0.6)) entities.push(acquired);
      else if (entities.length > 0 && random.chance(0.1)) entities.push(caseVariant(random, entities[0]!));
      else entities.push(partyName(random));
    }
    const tagCount = random.weighted<number>([
      [0, 55],
      [1, 30],
      [2, 10],
      [3, 5],
    ]);
    const tags = Array.from({ length: tagCount }, () => random.pick(TAGS));
    let date: string | null = null;
    if (!random.chance(0.1)) {
      const shared = notices.filter((notice) => notice.date !== null);
      date =
        shared.length > 0 && random.chance(0.3)
          ? random.pick(shared).date
          : isoDate(firstDate + random.int(0, (lastDate - firstDate) / DAY) * DAY);
    }
    const created =
      notices.length > 0 && random.chance(0.1)
        ? random.pick(notices).created
        : random.int(firstCreated, lastCreated);
    const updated = random.weighted<number>([
      [created, 40],
      [created + random.int(1, 730 * DAY), 55],
      [notices.length > 0 ? Math.max(created, random.pick(notices).updated) : created, 5],
    ]);
    const id = uuid(random);
    const title = customTitle ?? builtTitle;
    notices.push({
      id,
      title,
      "transaction-number": transaction,
      "acquiring-party": acquiring,
      "acquired-party": acquired,
      "acquired-entities": entities,
      date,
      created,
      updated,
      tags,
    });
    const attributes: Record<string, unknown> = {
      "transaction-number": transaction,
      "acquiring-party": acquiring,
      "acquired-party": acquired,
      "acquired-entities": entities,
      date,
      created: momentText(random, created),
      updated: momentText(random, updated),
      tags,
    };
    // The importer builds the FTC's title when none is given; give it anyway for some.
    if (customTitle !== undefined || random.chance(0.5)) attributes.title = title;
    const revision = random.int(1, 5000);
    const shownId = random.chance(0.1) ? id.toUpperCase() : id;
    resources.push({
      type: "early_termination_notice",
      id: shownId,
      links: {
        self: {
          href: `https://www.ftc.gov/v0/hsr-early-termination-notices/${shownId}?resourceVersion=id%3A${revision}`,
        },
      },
      attributes,
      relationships: {},
    });
  }
  const words = [
    ...new Set(
      [...NAME_CORES, ...NAME_SUFFIXES, ...TAGS]
        .flatMap((part) => part.split(/[\s,]+/))
        .filter((word) => word !== ""),
    ),
  ];
  return {
    document: JSON.stringify({ jsonapi: { version: "1.0" }, data: resources }, null, 1),
    notices,
    words,
  };
}

/** Writes the two files to import. */
export async function writeRandomCollections(
  complaints: RandomComplaints,
  notices: RandomNotices,
  files: { complaints: string; notices: string },
): Promise<void> {
  await writeFile(files.complaints, complaints.csv);
  await writeFile(files.notices, notices.document);
}
