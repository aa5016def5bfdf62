import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { formatDateTime } from "../../src/domain/time.js";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli } from "../support/cli.js";
import { writeComplaintRows } from "../support/complaint-rows.js";
import {
  generatedComplaintFiles,
  importEach,
  migrateAgain,
  type StoredComplaintRow,
  storedComplaintRows,
} from "../support/count-tables.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { startTestServer } from "../support/test-server.js";

type HourCount = { value: string; hour: number; count: number };
type Row = StoredComplaintRow;
type Counted =
  | "violated_on"
  | "state_violated_on"
  | "flag_violated_on"
  | "flag_violated_hours"
  | "place_violated_on";

const DAY = 86_400;

/** A filter given with a violation range: its query parameter, and which stored rows it matches. */
type Filter = { parameter: string; matches: (row: Row) => boolean };

/**
 * Complaints per violation day and created hour (`violated_on`), or per violation day and state
 * and created day (`state_violated_on`, the rows of `complaint_state_violations`), or per violation
 * day, robocall flag, subject or area code and created day (`flag_violated_on`, the rows of
 * `complaint_flag_violations`), or per violation day, robocall flag and created hour
 * (`flag_violated_hours`, the rows of `complaint_flag_violation_hours`), or per violation day,
 * area code or city (not an empty one), state, flag and created day (`place_violated_on`, the rows
 * of `complaint_place_violations`), counted here from the stored rows.
 */
