/**
 * Every documented query shape of both collections against a naive SQL oracle (issue 13): a random
 * database (seeded), a real server over HTTPS with a key, and for each drawn request the total
 * (`meta.record-total` for complaints, `meta.count` for notices) and the page's ids, in order,
 * compared with a plain `SELECT COUNT(*) ... WHERE ...` and `SELECT id ... WHERE ... ORDER BY ...
 * LIMIT ... OFFSET ...` run on the same database through its driver. The oracle is written from the
 * rules of docs/api.md, not from the store's SQL: it knows nothing of count tables, indexes, reading
 * backwards or cached totals, so the read path may be rebuilt in any way and still be held to it.
 *
 * One seed (random, or FTCAPI_ORACLE_SEED) builds both the data and fast-check's draws; every run
 * prints it, and a failure names it with the request, the expected and the received answer, and the
 * counterexample's path. FTCAPI_ORACLE_SEED=<seed> replays a run; adding FTCAPI_ORACLE_PATH=<path>
 * (and --test-name-pattern for the failed test) replays that one case. FTCAPI_ORACLE_RUNS sets the
 * cases per collection and dialect (1,000 by default).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import fc from "fast-check";
import { DIALECTS, type Dialect, freshDatabase } from "../support/dialects.js";
import { KeepAliveClient } from "../support/keep-alive-client.js";
import { type OracleDatabase, openOracleDatabase, SqlParameters } from "../support/oracle-database.js";
import {
  asciiCase,
  formatComplaintTime,
  type RandomNotice,
  randomComplaints,
  randomNotices,
  writeRandomCollections,
} from "../support/random-collections.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const SEED = process.env.FTCAPI_ORACLE_SEED
  ? Number(process.env.FTCAPI_ORACLE_SEED)
  : Math.floor(Math.random() * 2 ** 31);
const REPLAY_PATH = process.env.FTCAPI_ORACLE_PATH || undefined;
const RUNS = Number(process.env.FTCAPI_ORACLE_RUNS ?? 1000);

const DAY = 86_400;
const HOUR = 3_600;
/** Four weeks from a Monday, across a leap day. */
const FIRST_DAY = Date.UTC(2024, 1, 19) / 1000;
const DAYS = 28;
const COMPLAINT_ROWS = 20_000;
const NOTICE_COUNT = 420;

const COMPLAINTS = randomComplaints(SEED, COMPLAINT_ROWS, FIRST_DAY, DAYS);
const NOTICES = randomNotices(SEED ^ 0x5eed, NOTICE_COUNT);

// ---------------------------------------------------------------------------------------------
// Shared pieces

/** Where a page starts, relative to the total the oracle finds (so "near the end" means it). */
type OffsetSpec =
  | { kind: "absent" }
  | { kind: "zero" }
  | { kind: "fixed"; offset: number }
  | { kind: "fraction"; thousandths: number }
  | { kind: "fromEnd"; back: number }
  | { kind: "past"; beyond: number };

const offsetSpec: fc.Arbitrary<OffsetSpec> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "absent" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "zero" as const }) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 900, max: 3_500 }),
        fc.constantFrom(1_000_000_000, 999_999_999_999_999),
      )
      .map((offset) => ({ kind: "fixed" as const, offset })),
  },
  {
    weight: 4,
    arbitrary: fc
      .integer({ min: 0, max: 1_000 })
      .map((thousandths) => ({ kind: "fraction" as const, thousandths })),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 900, max: 3_000 }))
      .map((back) => ({ kind: "fromEnd" as const, back })),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 40 }).map((beyond) => ({ kind: "past" as const, beyond })),
  },
);

function resolveOffset(spec: OffsetSpec, total: number): number {
  switch (spec.kind) {
    case "absent":
    case "zero":
      return 0;
    case "fixed":
      return spec.offset;
    case "fraction":
      return Math.floor((spec.thousandths / 1_000) * total);
    case "fromEnd":
      return Math.max(0, total - spec.back);
    case "past":
      return total + spec.beyond;
  }
}

/** The query string of name/value pairs, values encoded, names (brackets and all) as they are. */
function queryString(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("&");
}

/** `text` as sent in one of the spellings clients use: quoted, padded, or both. */
function quotedOrPadded(text: string, style: "plain" | "quoted" | "padded" | "both"): string {
  if (style === "quoted") return `"${text}"`;
  if (style === "padded") return ` ${text} `;
  if (style === "both") return ` " ${text}" `;
  return text;
}

const spellingStyle = fc.constantFrom("plain", "plain", "quoted", "padded", "both") as fc.Arbitrary<
  "plain" | "quoted" | "padded" | "both"
>;

type CaseChange = "same" | "upper" | "lower" | "mixed";
const caseChange = fc.constantFrom<CaseChange>("same", "same", "upper", "lower", "mixed");

/** See asciiCase: only ASCII letters change case (the disagreement on other letters is in the report). */
const changeCase = (text: string, change: CaseChange): string => asciiCase(text, change);

/** The PostgreSQL collation clause for text that must compare byte by byte (SQLite's default already does). */
const collate = (dialect: Dialect) => (dialect === "postgres" ? ' COLLATE "C"' : "");

/** How many cases had each property, reported after a run to show what the draws covered. */
class Tally {
  private readonly counts = new Map<string, number>();

  add(name: string, when: unknown): void {
    if (when) this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    else if (!this.counts.has(name)) this.counts.set(name, 0);
  }

  toString(): string {
    return [...this.counts].map(([name, count]) => `${name} ${count}`).join(", ");
  }
}

