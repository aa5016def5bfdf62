/**
 * The load benchmark's workload, as data: each shape is one kind of request a client makes (a
 * filter combination, a page deep in the results, one record by id) of one collection. A
 * collection is described once (`Collection`: its path, how it names the offset and the page
 * size, where its answers carry the total, and how to sample values from what it serves); nothing
 * in bench/load.ts knows what a complaint or a notice is.
 */

/** Values seen in the served complaints. */
export interface ComplaintSamples {
  states: string[];
  /** [state, city] pairs that occur. */
  cities: Array<[string, string]>;
  areaCodes: string[];
  phones: string[];
  complaintIds: string[];
  /** The attributes of sampled complaints, from which combinations of filters are drawn. */
  complaints: Array<Record<string, string>>;
  /** First and last created day present, YYYY-MM-DD. */
  firstDay: string;
  lastDay: string;
}

/** Values seen in the served notices. */
export interface NoticeSamples {
  noticeIds: string[];
  transactionNumbers: string[];
  /** Single words of titles (three letters or more). */
  titleWords: string[];
  /** Two consecutive words of a title, for a quoted phrase. */
  titlePhrases: string[];
  /** The first word of acquiring parties, for STARTS_WITH. */
  partyWords: string[];
  /** The last word of acquired entities, for ENDS_WITH. */
  entityEndings: string[];
  /** Words of acquired entities, for CONTAINS. */
  entityWords: string[];
  /** First and last `date` present, YYYY-MM-DD. */
  firstNoticeDay: string;
  lastNoticeDay: string;
}

/** Values seen in the served data, from which the shapes draw their random parameters. */
export interface Samples extends ComplaintSamples, NoticeSamples {}

/** Reads one answer of the server under test as JSON (the key and headers are the caller's). */
export type ReadJson = (path: string) => Promise<unknown>;

/** What the benchmark needs to know of a collection to page through it and sample it. */
export interface Collection<S> {
  /** The collection's path under the base URL. */
  path: string;
  /** The parameter that places a page, such as `offset` or `page[offset]`. */
  offsetParameter: string;
  /** Records on a page when no size is given. */
  pageSize: number;
  /** Added to a query to read only its total (a one-record page). */
  onePerPage: Record<string, string>;
  /** The exact total of a list answer. */
  totalOf(answer: unknown): number;
  /** The ids single-record shapes draw from. */
  ids(samples: Samples): string[];
  /** Values for the shapes' parameters, drawn from the served records. */
  sample(read: ReadJson, random: () => number): Promise<S>;
}

export interface Shape {
  /** Short name, shown in the latency table. */
  name: string;
  collection: Collection<unknown>;
  /** Relative frequency in the mixed workload. */
  weight: number;
  /** Query parameters drawn from the samples, without offset. */
  parameters(samples: Samples, random: () => number): Record<string, string>;
  /**
   * How the page is chosen once the total is known: "start" (offset 0), "spread" (uniform up to
   * the total), "end" (one of the last 200 pages). Single-record shapes have none.
   */
  offset?: "start" | "spread" | "end";
}

interface ComplaintEnvelope {
  data: Array<{ id: string; attributes: Record<string, string> }>;
  meta: { "record-total": number };
}

interface NoticeEnvelope {
  data: Array<{ id: string; attributes: Record<string, string | string[] | null> }>;
  meta: { count: number };
}