async function expectedViolatedOn(
  location: string,
  dimension: Counted = "violated_on",
  blocks = false,
): Promise<HourCount[]> {
  const counts = new Map<string, number>();
  for (const row of await storedComplaintRows(location)) {
    const violationDay = Math.floor(row.violation_at / DAY);
    // With `blocks`, the first day of the violation day's block of 16 (migration 033).
    const day = String(blocks ? violationDay - (((violationDay % 16) + 16) % 16) : violationDay);
    const values =
      dimension === "violated_on"
        ? [day]
        : dimension === "state_violated_on"
          ? [`${day}:${row.state_key}`]
          : dimension === "flag_violated_hours"
            ? [`${day}:robocall:${row.robocall}`]
            : dimension === "place_violated_on"
              ? [
                  `${day}:area:${row.area_code}:${row.state_key}:${row.robocall}`,
                  ...(row.city_key === ""
                    ? []
                    : [
                        `${day}:city:${row.city_key}:${row.state_key}:${row.robocall}`,
                        `${day}:city_area:${row.city_key}\u001f${row.area_code}:${row.state_key}:${row.robocall}`,
                      ]),
                ]
              : [
                  `${day}:robocall:${row.robocall}`,
                  `${day}:subject:${row.subject}`,
                  `${day}:area:${row.area_code}`,
                  `${day}:state_robocall:${row.state_key}\u001f${row.robocall}`,
                  `${day}:subject_robocall:${row.subject}\u001f${row.robocall}`,
                  `${day}:state_subject:${row.state_key}\u001f${row.subject}`,
                  `${day}:state_subject_robocall:${row.state_key}\u001f${row.subject}\u001f${row.robocall}`,
                ];
    for (const value of values) {
      const key = JSON.stringify([
        value,
        Math.floor(
          row.created_at / (dimension === "violated_on" || dimension === "flag_violated_hours" ? 3600 : DAY),
        ),
      ]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].map(([key, count]) => {
    const [value, hour] = JSON.parse(key) as [string, number];
    return { value, hour, count };
  });
}

async function storedViolatedOn(
  location: string,
  dimension: Counted = "violated_on",
  blocks = false,
): Promise<HourCount[]> {
  const database = openDatabase(location);
  try {
    if (dimension === "state_violated_on") {
      const rows = await database.db
        .selectFrom(blocks ? "complaint_state_violation_blocks" : "complaint_state_violations")
        .select(["state_key", "created_day", "violation_day", "count"])
        .execute();
      return rows.map((row) => ({
        value: `${row.violation_day}:${row.state_key}`,
        hour: Number(row.created_day),
        count: Number(row.count),
      }));
    }
    if (dimension === "flag_violated_on") {
      const rows = await database.db
        .selectFrom(blocks ? "complaint_flag_violation_blocks" : "complaint_flag_violations")
        .select(["dimension", "value", "created_day", "violation_day", "count"])
        .execute();
      return rows.map((row) => ({
        value: `${row.violation_day}:${row.dimension}:${row.value}`,
        hour: Number(row.created_day),
        count: Number(row.count),
      }));
    }
    if (dimension === "place_violated_on") {
      const rows = await database.db
        .selectFrom(blocks ? "complaint_place_violation_blocks" : "complaint_place_violations")
        .select(["place", "value", "created_day", "violation_day", "state_key", "robocall", "count"])
        .execute();
      return rows.map((row) => ({
        value: `${row.violation_day}:${row.place}:${row.value}:${row.state_key}:${row.robocall}`,
        hour: Number(row.created_day),
        count: Number(row.count),
      }));
    }
    if (dimension === "flag_violated_hours") {
      const rows = await database.db
        .selectFrom("complaint_flag_violation_hours")
        .select(["dimension", "value", "created_hour", "violation_day", "count"])
        .execute();
      return rows.map((row) => ({
        value: `${row.violation_day}:${row.dimension}:${row.value}`,
        hour: Number(row.created_hour),
        count: Number(row.count),
      }));
    }
    const rows = await database.db
      .selectFrom("complaint_hour_counts")
      .select(["value", "hour", "count"])
      .where("dimension", "=", dimension)
      .execute();
    return rows.map((row) => ({ value: row.value, hour: Number(row.hour), count: Number(row.count) }));
  } finally {
    await database.close();
  }
}

/** The created day of `denseDay`. */
const DENSE_DAY = Date.UTC(2022, 2, 10) / 1000 / DAY;

/**
 * One day of 6,000 robocalls (one every 14 seconds), each violated on that day or one of the five
 * before: a violation range and the flag then match thousands of complaints in one created day,
 * so that a page in its middle is placed to its hour (`complaint_flag_violation_hours`) before
 * the flag's index is walked.
 */
async function denseDay(): Promise<string> {
  const rows: string[][] = [];
  for (let index = 0; index < 6000; index++) {
    const created = DENSE_DAY * DAY + index * 14;
    const violation = (DENSE_DAY - (index % 6)) * DAY + (index % 3600);
    rows.push([
      `2145550${String(index % 1000).padStart(3, "0")}`,
      formatDateTime(created),
      formatDateTime(violation),
      "Dallas",
      "Texas",
      "214",
      "Other",
      "Y",
    ]);
  }
  return writeComplaintRows("dense.csv", rows);
}

/** The old violation day of `sparseViolations`. */
const SPARSE_DAY = Date.UTC(2023, 0, 15) / 1000 / DAY;

/**
 * Twenty days of a busy state (Texas, 75 complaints a day, each violated the day it was filed)
 * and among them 24 complaints violated on one old day (`SPARSE_DAY`), filed about a day apart:
 * a page of that day and state spans days of the state's complaints, so that it is read on the
 * days' index instead (one seek a day, the state tested on each row).
 */
async function sparseViolations(): Promise<string> {
  const first = Date.UTC(2024, 5, 1) / 1000;
  const rows: string[][] = [];
  for (let index = 0; index < 1500; index++) {
    const created = first + index * 1152; // 20 days over 1,500 complaints
    const oldViolation = index % 62 === 0;
    const violation = oldViolation ? SPARSE_DAY * DAY + 3600 : created - 600;
    rows.push([
      `5125550${String(index % 1000).padStart(3, "0")}`,
      formatDateTime(created),
      formatDateTime(violation),
      "Austin",
      "Texas",
      "512",
      "Other",
      "N",
    ]);
  }
  return writeComplaintRows("sparse.csv", rows);
}

/** The violation days of `sparseSubject`'s Vermont complaints. */
const SUBJECT_DAY = Date.UTC(2023, 1, 1) / 1000 / DAY;
const SUBJECT_OLD_DAY = Date.UTC(2023, 0, 20) / 1000 / DAY;
/** The violation day of `sparseSubject`'s last two Vermont complaints alone. */
const SUBJECT_RARE_DAY = SUBJECT_OLD_DAY - 2;

/**
 * Ten days of 24,000 complaints of one subject, one in a hundred in a small state (Vermont), a
 * twentieth of those violated on `SUBJECT_DAY` and another twentieth of the first two thirds on
 * `SUBJECT_OLD_DAY`; of the
 * others one in five violated on `SUBJECT_DAY` too. A page of that subject and state within either
 * day then spans days of the subject's complaints (more than the 10,000 entries walked unweighed):
 * on `SUBJECT_DAY` the state's index holds the fewest entries (the days' index holds thousands of
 * the other state's), on `SUBJECT_OLD_DAY` the days' index, each tested for the subject on its row.
 * The last two Vermont complaints alone were violated on `SUBJECT_RARE_DAY`: the newest page of a
 * range holding that day and `SUBJECT_OLD_DAY` spans days of the subject's complaints, and only its
 * newest created day holds the rare day.
 * Each of those Vermont complaints has a twin of another subject filed in the same second.
 */
async function sparseSubject(): Promise<string> {
  const first = Date.UTC(2023, 2, 1) / 1000;
  const rows: string[][] = [];
  for (let index = 0; index < 24_000; index++) {
    const created = first + index * 36;
    const vermont = index % 100 === 0;
    const violationDay = vermont
      ? index >= 23_800
        ? SUBJECT_RARE_DAY
        : (index / 100) % 20 === 0
          ? SUBJECT_DAY
          : (index / 100) % 20 === 10 && index < 16_000
            ? SUBJECT_OLD_DAY
            : undefined
      : index % 5 === 1
        ? SUBJECT_DAY
        : undefined;
    const violation = violationDay === undefined ? created - 600 : violationDay * DAY + 7200;
    const [city, state, area] = vermont ? ["Burlington", "Vermont", "802"] : ["Columbus", "Ohio", "614"];
    rows.push([
      `${area}5550${String(index % 1000).padStart(3, "0")}`,
      formatDateTime(created),
      formatDateTime(violation),
      city,
      state,
      area,
      "Other",
      index % 2 === 0 ? "Y" : "N",
    ]);
    // A twin of another subject, filed the same second: a subject read from the wrong row of that
    // second would be wrong.
    if (vermont && violationDay !== undefined)
      rows.push([
        "8025551000",
        formatDateTime(created),
        formatDateTime(violation),
        city,
        state,
        area,
        "Charities",
        "N",
      ]);
  }
  return writeComplaintRows("sparse-subject.csv", rows);
}

const byKey = (a: HourCount, b: HourCount) => a.value.localeCompare(b.value) || a.hour - b.hour;
const dayText = (day: number) => new Date(day * DAY * 1000).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`violation ranges: counts per violation day and created hour (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      files = [
        ...(await generatedComplaintFiles([7, 8], { rows: 4000, days: 30 })),
        await sparseViolations(),
        await denseDay(),
        await sparseSubject(),
      ];
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      await importEach(db, files);
      for (const dimension of [
        "violated_on",
        "state_violated_on",
        "flag_violated_on",
        "flag_violated_hours",
        "place_violated_on",
      ] as const) {
        const expected = await expectedViolatedOn(db, dimension);
        assert.ok(expected.length > 500);
        assert.deepEqual(
          (await storedViolatedOn(db, dimension)).sort(byKey),
          expected.sort(byKey),
          dimension,
        );
      }
      for (const dimension of ["state_violated_on", "flag_violated_on", "place_violated_on"] as const) {
        const expected = await expectedViolatedOn(db, dimension, true);
        assert.ok(expected.length > 500);
        assert.deepEqual(
          (await storedViolatedOn(db, dimension, true)).sort(byKey),
          expected.sort(byKey),
          `${dimension} per block`,
        );
      }
    });

    it("are computed for a database made before them", async () => {
      await migrateAgain(db, "015-violated-on", async (kysely) => {
        await kysely.deleteFrom("complaint_hour_counts").where("dimension", "=", "violated_on").execute();
      });
      assert.deepEqual((await storedViolatedOn(db)).sort(byKey), (await expectedViolatedOn(db)).sort(byKey));
      await migrateAgain(db, "017-state-violated-on", async (kysely) => {
        await kysely.schema.dropTable("complaint_state_violations").execute();
        await kysely.schema.dropIndex("complaints_state").execute();
        await kysely.schema
          .createIndex("complaints_state")
          .on("complaints")
          .columns(["state_key", "created_at", "id"])
          .execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "state_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "state_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "020-flag-violations", async (kysely) => {
        // 022, 024 and 030 add their rows to 020's table: all four run again.
        await sql`delete from kysely_migration
          where name in ('022-area-violations', '024-state-robocall-violations', '030-subject-combination-violations')`.execute(
          kysely,
        );
        await kysely.schema.dropTable("complaint_flag_violations").execute();
        for (const [index, column] of [
          ["complaints_robocall", "robocall"],
          ["complaints_subject", "subject"],
        ] as const) {
          await kysely.schema.dropIndex(index).execute();
          await kysely.schema
            .createIndex(index)
            .on("complaints")
            .columns([column, "created_at", "id"])
            .execute();
        }
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "flag_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "flag_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "022-area-violations", async (kysely) => {
        await kysely.deleteFrom("complaint_flag_violations").where("dimension", "=", "area").execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "flag_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "flag_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "024-state-robocall-violations", async (kysely) => {
        await kysely
          .deleteFrom("complaint_flag_violations")
          .where("dimension", "=", "state_robocall")
          .execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "flag_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "flag_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "030-subject-combination-violations", async (kysely) => {
        await kysely
          .deleteFrom("complaint_flag_violations")
          .where("dimension", "in", ["subject_robocall", "state_subject", "state_subject_robocall"])
          .execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "flag_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "flag_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "031-place-violations", async (kysely) => {
        await kysely.schema.dropTable("complaint_place_violations").execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "place_violated_on")).sort(byKey),
        (await expectedViolatedOn(db, "place_violated_on")).sort(byKey),
      );
      await migrateAgain(db, "033-violation-blocks", async (kysely) => {
        for (const table of ["state", "flag", "place"])
          await kysely.schema.dropTable(`complaint_${table}_violation_blocks`).execute();
      });
      for (const dimension of ["state_violated_on", "flag_violated_on", "place_violated_on"] as const)
        assert.deepEqual(
          (await storedViolatedOn(db, dimension, true)).sort(byKey),
          (await expectedViolatedOn(db, dimension, true)).sort(byKey),
          `${dimension} per block`,
        );
      await migrateAgain(db, "023-flag-violation-hours", async (kysely) => {
        await kysely.schema.dropTable("complaint_flag_violation_hours").execute();
      });
      assert.deepEqual(
        (await storedViolatedOn(db, "flag_violated_hours")).sort(byKey),
        (await expectedViolatedOn(db, "flag_violated_hours")).sort(byKey),
      );
    });

    it("answer a range of whole violation days with the exact total and page, in both orders, at any offset", async () => {
      // More requests than a key's default hourly limit.
      const key = await createKeyWithCli(db, "ranges@example.com", "--unlimited");
      const server = await startTestServer({ db });
      try {
        const rows = (await storedComplaintRows(db)).sort((a, b) =>
          a.created_at !== b.created_at
            ? b.created_at - a.created_at
            : a.id < b.id
              ? 1
              : a.id > b.id
                ? -1
                : 0,
        );
        const newestDay = Math.floor(Math.max(...rows.map((row) => row.violation_at)) / DAY);
        const newestCreatedDay = Math.floor(Math.max(...rows.map((row) => row.created_at)) / DAY);
        const ranges = [
          { from: newestDay - 6, to: newestDay }, // most complaints: violated within days of filing
          { from: newestDay - 3, to: newestDay - 3 }, // one day
          // Days read for the ranges above and days not read yet, summed together.
          { from: newestDay - 10, to: newestDay - 2 },
          { from: newestDay - 800, to: newestDay - 100 }, // old violations, a few per created hour
        ];
        // The most common state, and one with few complaints; then no state.
        const byState = new Map<string, Row[]>();
        for (const row of rows) byState.set(row.state_key, [...(byState.get(row.state_key) ?? []), row]);
        const states = [...byState.values()].sort((a, b) => b.length - a.length);
        const few = states.find((list) => list.length < 120 && list.length > 40) ?? states.at(-1)!;
        const stateFilter = (row: Row): Filter => ({
          parameter: `state=${encodeURIComponent(row.state)}`,
          matches: (other) => other.state_key === row.state_key,
        });
        const stateWithFlag = (row: Row, flag: string): Filter => ({
          parameter: `state=${encodeURIComponent(row.state)}&is_robocall=${flag === "Y"}`,
          matches: (other) =>
            other.state_key === row.state_key && other.robocall === (flag === "Y" ? "Y" : "N"),
        });
        const texas: Filter = { parameter: "state=Texas", matches: (row) => row.state_key === "texas" };
        const robocall = (flag: boolean): Filter => ({
          parameter: `is_robocall=${flag}`,
          matches: (row) => row.robocall === (flag ? "Y" : "N"),
        });
        const subjects = new Map<string, number>();
        for (const row of rows) subjects.set(row.subject, (subjects.get(row.subject) ?? 0) + 1);
        const commonSubject = [...subjects].sort((a, b) => b[1] - a[1])[0]![0];
        const areaCodes = new Map<string, number>();
        for (const row of rows) areaCodes.set(row.area_code, (areaCodes.get(row.area_code) ?? 0) + 1);
        const commonAreaCode = [...areaCodes].sort((a, b) => b[1] - a[1])[0]![0];
        const area: Filter = {
          parameter: `area_code=${commonAreaCode}`,
          matches: (row) => row.area_code === commonAreaCode,
        };
        const subject: Filter = {
          parameter: `subject=${encodeURIComponent(commonSubject.toUpperCase())}`,
          matches: (row) => row.subject.toLowerCase() === commonSubject.toLowerCase(),
        };
        // Two filters with a range (a combination, counted on rows within the hours in which the
        // range's complaints were created): those of a complaint created in the first or the last
        // such hour, so that a bound cut an hour short drops it.
        const edgePair = (range: { from: number; to: number }, end: "first" | "last"): Filter => {
          const inRange = rows.filter(
            (row) => row.violation_at >= range.from * DAY && row.violation_at < (range.to + 1) * DAY,
          );
          const hours = inRange.map((row) => Math.floor(row.created_at / 3600));
          const hour = end === "first" ? Math.min(...hours) : Math.max(...hours);
          const edge = inRange
            .filter((row) => Math.floor(row.created_at / 3600) === hour)
            .sort((a, b) => subjects.get(b.subject)! - subjects.get(a.subject)!)[0]!;
          return {
            parameter: `subject=${encodeURIComponent(edge.subject)}&is_robocall=${edge.robocall === "Y"}`,
            matches: (row) => row.subject === edge.subject && row.robocall === edge.robocall,
          };
        };
        // A subject with a state, the flag or both, counted as one filter.
        const subjectWith = (row: Row, state: boolean, flag: boolean): Filter => ({
          parameter: `subject=${encodeURIComponent(commonSubject)}${state ? `&state=${encodeURIComponent(row.state)}` : ""}${flag ? `&is_robocall=${row.robocall === "Y"}` : ""}`,
          matches: (other) =>
            other.subject === commonSubject &&
            (!state || other.state_key === row.state_key) &&
            (!flag || other.robocall === row.robocall),
        });
        // A place (an area code, a city in every state or in one) with a state, the flag or both,
        // counted as one filter: places of the generated files, over ranges of their violation
        // days (the dense and the sparse file are elsewhere in time).
        const generated = rows.filter(
          (row) =>
            row.created_at < Date.UTC(2024, 4, 11) / 1000 && Math.floor(row.created_at / DAY) !== DENSE_DAY,
        );
        const generatedNewest = Math.floor(Math.max(...generated.map((row) => row.violation_at)) / DAY);
        const placeRanges = [
          { from: generatedNewest - 6, to: generatedNewest },
          { from: generatedNewest - 20, to: generatedNewest - 2 },
          { from: generatedNewest - 900, to: generatedNewest - 25 },
        ];
        const flagOf = (flag: string) => `is_robocall=${flag === "Y"}`;
        /** The complaints of each place `keyOf` names, per state. */
        const placesByState = (keyOf: (row: Row) => string): Array<Map<string, Row[]>> => {
          const statesOf = new Map<string, Map<string, Row[]>>();
          for (const row of generated) {
            if (keyOf(row) === "") continue;
            const byState = statesOf.get(keyOf(row)) ?? new Map<string, Row[]>();
            byState.set(row.state_key, [...(byState.get(row.state_key) ?? []), row]);
            statesOf.set(keyOf(row), byState);
          }
          const size = (byState: Map<string, Row[]>) => [...byState.values()].flat().length;
          return [...statesOf.values()].sort((a, b) => size(b) - size(a));
        };
        // The commonest place, and a place in two states or more with the state it has fewer
        // complaints of, so that the state matters.
        const commonIn = (byState: Array<Map<string, Row[]>>) =>
          [...byState[0]!.values()].sort((a, b) => b.length - a.length)[0]![0]!;
        const sharedIn = (byState: Array<Map<string, Row[]>>) =>
          [...byState.find((places) => places.size > 1)!.values()]
            .sort((a, b) => a.length - b.length)
            .find((list) => list.length > 20)![0]!;
        const areas = placesByState((row) => row.area_code);
        const cities = placesByState((row) => row.city_key);
        const place = (
          row: Row,
          by: "area_code" | "city" | "any_city",
          state: boolean,
          flag?: string,
          withArea = false,
        ): Filter => ({
          parameter: [
            by === "area_code"
              ? `area_code=${row.area_code}`
              : `city=${encodeURIComponent(row.city.toUpperCase())}`,
            ...(state || by === "city" ? [`state=${encodeURIComponent(row.state)}`] : []),
            ...(flag === undefined ? [] : [flagOf(flag)]),
            ...(withArea ? [`area_code=${row.area_code}`] : []),
          ].join("&"),
          matches: (other) =>
            (by === "area_code" ? other.area_code === row.area_code : other.city_key === row.city_key) &&
            (!withArea || other.area_code === row.area_code) &&
            (!(state || by === "city") || other.state_key === row.state_key) &&
            (flag === undefined || other.robocall === flag),
        });
        const placeFilters: Filter[] = [
          place(commonIn(areas), "area_code", true),
          place(commonIn(areas), "area_code", false, "Y"),
          place(commonIn(areas), "area_code", true, "N"),
          place(sharedIn(areas), "area_code", true),
          place(commonIn(cities), "any_city", false),
          place(commonIn(cities), "any_city", false, "N"),
          place(commonIn(cities), "city", true),
          place(sharedIn(cities), "city", true),
          place(sharedIn(cities), "city", true, "Y"),
          // A city with an area code (counted as `city_area`), in every state and in one.
          place(commonIn(cities), "any_city", false, undefined, true),
          place(sharedIn(cities), "city", true, "N", true),
        ];
        const cases = [
          ...placeFilters.flatMap((filter) => placeRanges.map((range) => ({ range, filter }))),
          ...[
            subjectWith(states[0]![0]!, true, false),
            subjectWith(states[0]![0]!, false, true),
            subjectWith(states[0]![0]!, true, true),
          ].flatMap((filter) => ranges.map((range) => ({ range, filter }))),
          ...ranges.flatMap((range) =>
            (["first", "last"] as const).map((end) => ({ range, filter: edgePair(range, end) })),
          ),
          ...[states[0]!, few].flatMap((list) =>
            ranges.map((range) => ({ range, filter: stateFilter(list[0]!) })),
          ),
          ...[robocall(true), robocall(false), subject, area].flatMap((filter) =>
            ranges.map((range) => ({ range, filter })),
          ),
          // A state with the flag, counted as one filter (the most common state, and one with few).
          ...[states[0]!, few].flatMap((list) =>
            ranges.map((range) => ({ range, filter: stateWithFlag(list[0]!, list[0]!.robocall) })),
          ),
          ...ranges.map((range) => ({ range, filter: undefined })),
          // A small state's sparse matches among a common subject's complaints.
          ...[
            { from: SUBJECT_DAY, to: SUBJECT_DAY },
            { from: SUBJECT_OLD_DAY, to: SUBJECT_OLD_DAY },
            { from: SUBJECT_RARE_DAY, to: SUBJECT_OLD_DAY },
          ].map((range) => ({
            range,
            filter: {
              parameter: "state=Vermont&subject=other",
              matches: (row: Row) => row.state_key === "vermont" && row.subject === "Other",
            },
          })),
          { range: { from: SPARSE_DAY, to: SPARSE_DAY }, filter: texas },
          { range: { from: SPARSE_DAY - 3, to: SPARSE_DAY + 1 }, filter: texas },
          // Thousands of matches in one created day: placed to the hour.
          { range: { from: DENSE_DAY - 5, to: DENSE_DAY }, filter: robocall(true) },
          { range: { from: DENSE_DAY - 4, to: DENSE_DAY - 1 }, filter: robocall(true) },
          { range: { from: SPARSE_DAY, to: SPARSE_DAY }, filter: robocall(false) },
          { range: { from: SPARSE_DAY - 3, to: SPARSE_DAY + 1 }, filter: robocall(false) },
          {
            range: { from: SPARSE_DAY - 3, to: SPARSE_DAY + 1 },
            filter: { parameter: "area_code=512", matches: (row: Row) => row.area_code === "512" },
          },
        ].flatMap((plain) => [
          plain,
          // The same within a created range of whole days, which cuts the counts.
          { ...plain, created: { from: newestCreatedDay - 12, to: newestCreatedDay - 3 } },
        ]);
        for (const { range, filter, created } of cases as Array<
          (typeof cases)[number] & { created?: { from: number; to: number } }
        >) {
          const matching = rows.filter(
            (row) =>
              row.violation_at >= range.from * DAY &&
              row.violation_at < (range.to + 1) * DAY &&
              (filter === undefined || filter.matches(row)) &&
              (created === undefined ||
                (row.created_at >= created.from * DAY && row.created_at < (created.to + 1) * DAY)),
          );
          if ((filter !== undefined || created !== undefined) && matching.length < 10) continue;
          assert.ok(
            matching.length > 20 || filter !== undefined || created !== undefined,
            `${matching.length} complaints in ${JSON.stringify(range)}`,
          );
          const base = `/v0/dnc-complaints?violation_date_from=${dayText(range.from)}&violation_date_to=${dayText(range.to)}${filter === undefined ? "" : `&${filter.parameter}`}${created === undefined ? "" : `&created_date_from=${dayText(created.from)}&created_date_to=${dayText(created.to)}`}`;
          const count = matching.length;
          const offsets = [
            0,
            1,
            7,
            Math.floor(count / 3),
            Math.floor(count / 2) + 3,
            count - 9,
            count - 4,
            count - 1,
          ];
          for (const order of ["DESC", "ASC"] as const) {
            const expected = order === "DESC" ? matching : [...matching].reverse();
            for (const offset of offsets) {
              const res = await server.get(`${base}&sort_order=${order}&items_per_page=6&offset=${offset}`, {
                "X-Api-Key": key,
              });
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], count, base);
              assert.deepEqual(
                body.data.map((record: { id: string }) => record.id),
                expected.slice(offset, offset + 6).map((row) => row.id),
                `${JSON.stringify(range)} ${filter?.parameter ?? ""} ${JSON.stringify(created ?? {})} ${order} offset ${offset}`,
              );
            }
          }
        }
      } finally {
        await server.stop();
      }
    });

    it("sum whole blocks of violation days and the days at either end, wherever a range begins and ends", async () => {
      const key = await createKeyWithCli(db, "blocks@example.com", "--unlimited");
      const server = await startTestServer({ db });
      try {
        const rows = await storedComplaintRows(db);
        const newestDay = Math.floor(Math.max(...rows.map((row) => row.violation_at)) / DAY);
        const first = rows.find(
          (row) => row.city_key !== "" && row.created_at < Date.UTC(2024, 4, 11) / 1000,
        )!;
        const filters: Filter[] = [
          { parameter: "state=Texas", matches: (row) => row.state_key === "texas" },
          { parameter: "is_robocall=true", matches: (row) => row.robocall === "Y" },
          {
            parameter: `subject=${encodeURIComponent(first.subject)}&state=${encodeURIComponent(first.state)}`,
            matches: (row) => row.subject === first.subject && row.state_key === first.state_key,
          },
          {
            parameter: `area_code=${first.area_code}&is_robocall=${first.robocall === "Y"}`,
            matches: (row) => row.area_code === first.area_code && row.robocall === first.robocall,
          },
          {
            parameter: `city=${encodeURIComponent(first.city)}`,
            matches: (row) => row.city_key === first.city_key,
          },
        ];
        // Ranges of 46 to 76 days, where most complaints were violated, beginning and ending on
        // every day of a block of 16: none, one or two partial blocks at their ends around whole ones.
        for (let index = 0; index < 16; index++) {
          const range = { from: newestDay - 75 + index, to: newestDay - index };
          for (const filter of filters) {
            const count = rows.filter(
              (row) =>
                row.violation_at >= range.from * DAY &&
                row.violation_at < (range.to + 1) * DAY &&
                filter.matches(row),
            ).length;
            const res = await server.get(
              `/v0/dnc-complaints?violation_date_from=${dayText(range.from)}&violation_date_to=${dayText(range.to)}&${filter.parameter}&items_per_page=1`,
              { "X-Api-Key": key },
            );
            assert.equal(res.status, 200, res.body);
            assert.equal(
              res.json().meta["record-total"],
              count,
              `${JSON.stringify(range)} ${filter.parameter}`,
            );
          }
        }
      } finally {
        await server.stop();
      }
    });

    it("cut a combination to the created span of its violation range right after an import, before the range's days are read", async () => {
      const key = await createKeyWithCli(db, "span@example.com", "--unlimited");
      const server = await startTestServer({ db });
      try {
        // A file imported while the server runs: the collection's version changes, so that no
        // violation day's counts are held in memory and the span is read from the days' index.
        await importEach(db, await generatedComplaintFiles([9], { rows: 3000, days: 30 }));
        const rows = await storedComplaintRows(db);
        await eventually(async () => {
          const res = await server.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
          assert.equal(res.json().meta["record-total"], rows.length);
        });
        const newestDay = Math.floor(Math.max(...rows.map((row) => row.violation_at)) / DAY);
        const iso = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19);
        // A range of whole violation days with a created range given with times is a combination,
        // counted within the span in which the range's complaints were created: here the created
        // range begins and ends just outside that span, so a span cut short drops its first or
        // last complaints.
        for (const [fromDay, toDay] of [
          [newestDay - 20, newestDay - 2],
          [newestDay - 400, newestDay - 30],
        ] as const) {
          const violated = rows.filter(
            (row) => row.violation_at >= fromDay * DAY && row.violation_at < (toDay + 1) * DAY,
          );
          const created = violated.map((row) => row.created_at);
          const [first, last] = [Math.min(...created), Math.max(...created)];
          for (const order of ["DESC", "ASC"] as const) {
            const res = await server.get(
              `/v0/dnc-complaints?violation_date_from=${dayText(fromDay)}&violation_date_to=${dayText(toDay)}&created_date_from=${iso(first - 1000)}&created_date_to=${iso(last + 1000)}&sort_order=${order}&items_per_page=5`,
              { "X-Api-Key": key },
            );
            assert.equal(res.status, 200, res.body);
            const body = res.json();
            assert.equal(body.meta["record-total"], violated.length, `${dayText(fromDay)} ${order}`);
            const edge = violated.find((row) => row.created_at === (order === "DESC" ? last : first))!;
            assert.ok(
              body.data.some((record: { id: string }) => record.id === edge.id),
              order,
            );
          }
        }
      } finally {
        await server.stop();
      }
    });

    it("hold a violation day's counts from one import to the next only while the day gains no complaint", async () => {
      const key = await createKeyWithCli(db, "carried@example.com", "--unlimited");
      const server = await startTestServer({ db });
      try {
        const rows = await storedComplaintRows(db);
        const newestDay = Math.floor(Math.max(...rows.map((row) => row.violation_at)) / DAY);
        const newestCreated = Math.max(...rows.map((row) => row.created_at));
        const iso = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 19);
        const ranges = [
          [newestDay - 25, newestDay - 3],
          [newestDay - 60, newestDay - 10],
        ] as const;
        /** Every range as a range alone and as a combination with a created range given with times. */
        const expectTotals = async (stored: readonly Row[], when: string) => {
          for (const [fromDay, toDay] of ranges) {
            const violated = stored.filter(
              (row) => row.violation_at >= fromDay * DAY && row.violation_at < (toDay + 1) * DAY,
            );
            const range = `violation_date_from=${dayText(fromDay)}&violation_date_to=${dayText(toDay)}`;
            for (const query of [
              range,
              `${range}&created_date_from=${iso(DAY)}&created_date_to=${iso(newestCreated + 30 * DAY)}`,
            ]) {
              const res = await server.get(`/v0/dnc-complaints?${query}&items_per_page=5`, {
                "X-Api-Key": key,
              });
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], violated.length, `${when}: ${query}`);
              // The newest of the range's complaints opens its first page (placed by the days' counts).
              const newest = Math.max(...violated.map((row) => row.created_at));
              const edge = violated.find((row) => row.created_at === newest)!;
              assert.ok(
                body.data.some((record: { id: string }) => record.id === edge.id),
                `${when}: ${query}`,
              );
            }
          }
        };
        // The ranges' days are read and held; then an import adds complaints violated on one day
        // of both ranges, one day of the second alone and one day of neither.
        await expectTotals(rows, "before the import");
        const added: string[][] = [];
        for (const [violationDay, count] of [
          [newestDay - 12, 30],
          [newestDay - 40, 20],
          [newestDay - 200, 10],
        ] as const)
          for (let index = 0; index < count; index++) {
            const created = newestCreated + DAY + violationDay * 7 + index * 61;
            added.push([
              `8025550${String(index).padStart(3, "0")}`,
              formatDateTime(created),
              formatDateTime(violationDay * DAY + 3600 + index),
              "Burlington",
              "Vermont",
              "802",
              "Other",
              "N",
            ]);
          }
        await importEach(db, [await writeComplaintRows("added-days.csv", added)]);
        const after = await storedComplaintRows(db);
        assert.equal(after.length, rows.length + added.length);
        await eventually(async () => {
          const res = await server.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
          assert.equal(res.json().meta["record-total"], after.length);
        });
        await expectTotals(after, "after the import");
      } finally {
        await server.stop();
      }
    });
  });
}