/** Runs the property with the suite's seed, naming how to replay a failure. */
async function check<T>(
  t: TestContext,
  label: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  t.diagnostic(`${label}: seed ${SEED}, ${RUNS} cases (FTCAPI_ORACLE_SEED=${SEED} replays them)`);
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), {
      seed: SEED,
      numRuns: RUNS,
      ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // fast-check keeps the failed assertion (request, expected, got) as the cause.
    const cause = err instanceof Error && err.cause instanceof Error ? `\n${err.cause.message}` : "";
    throw new Error(
      `${label} disagrees with the SQL oracle. Replay with FTCAPI_ORACLE_SEED=${SEED} and FTCAPI_ORACLE_PATH=<the path below>.\n${message}${cause}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Complaints: the requests

/** A time bound as sent: a date alone (its whole day) or a date and time, quoted or not. */
interface Bound {
  at: number;
  dateOnly: boolean;
  separator: " " | "T";
  quoted: boolean;
}

interface Range {
  from: Bound;
  to: Bound;
}

/** A place or caller name as meant (`text`, in some case) and how it is padded or quoted in the URL. */
interface Spelled {
  text: string;
  style: "plain" | "quoted" | "padded" | "both";
}

type Place =
  | { kind: "state"; state: Spelled; city?: Spelled }
  | { kind: "city"; city: Spelled }
  | { kind: "area"; code: string }
  | { kind: "robocall"; robocall: boolean; spelling: string };

interface ComplaintCase {
  createdDay?: { day: number; quoted: boolean };
  created?: Range;
  violationDay?: { day: number; quoted: boolean };
  violation?: Range;
  place?: Place;
  /** Several place filters of different kinds together (`place` is then absent). */
  places?: Place[];
  phone?: string;
  /** A subject, in some case, padded or quoted. */
  subject?: Spelled;
  sortBy?: string;
  sortOrder?: string;
  itemsPerPage?: number;
  offset: OffsetSpec;
}

const LAST_DAY = FIRST_DAY + (DAYS - 1) * DAY;

const pickFrom = <T>(items: readonly T[]) => fc.nat(items.length - 1).map((index) => items[index]!);

/** An item of a list ordered from the most common value down, the first ones more often (as clients ask for them). */
const pickSkewed = <T>(items: readonly T[]) =>
  fc.nat(999).map((at) => items[Math.floor(items.length * (at / 1_000) ** 2)]!);

/** Moments where created ranges are interesting: complaint times (ties, inclusive ends), hour and day edges. */
const createdMoment = fc.oneof(
  { weight: 3, arbitrary: pickFrom(COMPLAINTS.createdTimes) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: -2, max: DAYS + 1 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(-1, 0, 1),
      )
      .map(([day, hour, nudge]) => FIRST_DAY + day * DAY + hour * HOUR + nudge),
  },
  { weight: 2, arbitrary: fc.integer({ min: FIRST_DAY - 2 * DAY, max: LAST_DAY + 3 * DAY }) },
);

/** Violation times reach back further than created ones (some by years). */
const violationMoment = fc.oneof(
  { weight: 3, arbitrary: pickFrom(COMPLAINTS.violationTimes) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: -70, max: DAYS + 1 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(-1, 0, 1),
      )
      .map(([day, hour, nudge]) => FIRST_DAY + day * DAY + hour * HOUR + nudge),
  },
  { weight: 2, arbitrary: fc.integer({ min: FIRST_DAY - 70 * DAY, max: LAST_DAY + DAY }) },
  { weight: 1, arbitrary: fc.integer({ min: FIRST_DAY - 2_100 * DAY, max: FIRST_DAY }) },
);

function bound(moment: fc.Arbitrary<number>): fc.Arbitrary<Bound> {
  return fc.record({
    at: moment,
    dateOnly: fc.boolean(),
    separator: fc.constantFrom(" " as const, " " as const, "T" as const),
    quoted: fc.boolean(),
  });
}

/** Two bounds in order (never inverted: the server refuses that); wide, or narrow around one moment. */
function range(moment: fc.Arbitrary<number>): fc.Arbitrary<Range> {
  const ordered = (a: Bound, b: Bound): Range => (a.at <= b.at ? { from: a, to: b } : { from: b, to: a });
  return fc.oneof(
    fc.tuple(bound(moment), bound(moment)).map(([a, b]) => ordered(a, b)),
    fc
      .tuple(
        bound(moment),
        bound(moment),
        fc.oneof(fc.integer({ min: 0, max: 2 * HOUR }), fc.integer({ min: 0, max: 4 * DAY })),
      )
      .map(([a, b, width]) => ordered(a, { ...b, at: a.at + width })),
  );
}

function day(first: number, last: number): fc.Arbitrary<{ day: number; quoted: boolean }> {
  return fc.record({
    day: fc.integer({ min: first, max: last }).map((index) => FIRST_DAY + index * DAY),
    quoted: fc.boolean(),
  });
}

function spelled(names: fc.Arbitrary<string>): fc.Arbitrary<Spelled> {
  return fc.record({
    text: fc.tuple(names, caseChange).map(([name, change]) => changeCase(name, change)),
    style: spellingStyle,
  });
}

const stateNames = COMPLAINTS.states.map((state) => state.name);
const allCities = COMPLAINTS.states.flatMap((state) => state.cities);
/** Subjects as usually spelled, and one that no complaint has. */
const subjectNames = [...COMPLAINTS.subjects, "Unheard of"];

/** The most common city of the most common state. */
const bigCity = COMPLAINTS.states[0]!.cities[0]!;

const place: fc.Arbitrary<Place> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(
          { weight: 12, arbitrary: pickSkewed(stateNames) },
          { weight: 1, arbitrary: fc.constant("Alaska") },
        ),
        fc.boolean(),
      )
      .chain(([state, withCity]) => {
        const cities = COMPLAINTS.states.find((entry) => entry.name === state)?.cities ?? ["Anchorage"];
        return fc.record({
          kind: fc.constant("state" as const),
          state: spelled(fc.constant(state)),
          city: withCity
            ? spelled(
                fc.oneof(
                  { weight: 5, arbitrary: pickSkewed(cities) },
                  { weight: 1, arbitrary: pickFrom(allCities) },
                ),
              )
            : fc.constant(undefined),
        });
      })
      .map((value) => (value.city === undefined ? { kind: value.kind, state: value.state } : value) as Place),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        { weight: 6, arbitrary: pickSkewed(COMPLAINTS.areaCodes) },
        { weight: 1, arbitrary: fc.stringMatching(/^\d{1,4}$/) },
      )
      .map((code) => ({ kind: "area" as const, code })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.boolean(), fc.constantFrom("same", "upper", "mixed", "quoted"))
      .map(([robocall, how]) => {
        const word = String(robocall);
        const spelling =
          how === "upper"
            ? word.toUpperCase()
            : how === "mixed"
              ? changeCase(word, "mixed")
              : how === "quoted"
                ? `"${word}"`
                : word;
        return { kind: "robocall" as const, robocall, spelling };
      }),
  },
);

/** A city alone: that city in every state. */
const cityAlone: fc.Arbitrary<Place> = spelled(
  fc.oneof({ weight: 3, arbitrary: fc.constant(bigCity) }, { weight: 1, arbitrary: pickFrom(allCities) }),
).map((city) => ({ kind: "city" as const, city }));

/** Two or three place filters of different kinds (a state or a city alone, an area code, a robocall flag). */
const placeCombination: fc.Arbitrary<Place[]> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: place.filter((one) => one.kind === "state") },
      { weight: 1, arbitrary: cityAlone },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    maybe(
      place.filter((one) => one.kind === "area"),
      0.6,
    ),
    maybe(
      place.filter((one) => one.kind === "robocall"),
      0.7,
    ),
  )
  .map((places) => places.filter((one): one is Place => one !== undefined))
  .filter((places) => places.length >= 2);

/** `arbitrary`'s value in a share of the draws (0 to 1), else undefined (the parameter left out). */
function maybe<T>(arbitrary: fc.Arbitrary<T>, share: number): fc.Arbitrary<T | undefined> {
  const present = Math.round(share * 100);
  return fc.oneof(
    { weight: 100 - present, arbitrary: fc.constant(undefined) },
    { weight: present, arbitrary },
  );
}

/** An object without its undefined members, so that counterexamples read cleanly. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/**
 * Each filter in a share of the draws, independently, so that every documented shape (each filter
 * alone, and the combinations) comes up, with about a fifth of the draws unfiltered.
 */
const mixedComplaintCase: fc.Arbitrary<ComplaintCase> = fc
  .record({
    createdDay: maybe(day(-2, DAYS + 1), 0.15),
    created: maybe(range(createdMoment), 0.35),
    violationDay: maybe(day(-30, DAYS), 0.08),
    violation: maybe(range(violationMoment), 0.2),
    place: maybe(fc.oneof({ weight: 6, arbitrary: place }, { weight: 1, arbitrary: cityAlone }), 0.45),
    places: maybe(placeCombination, 0.2),
    phone: maybe(
      fc.oneof(
        { weight: 6, arbitrary: pickFrom(COMPLAINTS.phones) },
        { weight: 1, arbitrary: fc.stringMatching(/^\d{1,12}$/) },
      ),
      0.08,
    ),
    subject: maybe(spelled(pickFrom(subjectNames)), 0.3),
    sortBy: maybe(fc.constantFrom("created_date", "CREATED_DATE", "created-date", '"created_date"'), 0.25),
    sortOrder: maybe(fc.constantFrom("DESC", "ASC", "asc", "desc", "Asc", '"ASC"'), 0.5),
    itemsPerPage: maybe(fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(1, 2, 49, 50)), 0.6),
    offset: offsetSpec,
  })
  .map((value) => withoutUndefined(value.places ? { ...value, place: undefined } : value));

/**
 * One place filter (or none), perhaps within a created range, at an offset more than 1,000 from
 * either end: the offsets that the store places through its count series rather than on an index.
 */
const deepComplaintCase: fc.Arbitrary<ComplaintCase> = fc
  .record({
    created: maybe(range(createdMoment), 0.3),
    place: maybe(
      fc.oneof(
        place,
        // The places with thousands of complaints each: the only ones with offsets that deep.
        fc
          .record({ state: spelled(pickFrom(stateNames.slice(0, 3))) })
          .map(({ state }) => ({ kind: "state" as const, state })),
        fc
          .record({ state: spelled(fc.constant(stateNames[0]!)), city: spelled(fc.constant(bigCity)) })
          .map(({ state, city }) => ({ kind: "state" as const, state, city })),
        fc.constant({ kind: "area" as const, code: COMPLAINTS.areaCodes[0]! }),
      ),
      0.8,
    ),
    // "Other" is stored in three spellings; the others in one.
    subject: maybe(spelled(pickFrom(COMPLAINTS.subjects)), 0.35),
    sortOrder: maybe(fc.constantFrom("ASC", "desc"), 0.6),
    itemsPerPage: maybe(fc.integer({ min: 1, max: 50 }), 0.5),
    offset: fc.oneof(
      fc.integer({ min: 150, max: 850 }).map((thousandths) => ({ kind: "fraction" as const, thousandths })),
      fc.integer({ min: 1_001, max: 3_000 }).map((back) => ({ kind: "fromEnd" as const, back })),
    ),
  })
  .map(withoutUndefined);

/**
 * A subject alone (each has about an eighth of the complaints), perhaps within a created range, in
 * the middle of its matches: offsets more than 1,000 from either end, placed through the subject's
 * count series when it is stored in one spelling, on rows when in several ("Other").
 */
const deepSubjectCase: fc.Arbitrary<ComplaintCase> = fc
  .record({
    created: maybe(range(createdMoment), 0.2),
    subject: spelled(pickFrom(COMPLAINTS.subjects)),
    sortOrder: maybe(fc.constantFrom("ASC", "desc"), 0.6),
    itemsPerPage: maybe(fc.integer({ min: 1, max: 50 }), 0.5),
    offset: fc
      .integer({ min: 420, max: 560 })
      .map((thousandths) => ({ kind: "fraction" as const, thousandths })),
  })
  .map(withoutUndefined);

/**
 * Two or three filters with a thousand or more complaints together (one of the largest states, or
 * the most common area code, with the robocall flag; or the largest state with the most common
 * area code), perhaps within a created range, in the middle of their matches: offsets that the
 * store places through a combination's counts (`complaint_combination_counts`,
 * `complaint_area_combination_counts`, or its hourly counts on rows) and reads from the nearer end
 * of the hours or days that hold them.
 */
const deepCombinationCase: fc.Arbitrary<ComplaintCase> = fc
  .record({
    created: maybe(range(createdMoment), 0.25),
    places: fc.oneof(
      fc
        .tuple(
          fc.oneof(
            fc
              .record({ state: spelled(pickFrom(stateNames.slice(0, 2))) })
              .map(({ state }): Place => ({ kind: "state", state })),
            fc.constant<Place>({ kind: "area", code: COMPLAINTS.areaCodes[0]! }),
          ),
          fc.boolean(),
        )
        .map(([first, robocall]): Place[] => [
          first,
          { kind: "robocall", robocall, spelling: String(robocall) },
        ]),
      fc.record({ state: spelled(fc.constant(stateNames[0]!)) }).map(({ state }): Place[] => [
        { kind: "state", state },
        { kind: "area", code: COMPLAINTS.areaCodes[0]! },
      ]),
    ),
    subject: maybe(spelled(pickFrom(COMPLAINTS.subjects)), 0.15),
    sortOrder: maybe(fc.constantFrom("ASC", "desc"), 0.6),
    itemsPerPage: maybe(fc.integer({ min: 1, max: 50 }), 0.5),
    offset: fc
      .integer({ min: 300, max: 700 })
      .map((thousandths) => ({ kind: "fraction" as const, thousandths })),
  })
  .map(withoutUndefined);

/**
 * A place (the most common area code, or the largest city, in its state or in every state) with a
 * subject, often with a range of whole violation days, perhaps with a state, the other place or
 * the robocall flag besides, in the middle of its matches: the combinations walked on the indexes
 * led by a place and a subject (`complaints_area_subject`, `complaints_city_subject`).
 */
const placeSubjectCase: fc.Arbitrary<ComplaintCase> = fc
  .record({
    created: maybe(range(createdMoment), 0.2),
    violation: maybe(
      range(violationMoment).map(
        (whole): Range => ({ from: { ...whole.from, dateOnly: true }, to: { ...whole.to, dateOnly: true } }),
      ),
      0.7,
    ),
    places: fc
      .tuple(
        fc.oneof(
          fc.constant<Place>({ kind: "area", code: COMPLAINTS.areaCodes[0]! }),
          spelled(fc.constant(bigCity)).map((city): Place => ({ kind: "city", city })),
          fc
            .record({ state: spelled(fc.constant(stateNames[0]!)), city: spelled(fc.constant(bigCity)) })
            .map(({ state, city }): Place => ({ kind: "state", state, city })),
        ),
        maybe(
          fc.oneof(
            fc
              .record({ state: spelled(fc.constant(stateNames[0]!)) })
              .map(({ state }): Place => ({ kind: "state", state })),
            fc.constant<Place>({ kind: "area", code: COMPLAINTS.areaCodes[0]! }),
            fc
              .boolean()
              .map((robocall): Place => ({ kind: "robocall", robocall, spelling: String(robocall) })),
          ),
          0.4,
        ),
      )
      .map(([first, second]) =>
        second === undefined ||
        second.kind === first.kind ||
        (second.kind === "state" && first.kind === "state")
          ? [first]
          : [first, second],
      ),
    subject: spelled(pickFrom(COMPLAINTS.subjects)),
    sortOrder: maybe(fc.constantFrom("ASC", "desc"), 0.6),
    itemsPerPage: maybe(fc.integer({ min: 1, max: 50 }), 0.5),
    offset: fc.oneof(
      offsetSpec,
      fc.integer({ min: 300, max: 700 }).map((thousandths) => ({ kind: "fraction" as const, thousandths })),
    ),
  })
  .map(({ places, ...rest }) =>
    withoutUndefined(places.length === 1 ? { ...rest, place: places[0] } : { ...rest, places }),
  );

const complaintCase: fc.Arbitrary<ComplaintCase> = fc.oneof(
  { weight: 8, arbitrary: mixedComplaintCase },
  { weight: 2, arbitrary: deepComplaintCase },
  { weight: 1, arbitrary: deepSubjectCase },
  { weight: 1, arbitrary: deepCombinationCase },
  { weight: 1, arbitrary: placeSubjectCase },
);

function boundText(bound: Bound): string {
  const text = formatComplaintTime(bound.at);
  const shown = bound.dateOnly ? text.slice(0, 10) : text.replace(" ", bound.separator);
  return bound.quoted ? `"${shown}"` : shown;
}

/** A bound's moment as the documentation defines it: a date alone is 00:00:00 as a start, 23:59:59 as an end. */
function boundSeconds(bound: Bound, side: "from" | "to"): number {
  if (!bound.dateOnly) return bound.at;
  const midnight = Math.floor(bound.at / DAY) * DAY;
  return side === "from" ? midnight : midnight + DAY - 1;
}

/** Every place filter of a case. */
function placesOf(c: ComplaintCase): Place[] {
  return c.places ?? (c.place ? [c.place] : []);
}

function complaintPairs(c: ComplaintCase, offset: number): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const dayText = (d: { day: number; quoted: boolean }) => {
    const text = formatComplaintTime(d.day).slice(0, 10);
    return d.quoted ? `"${text}"` : text;
  };
  if (c.createdDay) pairs.push(["created_date", dayText(c.createdDay)]);
  if (c.created)
    pairs.push(
      ["created_date_from", boundText(c.created.from)],
      ["created_date_to", boundText(c.created.to)],
    );
  if (c.violationDay) pairs.push(["violation_date", dayText(c.violationDay)]);
  if (c.violation)
    pairs.push(
      ["violation_date_from", boundText(c.violation.from)],
      ["violation_date_to", boundText(c.violation.to)],
    );
  for (const one of placesOf(c)) {
    if (one.kind === "state") {
      pairs.push(["state", quotedOrPadded(one.state.text, one.state.style)]);
      if (one.city) pairs.push(["city", quotedOrPadded(one.city.text, one.city.style)]);
    }
    if (one.kind === "city") pairs.push(["city", quotedOrPadded(one.city.text, one.city.style)]);
    if (one.kind === "area") pairs.push(["area_code", one.code]);
    if (one.kind === "robocall") pairs.push(["is_robocall", one.spelling]);
  }
  if (c.phone !== undefined) pairs.push(["company_phone_number", c.phone]);
  if (c.subject !== undefined) pairs.push(["subject", quotedOrPadded(c.subject.text, c.subject.style)]);
  if (c.sortBy !== undefined) pairs.push(["sort_by", c.sortBy]);
  if (c.sortOrder !== undefined) pairs.push(["sort_order", c.sortOrder]);
  if (c.itemsPerPage !== undefined) pairs.push(["items_per_page", String(c.itemsPerPage)]);
  if (c.offset.kind !== "absent") pairs.push(["offset", String(offset)]);
  // The order of parameters means nothing; shuffle it a little (deterministically) all the same.
  return offset % 2 === 1 ? pairs.reverse() : pairs;
}

// ---------------------------------------------------------------------------------------------
// Complaints: the oracle, from docs/api.md
//
// - created_date / violation_date: that whole day (00:00:00 to 23:59:59); _from/_to: inclusive,
//   a date alone covering its whole day; a day and a range together: both must hold.
// - state, city: "any case": the value and the complaint's are compared trimmed and lowercased
//   (domain/complaint.ts matchKey; spaces are the only padding generated). The generated names are
//   ASCII: matchKey lowers every letter, but SQL's lower() only ASCII ones on SQLite, so plain SQL
//   could not state the rule for other letters (the server gets `CAÑON CITY` right).
// - subject: as state and city, trimmed and lowercased on both sides (the generated subjects are
//   ASCII).
// - area_code, company_phone_number: exactly. is_robocall: true is `Y`, false is `N` (an empty flag
//   is neither).
// - Order: created time, ties by id, both in the requested direction (DESC by default).

function complaintWhere(c: ComplaintCase, p: SqlParameters): string {
  const where: string[] = [];
  const between = (column: string, from: number, to: number) =>
    where.push(`${column} >= ${p.integer(from)} AND ${column} <= ${p.integer(to)}`);
  if (c.createdDay) between("created_at", c.createdDay.day, c.createdDay.day + DAY - 1);
  if (c.created)
    between("created_at", boundSeconds(c.created.from, "from"), boundSeconds(c.created.to, "to"));
  if (c.violationDay) between("violation_at", c.violationDay.day, c.violationDay.day + DAY - 1);
  if (c.violation)
    between("violation_at", boundSeconds(c.violation.from, "from"), boundSeconds(c.violation.to, "to"));
  for (const one of placesOf(c)) {
    if (one.kind === "state") {
      where.push(`lower(trim(state)) = lower(trim(${p.text(one.state.text)}))`);
      if (one.city) where.push(`lower(trim(city)) = lower(trim(${p.text(one.city.text)}))`);
    }
    if (one.kind === "city") where.push(`lower(trim(city)) = lower(trim(${p.text(one.city.text)}))`);
    if (one.kind === "area") where.push(`area_code = ${p.text(one.code)}`);
    if (one.kind === "robocall") where.push(`robocall = ${p.text(one.robocall ? "Y" : "N")}`);
  }
  if (c.phone !== undefined) where.push(`phone = ${p.text(c.phone)}`);
  if (c.subject !== undefined) where.push(`lower(trim(subject)) = lower(trim(${p.text(c.subject.text)}))`);
  return where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
}

async function complaintTotal(db: OracleDatabase, c: ComplaintCase): Promise<number> {
  const p = new SqlParameters(db.dialect);
  const [row] = await db.rows(`SELECT COUNT(*) AS total FROM complaints ${complaintWhere(c, p)}`, p);
  return Number(row!.total);
}

function complaintDirection(c: ComplaintCase): "ASC" | "DESC" {
  return (c.sortOrder ?? "DESC").replaceAll('"', "").toUpperCase() === "ASC" ? "ASC" : "DESC";
}

async function complaintPage(
  db: OracleDatabase,
  c: ComplaintCase,
  offset: number,
  limit: number,
): Promise<string[]> {
  const p = new SqlParameters(db.dialect);
  const direction = complaintDirection(c);
  const rows = await db.rows(
    `SELECT id FROM complaints ${complaintWhere(c, p)}
     ORDER BY created_at ${direction}, id${collate(db.dialect)} ${direction}
     LIMIT ${p.integer(limit)} OFFSET ${p.integer(offset)}`,
    p,
  );
  return rows.map((row) => String(row.id));
}

// ---------------------------------------------------------------------------------------------
// Notices: the requests

const OPERATORS = [
  "=",
  "<>",
  ">",
  ">=",
  "<",
  "<=",
  "STARTS_WITH",
  "CONTAINS",
  "ENDS_WITH",
  "IN",
  "NOT IN",
  "BETWEEN",
  "NOT BETWEEN",
  "IS NULL",
  "IS NOT NULL",
] as const;
type Operator = (typeof OPERATORS)[number];
type Kind = "id" | "text" | "date" | "timestamp" | "array";
const FIELDS = {
  id: "id",
  title: "text",
  "transaction-number": "text",
  "acquiring-party": "text",
  "acquired-party": "text",
  "acquired-entities": "array",
  date: "date",
  created: "timestamp",
  updated: "timestamp",
  tags: "array",
} as const satisfies Record<string, Kind>;
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
const TEXTUAL = new Set<Operator>(["STARTS_WITH", "CONTAINS", "ENDS_WITH"]);
const LISTED = new Set<Operator>(["IN", "NOT IN", "BETWEEN", "NOT BETWEEN"]);

/** A value as sent (`shown`) and as the documentation says it compares (`compared`: seconds for moments). */
interface Value {
  shown: string;
  compared: string | number;
}

interface Leaf {
  kind: "leaf";
  field: Field;
  operator: Operator;
  values: Value[];
  /** How the condition is written: the shorthand, `filter[K][value]` with a default path, or `[condition]`. */
  form: "shorthand" | "value" | "condition";
  pathWithValue: boolean;
  operatorSpelling: "upper" | "lower" | "omitted";
  listStyle: "brackets" | "numbered" | "single";
}

interface Group {
  kind: "group";
  conjunction: "AND" | "OR";
  conjunctionSpelling: string;
  members: FilterNode[];
}

type FilterNode = Leaf | Group;

interface Keyword {
  text: string;
  phrase: boolean;
}

interface SortKey {
  field: Field;
  direction: "ASC" | "DESC";
}

interface SortSpec {
  keys: SortKey[];
  style: "text" | "tree" | "older";
  pathWithValue: boolean;
  omitAscending: boolean;
}

interface NoticeCase {
  filters: FilterNode[];
  title?: Keyword[];
  keywords?: Keyword[];
  transactionNumber?: string;
  date?: { date: string; quoted: boolean };
  sort?: SortSpec;
  offset: OffsetSpec;
  offsetStyle: "page" | "older";
  limit?: number;
  limitStyle: "page" | "older";
  fields?: string;
}

const notices: readonly RandomNotice[] = NOTICES.notices;

/** Every value of a field across the notices (list fields flattened), as stored. */
function storedValues(field: Field): string[] {
  return notices.flatMap((notice) => {
    const value = notice[field];
    if (Array.isArray(value)) return value;
    if (value === null) return [];
    return [String(value)];
  });
}

/**
 * Values that test LIKE's escaping (`%`, `_`, `\`), the empty value, spaces and punctuation, and
 * letters beyond ASCII in the one case the data holds them in.
 *
 * Left out on purpose, a disagreement between the server and docs/api.md: letters beyond ASCII in
 * another case than the notice's. The documentation says text compares "without
 * regard to case"; the server lowers with SQL's lower(), which folds ASCII letters only on SQLite
 * and on PostgreSQL under the C locale, so `CONTAINS ZÜRICH` does not find "Zürich Re" (and would
 * on PostgreSQL under another locale). Data and requests change the case of ASCII letters only
 * (asciiCase), so no case here depends on it.
 */
const SPECIAL_TEXT = [
  "%",
  "_",
  "\\",
  "%_",
  "100%",
  "50%_",
  "r_s",
  "_score",
  "back\\",
  "\\s",
  "a_b",
  "x\\y",
  "",
  " ",
  ", ",
  "é",
  "ü",
  "société",
  "zürich",
  "l.p.",
  ".",
];

function textValues(pool: readonly string[], operator: Operator): fc.Arbitrary<string> {
  const whole = fc.tuple(pickFrom(pool), caseChange).map(([value, change]) => changeCase(value, change));
  const cut = (piece: (value: string, start: number, length: number) => string) =>
    fc
      .tuple(pickFrom(pool), fc.nat(200), fc.integer({ min: 1, max: 14 }), caseChange)
      .map(([value, start, length, change]) => changeCase(piece(value, start, length), change));
  const prefix = cut((value, _start, length) => value.slice(0, length));
  const suffix = cut((value, _start, length) => value.slice(Math.max(0, value.length - length)));
  const middle = cut((value, start, length) => {
    const from = value.length === 0 ? 0 : start % value.length;
    return value.slice(from, from + length);
  });
  const word = fc
    .tuple(pickFrom(NOTICES.words), caseChange)
    .map(([value, change]) => changeCase(value, change));
  const special = pickFrom(SPECIAL_TEXT);
  switch (operator) {
    case "STARTS_WITH":
      return fc.oneof(
        { weight: 4, arbitrary: prefix },
        { weight: 1, arbitrary: word },
        { weight: 2, arbitrary: special },
      );
    case "ENDS_WITH":
      return fc.oneof(
        { weight: 4, arbitrary: suffix },
        { weight: 1, arbitrary: word },
        { weight: 2, arbitrary: special },
      );
    case "CONTAINS":
      return fc.oneof(
        { weight: 3, arbitrary: middle },
        { weight: 2, arbitrary: word },
        { weight: 2, arbitrary: special },
      );
    case "<":
    case "<=":
    case ">":
    case ">=":
    case "BETWEEN":
    case "NOT BETWEEN":
      return fc.oneof(
        { weight: 3, arbitrary: whole },
        { weight: 2, arbitrary: prefix },
        { weight: 1, arbitrary: word },
      );
    default:
      return fc.oneof(
        { weight: 5, arbitrary: whole },
        { weight: 1, arbitrary: word },
        { weight: 1, arbitrary: special },
      );
  }
}

const storedDates = [...new Set(storedValues("date"))];

/** A real calendar date, near the data's or not. */
const calendarDate = fc.oneof(
  { weight: 3, arbitrary: pickFrom(storedDates) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: Date.UTC(1998, 0, 1) / 1000 / DAY, max: Date.UTC(2022, 11, 31) / 1000 / DAY })
      .map((days) => new Date(days * DAY * 1000).toISOString().slice(0, 10)),
  },
);

function dateValues(operator: Operator): fc.Arbitrary<string> {
  const pieces = (cut: (date: string) => fc.Arbitrary<string>) => calendarDate.chain(cut);
  const wildcards = fc.constantFrom("%", "_", "20_1", "-0_-", "\\", "");
  switch (operator) {
    case "STARTS_WITH":
      return fc.oneof(
        pieces((date) =>
          fc.constantFrom(date.slice(0, 4), date.slice(0, 7), date, date.slice(0, 2), date.slice(0, 6)),
        ),
        wildcards,
      );
    case "ENDS_WITH":
      return fc.oneof(
        pieces((date) => fc.constantFrom(date.slice(-3), date.slice(-1), date, date.slice(-5))),
        wildcards,
      );
    case "CONTAINS":
      return fc.oneof(
        pieces((date) => fc.constantFrom(date.slice(4, 8), date.slice(5, 7), date.slice(3, 9))),
        wildcards,
      );
    default:
      return calendarDate;
  }
}

const storedMoments = notices.flatMap((notice) => [notice.created, notice.updated]);

/** A moment in every spelling the documentation accepts, and the seconds it means. */
const momentValue: fc.Arbitrary<Value> = fc
  .tuple(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .tuple(pickFrom(storedMoments), fc.constantFrom(0, 0, 0, -1, 1))
          .map(([at, nudge]) => at + nudge),
      },
      {
        weight: 2,
        arbitrary: fc.integer({ min: Date.UTC(2012, 0, 1) / 1000, max: Date.UTC(2023, 0, 1) / 1000 }),
      },
    ),
    fc.constantFrom("+00:00", "Z", "none", "space", "date", "seconds", "-05:00", "+05:30", "+0200"),
  )
  .map(([at, style]) => {
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19);
    switch (style) {
      case "+00:00":
      case "Z":
        return { shown: `${iso(at)}${style}`, compared: at };
      case "none":
        return { shown: iso(at), compared: at };
      case "space":
        return { shown: iso(at).replace("T", " "), compared: at };
      case "date": {
        const midnight = Math.floor(at / DAY) * DAY;
        return { shown: iso(midnight).slice(0, 10), compared: midnight };
      }
      case "seconds":
        return { shown: String(at), compared: at };
      default: {
        const sign = style.startsWith("-") ? -1 : 1;
        const digits = style.replace(":", "");
        const minutes = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
        return { shown: `${iso(at + minutes * 60)}${style}`, compared: at };
      }
    }
  });

function valuesFor(field: Field, operator: Operator): fc.Arbitrary<Value[]> {
  if (operator === "IS NULL" || operator === "IS NOT NULL") return fc.constant([]);
  const kind: Kind = FIELDS[field];
  const one: fc.Arbitrary<Value> =
    kind === "timestamp"
      ? momentValue
      : (kind === "date" ? dateValues(operator) : textValues(storedValues(field), operator)).map((text) => ({
          shown: text,
          compared: text,
        }));
  if (operator === "BETWEEN" || operator === "NOT BETWEEN") return fc.tuple(one, one).map(([a, b]) => [a, b]);
  if (operator === "IN" || operator === "NOT IN") return fc.array(one, { minLength: 1, maxLength: 5 });
  return one.map((value) => [value]);
}

/** A condition on `field` with `operator`, its values and its spelling drawn. */
function leafOf(field: Field, operator: Operator): fc.Arbitrary<Leaf> {
  return fc.record({
    kind: fc.constant("leaf" as const),
    field: fc.constant(field),
    operator: fc.constant(operator),
    values: valuesFor(field, operator),
    form: fc.constantFrom("shorthand" as const, "value" as const, "condition" as const, "condition" as const),
    pathWithValue: fc.boolean(),
    operatorSpelling: fc.constantFrom(
      "upper" as const,
      "upper" as const,
      "lower" as const,
      "omitted" as const,
    ),
    listStyle: fc.constantFrom("brackets" as const, "numbered" as const, "single" as const),
  });
}

const leaf: fc.Arbitrary<Leaf> = pickFrom(FIELD_NAMES)
  .chain((field) =>
    fc.tuple(
      fc.constant(field),
      // Moments take no text operator (a 400, tested elsewhere).
      pickFrom(OPERATORS.filter((operator) => FIELDS[field] !== "timestamp" || !TEXTUAL.has(operator))),
    ),
  )
  .chain(([field, operator]) => leafOf(field, operator));

/** The operators that bound a value from below, above or both. */
const RANGE_OPERATORS = [">", ">=", "<", "<=", "BETWEEN"] as const satisfies readonly Operator[];

/**
 * Two or three ranges bounding one field of one value per notice (which the store answers as one
 * range of the field's index), perhaps with another condition, in an AND.
 */
const boundedField: fc.Arbitrary<FilterNode[]> = pickFrom(
  FIELD_NAMES.filter((field) => FIELDS[field] !== "array"),
).chain((field) =>
  fc
    .tuple(
      fc.array(
        pickFrom(RANGE_OPERATORS).chain((operator) => leafOf(field, operator)),
        { minLength: 2, maxLength: 3 },
      ),
      maybe(leaf, 0.3),
      fc.boolean(),
    )
    .map(([ranges, other, tied]) => {
      // Bounds at one value half the time (`> x` with `>= x`, `>= x` with `<= x`): which one binds.
      const [first, second, ...rest] = ranges as [Leaf, Leaf, ...Leaf[]];
      const bound = tied ? { ...second, values: [first.values[0]!, ...second.values.slice(1)] } : second;
      return [first, bound, ...rest, ...(other ? [other] : [])];
    }),
);

function filterNode(depth: number): fc.Arbitrary<FilterNode> {
  if (depth === 0) return leaf;
  const group: fc.Arbitrary<FilterNode> = fc
    .record({
      conjunction: fc.constantFrom("AND" as const, "OR" as const, "OR" as const),
      lower: fc.boolean(),
      members: fc.array(filterNode(depth - 1), { minLength: 1, maxLength: 3 }),
    })
    .map(({ conjunction, lower, members }) => ({
      kind: "group" as const,
      conjunction,
      conjunctionSpelling: lower ? conjunction.toLowerCase() : conjunction,
      members,
    }));
  return fc.oneof({ weight: 3, arbitrary: leaf }, { weight: 1, arbitrary: group });
}

/** Keywords from the titles: single words, or phrases of two or three words in double quotes. */
const keyword: fc.Arbitrary<Keyword> = fc
  .tuple(
    pickFrom(notices.map((notice) => notice.title)),
    fc.nat(50),
    fc.integer({ min: 1, max: 3 }),
    caseChange,
  )
  .map(([title, start, length, change]) => {
    const words = title.split(/\s+/).filter((word) => word !== "" && !word.includes('"'));
    const from = start % words.length;
    const taken = words.slice(from, from + length);
    return { text: changeCase(taken.join(" "), change), phrase: taken.length > 1 };
  });

const sortSpec: fc.Arbitrary<SortSpec> = fc
  .record({
    keys: fc.uniqueArray(
      fc.record({
        field: pickFrom(FIELD_NAMES),
        direction: fc.constantFrom("ASC" as const, "DESC" as const),
      }),
      {
        selector: (key) => key.field,
        minLength: 0,
        maxLength: 4,
      },
    ),
    style: fc.constantFrom("text" as const, "tree" as const, "older" as const),
    pathWithValue: fc.boolean(),
    omitAscending: fc.boolean(),
  })
  .map((spec) => {
    // The older API's sort_by names created or changed (updated) only; sort_order alone means created.
    if (spec.style !== "older") return spec;
    const first = spec.keys[0];
    if (first === undefined) return spec;
    const field: Field = first.field === "updated" ? "updated" : "created";
    return { ...spec, keys: [{ field, direction: first.direction }] };
  });

const noticeCase: fc.Arbitrary<NoticeCase> = fc
  .record({
    filters: fc.oneof(
      { weight: 2, arbitrary: fc.constant<FilterNode[]>([]) },
      { weight: 5, arbitrary: fc.array(filterNode(3), { minLength: 1, maxLength: 1 }) },
      { weight: 3, arbitrary: fc.array(filterNode(3), { minLength: 2, maxLength: 3 }) },
    ),
    title: maybe(fc.array(keyword, { minLength: 1, maxLength: 3 }), 0.15),
    keywords: maybe(fc.array(keyword, { minLength: 1, maxLength: 2 }), 0.07),
    transactionNumber: maybe(
      fc.oneof(pickFrom(notices.map((notice) => notice["transaction-number"])), fc.stringMatching(/^\d{8}$/)),
      0.05,
    ),
    date: maybe(fc.record({ date: calendarDate, quoted: fc.boolean() }), 0.05),
    sort: maybe(sortSpec, 0.7),
    offset: offsetSpec,
    offsetStyle: fc.constantFrom("page" as const, "older" as const),
    limit: maybe(fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(1, 2, 50)), 0.6),
    limitStyle: fc.constantFrom("page" as const, "older" as const),
    fields: maybe(
      fc.constantFrom("title", "title,date", "node_type", "tags,acquired-entities,created"),
      0.15,
    ),
  })
  .map(withoutUndefined);

/** The sort the request asks for, as keys; empty means the default (created, newest first). */
function sortKeys(c: NoticeCase): SortKey[] {
  if (!c.sort) return [];
  if (c.sort.style === "older" && c.sort.keys.length === 0) return [];
  return c.sort.keys;
}

function noticePairs(c: NoticeCase, offset: number): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const usedKeys = new Set<string>();
  let conditions = 0;
  let groups = 0;
  const emit = (node: FilterNode, memberOf: string | undefined) => {
    if (node.kind === "group") {
      const name = `g${groups++}`;
      pairs.push([`filter[${name}][group][conjunction]`, node.conjunctionSpelling]);
      if (memberOf) pairs.push([`filter[${name}][group][memberOf]`, memberOf]);
      for (const member of node.members) emit(member, name);
      return;
    }
    const path = node.pathWithValue && node.field !== "id" ? `${node.field}.value` : node.field;
    const listed = LISTED.has(node.operator);
    const valueless = node.operator === "IS NULL" || node.operator === "IS NOT NULL";
    if (node.form === "shorthand" && node.operator === "=" && !memberOf && !usedKeys.has(path)) {
      usedKeys.add(path);
      pairs.push([`filter[${path}]`, node.values[0]!.shown]);
      return;
    }
    let at: string;
    if (node.form === "value" && !usedKeys.has(path)) {
      usedKeys.add(path);
      at = `filter[${path}]`;
    } else if (node.form === "value") {
      at = `filter[c${conditions++}]`;
      pairs.push([`${at}[path]`, path]);
    } else {
      at = `filter[c${conditions++}][condition]`;
      pairs.push([`${at}[path]`, path]);
    }
    if (node.operatorSpelling !== "omitted" || node.operator !== "=")
      pairs.push([
        `${at}[operator]`,
        node.operatorSpelling === "lower" ? node.operator.toLowerCase() : node.operator,
      ]);
    if (!valueless) {
      const single =
        node.listStyle === "single" &&
        node.values.length === 1 &&
        (node.operator === "IN" || node.operator === "NOT IN");
      if (listed && !single) {
        for (const [index, value] of node.values.entries())
          pairs.push([`${at}[value][${node.listStyle === "numbered" ? index : ""}]`, value.shown]);
      } else {
        // One value; a single-value IN takes it without brackets too.
        for (const value of node.values) pairs.push([`${at}[value]`, value.shown]);
      }
    }
    if (memberOf) pairs.push([`${at}[memberOf]`, memberOf]);
  };
  for (const node of c.filters) emit(node, undefined);
  const keywordText = (words: Keyword[]) =>
    words.map((word) => (word.phrase ? `"${word.text}"` : word.text)).join(" ");
  if (c.title) pairs.push(["title", keywordText(c.title)]);
  if (c.keywords) pairs.push(["keywords", keywordText(c.keywords)]);
  if (c.transactionNumber !== undefined) pairs.push(["transaction_number", c.transactionNumber]);
  if (c.date) pairs.push(["date", c.date.quoted ? `"${c.date.date}"` : c.date.date]);
  if (c.sort) {
    const { keys, style, pathWithValue, omitAscending } = c.sort;
    const path = (field: Field) => (pathWithValue && field !== "id" ? `${field}.value` : field);
    if (style === "text") {
      if (keys.length > 0)
        pairs.push([
          "sort",
          keys.map((key) => `${key.direction === "DESC" ? "-" : ""}${path(key.field)}`).join(","),
        ]);
    } else if (style === "tree") {
      keys.forEach((key, index) => {
        pairs.push([`sort[s${index}][path]`, path(key.field)]);
        if (key.direction === "DESC" || !omitAscending)
          pairs.push([
            `sort[s${index}][direction]`,
            omitAscending ? key.direction.toLowerCase() : key.direction,
          ]);
      });
    } else {
      const key = keys[0];
      // sort_order alone orders by created; sort_by alone orders descending.
      if (key === undefined) pairs.push(["sort_order", omitAscending ? "asc" : "DESC"]);
      else {
        pairs.push(["sort_by", key.field === "created" ? "created" : pathWithValue ? "changed" : "updated"]);
        if (key.direction === "ASC" || !omitAscending) pairs.push(["sort_order", key.direction]);
      }
    }
  }
  if (c.offset.kind !== "absent")
    pairs.push([c.offsetStyle === "page" ? "page[offset]" : "offset", String(offset)]);
  if (c.limit !== undefined)
    pairs.push([c.limitStyle === "page" ? "page[limit]" : "items_per_page", String(c.limit)]);
  if (c.fields !== undefined) pairs.push(["fields[early_termination_notice]", c.fields]);
  return pairs;
}

/** What an older-API sort means when sort_order stands alone. */
function effectiveSort(c: NoticeCase): SortKey[] {
  if (c.sort?.style === "older" && c.sort.keys.length === 0)
    return [{ field: "created", direction: c.sort.omitAscending ? "ASC" : "DESC" }];
  return sortKeys(c);
}

// ---------------------------------------------------------------------------------------------
// Notices: the oracle, from docs/api.md ("Filters", "Sorting, paging, fieldsets")
//
// - Text and ids compare without regard to case, lower() on both sides; STARTS_WITH, CONTAINS and
//   ENDS_WITH match the value literally (no wildcards): written here with substr/instr/strpos, not
//   LIKE, so the server's escaping is what is tested. Text orders byte by byte.
// - Dates compare as their YYYY-MM-DD text; moments as seconds.
// - Lists hold when any one value does (so <> and NOT IN mean "has a value other than"); IS NULL:
//   no value at all.
// - Absent values satisfy no comparison, only IS NULL.
// - Groups: AND / OR of their members; the root is an AND, plain title/keywords words are title
//   CONTAINS each, transaction_number and date are equalities.
// - Sort: each key in turn, text without regard to case, a list by its first value, absent values
//   after all others ascending (before them descending); ties broken by id (ascending); no sort:
//   created, newest first.

const COLUMNS: Record<Exclude<Field, "acquired-entities" | "tags">, string> = {
  id: "n.id",
  title: "n.title",
  "transaction-number": "n.transaction_number",
  "acquiring-party": "n.acquiring_party",
  "acquired-party": "n.acquired_party",
  date: "n.date",
  created: "n.created_at",
  updated: "n.updated_at",
};

/** `needle` occurs in `haystack`, literally. */
function containsSql(dialect: Dialect, haystack: string, needle: string): string {
  return dialect === "postgres" ? `strpos(${haystack}, ${needle}) > 0` : `instr(${haystack}, ${needle}) > 0`;
}

function comparisonSql(
  p: SqlParameters,
  kind: Kind,
  left: string,
  operator: Operator,
  values: readonly Value[],
): string {
  const c = collate(p.dialect);
  const right = (value: Value): string => {
    if (kind === "timestamp") return p.integer(value.compared as number);
    if (kind === "date") return `${p.text(String(value.compared))}${c}`;
    return `lower(${p.text(String(value.compared))})${c}`;
  };
  const l = kind === "timestamp" ? left : `${left}${c}`;
  const [first, second] = values as [Value, Value];
  switch (operator) {
    case "=":
    case "<>":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return `${l} ${operator} ${right(first)}`;
    case "IN":
      return `${l} IN (${values.map(right).join(", ")})`;
    case "NOT IN":
      return `${l} NOT IN (${values.map(right).join(", ")})`;
    case "BETWEEN":
      return `(${l} >= ${right(first)} AND ${l} <= ${right(second)})`;
    case "NOT BETWEEN":
      return `NOT (${l} >= ${right(first)} AND ${l} <= ${right(second)})`;
    case "STARTS_WITH": {
      const needle = right(first);
      return `substr(${l}, 1, length(${needle})) = ${needle}`;
    }
    case "CONTAINS":
      return containsSql(p.dialect, l, right(first));
    case "ENDS_WITH": {
      const needle = right(first);
      return `(length(${l}) >= length(${needle}) AND substr(${l}, length(${l}) - length(${needle}) + 1) = ${needle})`;
    }
    default:
      throw new Error(`no comparison for ${operator}`);
  }
}

function leafSql(p: SqlParameters, node: Leaf): string {
  const kind: Kind = FIELDS[node.field];
  if (kind === "array") {
    const values = `SELECT 1 FROM notice_values v WHERE v.notice_id = n.id AND v.field = ${p.text(node.field)}`;
    if (node.operator === "IS NULL") return `NOT EXISTS (${values})`;
    if (node.operator === "IS NOT NULL") return `EXISTS (${values})`;
    return `EXISTS (${values} AND ${comparisonSql(p, kind, "lower(v.value)", node.operator, node.values)})`;
  }
  const column = COLUMNS[node.field as keyof typeof COLUMNS];
  if (node.operator === "IS NULL") return `${column} IS NULL`;
  if (node.operator === "IS NOT NULL") return `${column} IS NOT NULL`;
  const left = kind === "text" || kind === "id" ? `lower(${column})` : column;
  return `(${column} IS NOT NULL AND ${comparisonSql(p, kind, left, node.operator, node.values)})`;
}

function nodeSql(p: SqlParameters, node: FilterNode): string {
  if (node.kind === "leaf") return leafSql(p, node);
  return `(${node.members.map((member) => nodeSql(p, member)).join(node.conjunction === "AND" ? " AND " : " OR ")})`;
}

function noticeWhere(c: NoticeCase, p: SqlParameters): string {
  const where = c.filters.map((node) => nodeSql(p, node));
  const c8 = collate(p.dialect);
  for (const word of [...(c.title ?? []), ...(c.keywords ?? [])])
    where.push(containsSql(p.dialect, `lower(n.title)${c8}`, `lower(${p.text(word.text.trim())})${c8}`));
  if (c.transactionNumber !== undefined)
    where.push(`lower(n.transaction_number) = lower(${p.text(c.transactionNumber)})`);
  if (c.date) where.push(`n.date = ${p.text(c.date.date)}`);
  return where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
}

function orderSql(c: NoticeCase, dialect: Dialect): string {
  const keys = effectiveSort(c);
  const order = keys.length > 0 ? keys : [{ field: "created" as const, direction: "DESC" as const }];
  const cc = collate(dialect);
  const terms = order.map(({ field, direction }) => {
    const kind: Kind = FIELDS[field];
    let expression: string;
    if (kind === "array")
      expression = `(SELECT lower(v.value) FROM notice_values v WHERE v.notice_id = n.id AND v.field = '${field}' ORDER BY v.position LIMIT 1)${cc}`;
    else if (kind === "text") expression = `lower(${COLUMNS[field as keyof typeof COLUMNS]})${cc}`;
    else if (kind === "timestamp") expression = COLUMNS[field as keyof typeof COLUMNS];
    else expression = `${COLUMNS[field as keyof typeof COLUMNS]}${cc}`;
    return `${expression} ${direction} ${direction === "ASC" ? "NULLS LAST" : "NULLS FIRST"}`;
  });
  if (!order.some((key) => key.field === "id")) terms.push(`n.id${cc} ASC`);
  return `ORDER BY ${terms.join(", ")}`;
}

async function noticeTotal(db: OracleDatabase, c: NoticeCase): Promise<number> {
  const p = new SqlParameters(db.dialect);
  const [row] = await db.rows(`SELECT COUNT(*) AS total FROM notices n ${noticeWhere(c, p)}`, p);
  return Number(row!.total);
}

async function noticePage(
  db: OracleDatabase,
  c: NoticeCase,
  offset: number,
  limit: number,
): Promise<string[]> {
  const p = new SqlParameters(db.dialect);
  const rows = await db.rows(
    `SELECT n.id FROM notices n ${noticeWhere(c, p)} ${orderSql(c, db.dialect)} LIMIT ${p.integer(limit)} OFFSET ${p.integer(offset)}`,
    p,
  );
  return rows.map((row) => String(row.id));
}

/**
 * Asks the server for `c`'s page and asserts its count and ids are the oracle's; returns the
 * oracle's total and the offset asked for.
 */
async function assertNoticePage(
  client: KeepAliveClient,
  oracle: OracleDatabase,
  c: NoticeCase,
): Promise<{ total: number; offset: number }> {
  const total = await noticeTotal(oracle, c);
  const offset = resolveOffset(c.offset, total);
  const ids = await noticePage(oracle, c, offset, c.limit ?? 50);
  const path = `/v0/hsr-early-termination-notices?${queryString(noticePairs(c, offset))}`;
  const res = await client.get(path);
  assert.equal(res.status, 200, `${path}: ${res.body}`);
  const body = JSON.parse(res.body);
  assert.deepEqual(
    { count: body.meta.count, ids: body.data.map((record: { id: string }) => record.id) },
    { count: total, ids },
    `GET ${path}`,
  );
  return { total, offset };
}

// ---------------------------------------------------------------------------------------------
// The suites

for (const dialect of DIALECTS) {
  describe(`query shapes against a naive SQL oracle (${dialect})`, () => {
    let server: TestServer;
    let client: KeepAliveClient;
    let oracle: OracleDatabase;

    before(async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const files = {
        complaints: join(directory, "complaints.csv"),
        notices: join(directory, "notices.json"),
      };
      await writeRandomCollections(COMPLAINTS, NOTICES, files);
      const imported = await importFiles(db, { complaints: [files.complaints], notices: [files.notices] });
      assert.equal(imported.complaints[0]!.added, COMPLAINTS.rows, "every generated complaint is imported");
      assert.equal(imported.notices[0]!.added, NOTICE_COUNT, "every generated notice is imported");
      const key = await createTestKey(db, { email: "oracle@example.com", limitPerHour: "unlimited" });
      server = await startTestServer({ db });
      client = new KeepAliveClient(server.httpsUrl, server.ca, { "X-Api-Key": key });
      oracle = await openOracleDatabase(dialect, db);
    });
    after(async () => {
      client?.close();
      await oracle?.close();
      await server?.stop();
    });

    it("answers every complaint shape with the oracle's total and page", async (t) => {
      const tally = new Tally();
      await check(t, `complaints (${dialect})`, complaintCase, async (c) => {
        const total = await complaintTotal(oracle, c);
        const limit = c.itemsPerPage ?? 50;
        const offset = resolveOffset(c.offset, total);
        const ids = await complaintPage(oracle, c, offset, limit);
        const path = `/v0/dnc-complaints?${queryString(complaintPairs(c, offset))}`;
        const res = await client.get(path);
        assert.equal(res.status, 200, `${path}: ${res.body}`);
        const body = JSON.parse(res.body);
        assert.deepEqual(
          { total: body.meta["record-total"], ids: body.data.map((record: { id: string }) => record.id) },
          { total, ids },
          `GET ${path}`,
        );
        assert.equal(body.meta["records-this-page"], ids.length, `GET ${path}: records-this-page`);
        tally.add("cases", true);
        tally.add("empty", total === 0);
        tally.add("deep", offset > 1_000 && offset < total);
        tally.add("pastEnd", offset >= total && total > 0);
        const violation = c.violation !== undefined || c.violationDay !== undefined;
        const others = c.created !== undefined || c.createdDay !== undefined || placesOf(c).length > 0;
        tally.add("violation alone", violation && !others && c.phone === undefined);
        tally.add("violation with others", violation && others);
        tally.add(
          "created range with times",
          c.created && !(c.created.from.dateOnly && c.created.to.dateOnly),
        );
        tally.add("state", c.place?.kind === "state");
        tally.add("city", c.place?.kind === "state" && c.place.city !== undefined);
        tally.add("area code", c.place?.kind === "area");
        tally.add("robocall", c.place?.kind === "robocall");
        tally.add("phone", c.phone !== undefined);
        tally.add("city alone", c.place?.kind === "city");
        tally.add("place combination", c.places !== undefined);
        tally.add("phone with a place", c.phone !== undefined && placesOf(c).length > 0);
        tally.add("subject", c.subject !== undefined);
        tally.add(
          "subject with another filter",
          c.subject !== undefined &&
            (placesOf(c).length > 0 || c.phone !== undefined || violation || c.createdDay !== undefined),
        );
        tally.add("subject of several spellings", c.subject?.text.toLowerCase() === "other");
        const placeWithSubject =
          c.subject !== undefined &&
          placesOf(c).some(
            (one) =>
              one.kind === "area" || one.kind === "city" || (one.kind === "state" && one.city !== undefined),
          );
        tally.add("place and subject", placeWithSubject);
        tally.add("place, subject and violation range", placeWithSubject && c.violation !== undefined);
        tally.add("ascending", complaintDirection(c) === "ASC");
        // Offsets that a count series places (past 1,000 from either end), per filter.
        const fromEitherEnd = Math.min(offset, total - offset - limit);
        const placeName = c.places
          ? "combination"
          : c.place === undefined
            ? "no place"
            : c.place.kind === "state" && c.place.city
              ? "city"
              : c.place.kind;
        tally.add(`deep, ${placeName}`, fromEitherEnd > 1_000);
        tally.add("deep, range with times", fromEitherEnd > 1_000 && c.created && !c.created.from.dateOnly);
        tally.add("deep, subject", fromEitherEnd > 1_000 && c.subject !== undefined);
        tally.add(
          "deep, subject alone",
          fromEitherEnd > 1_000 && c.subject !== undefined && placesOf(c).length === 0,
        );
      });
      t.diagnostic(`complaints (${dialect}): ${tally}`);
    });

    it("answers every notice shape with the oracle's count and page", async (t) => {
      const tally = new Tally();
      await check(t, `notices (${dialect})`, noticeCase, async (c) => {
        const { total, offset } = await assertNoticePage(client, oracle, c);
        tally.add("cases", true);
        tally.add("empty", total === 0);
        tally.add("all", total === NOTICE_COUNT);
        tally.add("deep", offset > total / 2 && offset < total);
        tally.add("pastEnd", offset >= total && total > 0);
        tally.add(
          "groups",
          c.filters.some((node) => node.kind === "group"),
        );
        tally.add("sorted", effectiveSort(c).length > 0);
      });
      t.diagnostic(`notices (${dialect}): ${tally}`);
    });

    it("answers ranges bounding one field, and several pages of one filter, with the oracle's", async (t) => {
      const tally = new Tally();
      const bounded = fc.record({
        filters: boundedField,
        sort: maybe(sortSpec, 0.5),
        offsets: fc.array(offsetSpec, { minLength: 3, maxLength: 4 }),
        limit: maybe(fc.integer({ min: 1, max: 50 }), 0.5),
      });
      await check(t, `notices, bounded fields and repeated filters (${dialect})`, bounded, async (drawn) => {
        // The same filter asked again: its matches are kept from the second request, and their
        // places in the order from the third (the store's paths for repeated filters).
        for (const offsetDrawn of drawn.offsets) {
          const c: NoticeCase = withoutUndefined({
            filters: drawn.filters,
            sort: drawn.sort,
            offset: offsetDrawn,
            offsetStyle: "page" as const,
            limit: drawn.limit,
            limitStyle: "page" as const,
          });
          const { total, offset } = await assertNoticePage(client, oracle, c);
          tally.add("pages", true);
          tally.add("empty", total === 0);
          tally.add("over 50", total > 50);
          tally.add("deep", offset > total / 2 && offset < total);
        }
      });
      t.diagnostic(`notices, bounded fields and repeated filters (${dialect}): ${tally}`);
    });
  });
}