const COMPLAINTS: Collection<ComplaintSamples> = {
  path: "/v0/dnc-complaints",
  offsetParameter: "offset",
  pageSize: 50,
  onePerPage: { items_per_page: "1" },
  totalOf: (answer) => (answer as ComplaintEnvelope).meta["record-total"],
  ids: (samples) => samples.complaintIds,
  async sample(read, random) {
    const page = async (query: string) => (await read(`${this.path}?${query}`)) as ComplaintEnvelope;
    const total = (await page("items_per_page=1")).meta["record-total"];
    const states = new Set<string>();
    const cities = new Map<string, [string, string]>();
    const areaCodes = new Set<string>();
    const phones = new Set<string>();
    const ids: string[] = [];
    const complaints: Array<Record<string, string>> = [];
    for (let index = 0; index < 40; index++) {
      const offset = Math.floor(random() * Math.max(1, total - 50));
      for (const record of (await page(`offset=${offset}`)).data) {
        const a = record.attributes;
        ids.push(record.id);
        complaints.push(a);
        if (a["consumer-state"]) states.add(a["consumer-state"]);
        if (a["consumer-state"] && a["consumer-city"])
          cities.set(`${a["consumer-state"]}|${a["consumer-city"]}`, [
            a["consumer-state"],
            a["consumer-city"],
          ]);
        if (a["consumer-area-code"]) areaCodes.add(a["consumer-area-code"]);
        if (a["company-phone-number"]) phones.add(a["company-phone-number"]);
      }
    }
    const day = async (order: string) =>
      (await page(`items_per_page=1&sort_order=${order}`)).data[0]!.attributes["created-date"]!.slice(0, 10);
    return {
      states: [...states],
      cities: [...cities.values()],
      areaCodes: [...areaCodes],
      phones: [...phones],
      complaintIds: ids,
      complaints,
      firstDay: await day("ASC"),
      lastDay: await day("DESC"),
    };
  },
};

/** Words of a text, lowercased, without punctuation at either end; those of three letters or more. */
function wordsOf(text: string): string[] {
  return text
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, "").toLowerCase())
    .filter((word) => word.length >= 3);
}

const NOTICES: Collection<NoticeSamples> = {
  path: "/v0/hsr-early-termination-notices",
  offsetParameter: "page[offset]",
  pageSize: 50,
  onePerPage: { "page[limit]": "1" },
  totalOf: (answer) => (answer as NoticeEnvelope).meta.count,
  ids: (samples) => samples.noticeIds,
  async sample(read, random) {
    const page = async (query: string) => (await read(`${this.path}?${query}`)) as NoticeEnvelope;
    const total = (await page("page[limit]=1")).meta.count;
    const ids: string[] = [];
    const transactions: string[] = [];
    const titleWords = new Set<string>();
    const titlePhrases = new Set<string>();
    const partyWords = new Set<string>();
    const entityEndings = new Set<string>();
    const entityWords = new Set<string>();
    for (let index = 0; index < 20; index++) {
      const offset = Math.floor(random() * Math.max(1, total - 50));
      for (const record of (await page(`page[offset]=${offset}`)).data) {
        const a = record.attributes;
        ids.push(record.id);
        if (typeof a["transaction-number"] === "string") transactions.push(a["transaction-number"]);
        if (typeof a.title === "string") {
          // The title is "<transaction number>: <parties>"; its words are the parties' names.
          const words = wordsOf(a.title.replace(/^[^:]*:/, ""));
          for (const word of words) titleWords.add(word);
          for (let at = 0; at + 1 < words.length; at++) titlePhrases.add(`${words[at]} ${words[at + 1]}`);
        }
        if (typeof a["acquiring-party"] === "string") {
          const first = a["acquiring-party"].split(/\s+/)[0];
          if (first) partyWords.add(first.toLowerCase());
        }
        if (Array.isArray(a["acquired-entities"]))
          for (const entity of a["acquired-entities"]) {
            const words = entity.trim().split(/\s+/);
            if (words.length > 0) entityEndings.add(words.at(-1)!.toLowerCase());
            for (const word of wordsOf(entity)) entityWords.add(word);
          }
      }
    }
    const day = async (sort: string) => {
      const date = (
        await page(
          `page[limit]=1&sort=${sort}&filter[d][condition][path]=date&filter[d][condition][operator]=IS%20NOT%20NULL`,
        )
      ).data[0]!.attributes.date;
      return String(date);
    };
    return {
      noticeIds: ids,
      transactionNumbers: transactions,
      titleWords: [...titleWords],
      titlePhrases: [...titlePhrases],
      partyWords: [...partyWords],
      entityEndings: [...entityEndings],
      entityWords: [...entityWords],
      firstNoticeDay: await day("date"),
      lastNoticeDay: await day("-date"),
    };
  },
};

/** Values for every collection's shapes. */
export async function sampleValues(read: ReadJson, random: () => number): Promise<Samples> {
  return { ...(await COMPLAINTS.sample(read, random)), ...(await NOTICES.sample(read, random)) };
}

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)]!;
}

/** A random day from `firstDay` to `lastDay` (YYYY-MM-DD), both included. */
function dayBetween(firstDay: string, lastDay: string, random: () => number): string {
  const first = Date.parse(firstDay);
  const days = Math.round((Date.parse(lastDay) - first) / 86_400_000);
  return new Date(first + Math.floor(random() * (days + 1)) * 86_400_000).toISOString().slice(0, 10);
}

function ordered(a: string, b: string): [string, string] {
  return a <= b ? [a, b] : [b, a];
}

/** A day within the complaints' created days. */
function dayWithin(samples: Samples, random: () => number): string {
  return dayBetween(samples.firstDay, samples.lastDay, random);
}

function range(samples: Samples, random: () => number): [string, string] {
  return ordered(dayWithin(samples, random), dayWithin(samples, random));
}

/** A range within the notices' dates. */
function noticeRange(samples: Samples, random: () => number): [string, string] {
  const day = () => dayBetween(samples.firstNoticeDay, samples.lastNoticeDay, random);
  return ordered(day(), day());
}

function timeOfDay(random: () => number): string {
  const seconds = Math.floor(random() * 86_400);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

const created = (samples: Samples, random: () => number) => {
  const [from, to] = range(samples, random);
  return { created_date_from: from, created_date_to: to };
};

/**
 * The notices' kinds of request: Drupal's filter grammar (conditions, operators, a nested OR
 * group), the spec's plain parameters, sorts, deep pages and single records.
 */
const NOTICE_SHAPES: Shape[] = [
  {
    name: "notices: default order",
    collection: NOTICES,
    weight: 2,
    offset: "spread",
    parameters: () => ({}),
  },
  { name: "notices: near the end", collection: NOTICES, weight: 1, offset: "end", parameters: () => ({}) },
  {
    name: "notices: title CONTAINS",
    collection: NOTICES,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => ({
      "filter[title][operator]": "CONTAINS",
      "filter[title][value]": pick(samples.titleWords, random),
    }),
  },
  {
    name: "notices: plain title keyword",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ title: pick(samples.titleWords, random) }),
  },
  {
    name: "notices: plain title phrase",
    collection: NOTICES,
    weight: 1,
    offset: "start",
    parameters: (samples, random) => ({ title: `"${pick(samples.titlePhrases, random)}"` }),
  },
  {
    name: "notices: transaction_number",
    collection: NOTICES,
    weight: 1,
    offset: "start",
    parameters: (samples, random) => ({ transaction_number: pick(samples.transactionNumbers, random) }),
  },
  {
    name: "notices: date range",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: (samples, random): Record<string, string> => {
      const [from, to] = noticeRange(samples, random);
      return random() < 0.5
        ? {
            "filter[d][condition][path]": "date",
            "filter[d][condition][operator]": "BETWEEN",
            "filter[d][condition][value][0]": from,
            "filter[d][condition][value][1]": to,
          }
        : {
            "filter[from][condition][path]": "date",
            "filter[from][condition][operator]": ">=",
            "filter[from][condition][value]": from,
            "filter[to][condition][path]": "date",
            "filter[to][condition][operator]": "<=",
            "filter[to][condition][value]": to,
          };
    },
  },
  {
    name: "notices: acquired-entities ENDS_WITH",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      "filter[acquired-entities][operator]": "ENDS_WITH",
      "filter[acquired-entities][value]": pick(samples.entityEndings, random),
    }),
  },
  {
    name: "notices: OR group (memberOf)",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      "filter[g][group][conjunction]": "OR",
      "filter[a][condition][path]": "acquiring-party",
      "filter[a][condition][operator]": "STARTS_WITH",
      "filter[a][condition][value]": pick(samples.partyWords, random),
      "filter[a][condition][memberOf]": "g",
      "filter[e][condition][path]": "acquired-entities",
      "filter[e][condition][operator]": "CONTAINS",
      "filter[e][condition][value]": pick(samples.entityWords, random),
      "filter[e][condition][memberOf]": "g",
    }),
  },
  {
    name: "notices: sort=-date",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: () => ({ sort: "-date" }),
  },
  {
    name: "notices: sort=title",
    collection: NOTICES,
    weight: 1,
    offset: "spread",
    parameters: () => ({ sort: "title" }),
  },
  {
    name: "notices: filter[id][value]",
    collection: NOTICES,
    weight: 1,
    offset: "start",
    parameters: (samples, random) => ({ "filter[id][value]": pick(samples.noticeIds, random) }),
  },
  { name: "one notice by id", collection: NOTICES, weight: 2, parameters: () => ({}) },
];

/** A complaint filter that a combination can hold, with the parameters it adds for one complaint. */
const COMBINABLE: Record<
  string,
  (complaint: Record<string, string>, samples: Samples, random: () => number) => Record<string, string>
> = {
  state: (complaint) => ({ state: complaint["consumer-state"]! }),
  // Half the time in its state, half the time in every state (a city alone matches every state).
  city: (complaint, _samples, random): Record<string, string> =>
    random() < 0.5 || !complaint["consumer-state"]
      ? { city: complaint["consumer-city"]! }
      : { city: complaint["consumer-city"]!, state: complaint["consumer-state"]! },
  area_code: (complaint) => ({ area_code: complaint["consumer-area-code"]! }),
  is_robocall: (complaint) => ({
    is_robocall: complaint["recorded-message-or-robocall"] === "Y" ? "true" : "false",
  }),
  company_phone_number: (complaint) => ({ company_phone_number: complaint["company-phone-number"]! }),
  subject: (complaint) => ({ subject: complaint.subject! }),
  created: (complaint, samples, random) => around("created", complaint["created-date"]!, samples, random),
  violation: (complaint, samples, random) =>
    around("violation", complaint["violation-date"]!, samples, random),
};

/** The attribute each of `COMBINABLE`'s filters takes its value from. */
const COMBINED_ATTRIBUTES: Record<string, string> = {
  state: "consumer-state",
  city: "consumer-city",
  area_code: "consumer-area-code",
  is_robocall: "recorded-message-or-robocall",
  company_phone_number: "company-phone-number",
  subject: "subject",
  created: "created-date",
  violation: "violation-date",
};

/**
 * A date or a range of dates (three times in ten a single date) holding the given time's day,
 * its bounds drawn uniformly between the day and the data's first and last created days.
 */
function around(name: string, time: string, samples: Samples, random: () => number): Record<string, string> {
  const day = time.slice(0, 10);
  if (random() < 0.3) return { [`${name}_date`]: day };
  const first = day < samples.firstDay ? day : samples.firstDay;
  const last = day > samples.lastDay ? day : samples.lastDay;
  return {
    [`${name}_date_from`]: dayBetween(first, day, random),
    [`${name}_date_to`]: dayBetween(day, last, random),
  };
}

/**
 * `count` different filters of one sampled complaint, ANDed (issue 14, item 3), so that every
 * combination matches at least that complaint; the company's number is drawn less often, since
 * it narrows a combination to a few complaints. A filter the complaint has no value for (an empty
 * attribute) is not drawn.
 */
function combinationOf(count: number) {
  return (samples: Samples, random: () => number): Record<string, string> => {
    const complaint = pick(samples.complaints, random);
    const kinds = Object.keys(COMBINABLE).filter((kind) => complaint[COMBINED_ATTRIBUTES[kind]!]);
    const chosen = new Set<string>();
    while (chosen.size < Math.min(count, kinds.length)) {
      const kind = pick(kinds, random);
      if (kind === "company_phone_number" && random() < 0.7) continue;
      chosen.add(kind);
    }
    return Object.assign({}, ...[...chosen].map((kind) => COMBINABLE[kind]!(complaint, samples, random)));
  };
}

/**
 * Random AND-combinations, in latency mode only (weight 0 keeps the mixed and distinct workloads
 * as they were measured before these shapes existed).
 */
const COMBINATION_SHAPES: Shape[] = [2, 3, 4].map((count) => ({
  name: `${count} filters of one complaint`,
  collection: COMPLAINTS,
  weight: 0,
  offset: "spread",
  parameters: combinationOf(count),
}));

/** Every documented filter combination of /v0/dnc-complaints and of the notices, plus single records. */
export const SHAPES: Shape[] = [
  { name: "all", collection: COMPLAINTS, weight: 2, offset: "spread", parameters: () => ({}) },
  { name: "all, near the end", collection: COMPLAINTS, weight: 1, offset: "end", parameters: () => ({}) },
  {
    name: "created_date",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ created_date: dayWithin(samples, random) }),
  },
  { name: "created range", collection: COMPLAINTS, weight: 1, offset: "spread", parameters: created },
  {
    name: "created range with times",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [fromDay, toDay] = range(samples, random);
      const from = `${fromDay} ${timeOfDay(random)}`;
      const to = `${toDay} ${timeOfDay(random)}`;
      return from <= to
        ? { created_date_from: from, created_date_to: to }
        : { created_date_from: to, created_date_to: from };
    },
  },
  {
    name: "state",
    collection: COMPLAINTS,
    weight: 3,
    offset: "spread",
    parameters: (samples, random) => ({ state: pick(samples.states, random) }),
  },
  {
    name: "state, created range",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ state: pick(samples.states, random), ...created(samples, random) }),
  },
  {
    name: "state, city",
    collection: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => {
      const [state, city] = pick(samples.cities, random);
      return { state, city };
    },
  },
  {
    name: "state, city, created range",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [state, city] = pick(samples.cities, random);
      return { state, city, ...created(samples, random) };
    },
  },
  {
    name: "area_code",
    collection: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => ({ area_code: pick(samples.areaCodes, random) }),
  },
  {
    name: "area_code, created range",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      area_code: pick(samples.areaCodes, random),
      ...created(samples, random),
    }),
  },
  {
    name: "is_robocall",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (_samples, random) => ({ is_robocall: random() < 0.5 ? "true" : "false" }),
  },
  {
    name: "is_robocall, created range",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({
      is_robocall: random() < 0.5 ? "true" : "false",
      ...created(samples, random),
    }),
  },
  {
    name: "violation_date",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => ({ violation_date: dayWithin(samples, random) }),
  },
  {
    name: "violation range",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [from, to] = range(samples, random);
      return { violation_date_from: from, violation_date_to: to };
    },
  },
  {
    name: "violation range, state",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [from, to] = range(samples, random);
      return { state: pick(samples.states, random), violation_date_from: from, violation_date_to: to };
    },
  },
  {
    name: "violation range, is_robocall",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [from, to] = range(samples, random);
      return {
        is_robocall: random() < 0.5 ? "true" : "false",
        violation_date_from: from,
        violation_date_to: to,
      };
    },
  },
  {
    name: "violation range, area_code",
    collection: COMPLAINTS,
    weight: 1,
    offset: "spread",
    parameters: (samples, random) => {
      const [from, to] = range(samples, random);
      return { area_code: pick(samples.areaCodes, random), violation_date_from: from, violation_date_to: to };
    },
  },
  {
    name: "company_phone_number",
    collection: COMPLAINTS,
    weight: 2,
    offset: "spread",
    parameters: (samples, random) => ({ company_phone_number: pick(samples.phones, random) }),
  },
  {
    name: "one complaint by id",
    collection: COMPLAINTS,
    weight: 3,
    parameters: () => ({}),
  },
  ...COMBINATION_SHAPES,
  ...NOTICE_SHAPES,
];

/** The path of a single record for a shape without an offset. */
export function recordPath(shape: Shape, samples: Samples, random: () => number): string {
  return `${shape.collection.path}/${pick(shape.collection.ids(samples), random)}`;
}

/** A deterministic pseudo-random generator (mulberry32), so a workload can be rebuilt identically. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
