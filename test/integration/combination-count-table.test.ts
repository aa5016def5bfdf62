import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli } from "../support/cli.js";
import {
  generatedComplaintFiles,
  importEach,
  migrateAgain,
  type StoredComplaintRow,
  storedComplaintRows,
} from "../support/count-tables.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startTestServer } from "../support/test-server.js";

const DAY = 86_400;

type Row = StoredComplaintRow;

/**
 * Complaints per state, robocall flag, subject and created day (with `place`, per area code, city
 * or both too), counted here from the stored rows.
 */
async function expectedCounts(location: string, place?: Place): Promise<string[]> {
  const counts = new Map<string, number>();
  for (const row of await storedComplaintRows(location)) {
    const key = JSON.stringify([
      ...(place === "area"
        ? [row.area_code]
        : place === "city"
          ? [row.city_key]
          : place === "city and area"
            ? [row.city_key, row.area_code]
            : []),
      row.state_key,
      row.robocall,
      row.subject,
      Math.floor(row.created_at / DAY),
    ]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key} ${count}`).sort();
}

/** The place a count table holds besides the state, the flag and the subject. */
type Place = "area" | "city" | "city and area";

/**
 * The rows of `complaint_combination_counts`, or with `place` of `complaint_area_combination_counts`,
 * `complaint_city_combination_counts` or `complaint_city_area_counts`.
 */
async function storedCounts(location: string, place?: Place): Promise<string[]> {
  const database = openDatabase(location);
  try {
    if (place === "city and area") {
      const rows = await database.db.selectFrom("complaint_city_area_counts").selectAll().execute();
      return rows
        .map(
          (row) =>
            `${JSON.stringify([row.city_key, row.area_code, row.state_key, row.robocall, row.subject, Number(row.created_day)])} ${Number(row.count)}`,
        )
        .sort();
    }
    if (place === "city") {
      const rows = await database.db.selectFrom("complaint_city_combination_counts").selectAll().execute();
      return rows
        .map(
          (row) =>
            `${JSON.stringify([row.city_key, row.state_key, row.robocall, row.subject, Number(row.created_day)])} ${Number(row.count)}`,
        )
        .sort();
    }
    if (place === "area") {
      const rows = await database.db.selectFrom("complaint_area_combination_counts").selectAll().execute();
      return rows
        .map(
          (row) =>
            `${JSON.stringify([row.area_code, row.state_key, row.robocall, row.subject, Number(row.created_day)])} ${Number(row.count)}`,
        )
        .sort();
    }
    const rows = await database.db.selectFrom("complaint_combination_counts").selectAll().execute();
    return rows
      .map(
        (row) =>
          `${JSON.stringify([row.state_key, row.robocall, row.subject, Number(row.created_day)])} ${Number(row.count)}`,
      )
      .sort();
  } finally {
    await database.close();
  }
}

/** Newest first, ties broken by id: the API's default order. */
const newestFirst = (a: Row, b: Row) =>
  a.created_at !== b.created_at ? b.created_at - a.created_at : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

const dayText = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`combinations of state, robocall flag, subject and area code: counts per created day (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      files = await generatedComplaintFiles([17, 18], { rows: 4000, days: 20 });
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      await importEach(db, files);
      const expected = await expectedCounts(db);
      assert.ok(expected.length > 1000, `${expected.length} counts`);
      assert.deepEqual(await storedCounts(db), expected);
      assert.deepEqual(await storedCounts(db, "area"), await expectedCounts(db, "area"));
      assert.deepEqual(await storedCounts(db, "city"), await expectedCounts(db, "city"));
      assert.deepEqual(await storedCounts(db, "city and area"), await expectedCounts(db, "city and area"));
    });

    it("are computed for a database made before them", async () => {
      await migrateAgain(db, "018-combination-counts", async (kysely) => {
        await kysely.schema.dropTable("complaint_combination_counts").execute();
      });
      assert.deepEqual(await storedCounts(db), await expectedCounts(db));
      await migrateAgain(db, "025-area-combination-counts", async (kysely) => {
        await kysely.schema.dropTable("complaint_area_combination_counts").execute();
      });
      assert.deepEqual(await storedCounts(db, "area"), await expectedCounts(db, "area"));
      await migrateAgain(db, "026-city-combination-counts", async (kysely) => {
        await kysely.schema.dropTable("complaint_city_combination_counts").execute();
      });
      assert.deepEqual(await storedCounts(db, "city"), await expectedCounts(db, "city"));
      await migrateAgain(db, "029-city-area-counts", async (kysely) => {
        await kysely.schema.dropTable("complaint_city_area_counts").execute();
      });
      assert.deepEqual(await storedCounts(db, "city and area"), await expectedCounts(db, "city and area"));
    });

    it("answer every combination of them with the exact total and page, in both orders, at any offset", async () => {
      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const rows = (await storedComplaintRows(db)).sort(newestFirst);
        const biggest = (field: "state" | "subject" | "area_code" | "city") => {
          const tally = new Map<string, number>();
          for (const row of rows)
            if (row[field] !== "") tally.set(row[field], (tally.get(row[field]) ?? 0) + 1);
          return [...tally].sort((a, b) => b[1] - a[1])[0]![0];
        };
        const state = biggest("state");
        const subject = biggest("subject");
        const areaCode = biggest("area_code");
        // The state most of the area code's complaints give.
        const areaState = (() => {
          const tally = new Map<string, number>();
          for (const row of rows)
            if (row.area_code === areaCode) tally.set(row.state, (tally.get(row.state) ?? 0) + 1);
          return [...tally].sort((a, b) => b[1] - a[1])[0]![0];
        })();
        const days = rows.map((row) => Math.floor(row.created_at / DAY));
        const firstDay = Math.min(...days);
        const created = { from: (firstDay + 3) * DAY, to: (firstDay + 9) * DAY - 1 };
        const cases: Array<{ parameters: Record<string, string>; test: (row: Row) => boolean }> = [
          {
            parameters: { state, is_robocall: "true" },
            test: (row) => row.state === state && row.robocall === "Y",
          },
          { parameters: { state, subject }, test: (row) => row.state === state && row.subject === subject },
          {
            parameters: { subject, is_robocall: "false" },
            test: (row) => row.subject === subject && row.robocall === "N",
          },
          {
            parameters: { state, subject, is_robocall: "true" },
            test: (row) => row.state === state && row.subject === subject && row.robocall === "Y",
          },
          {
            parameters: {
              state,
              is_robocall: "true",
              created_date_from: dayText(created.from),
              created_date_to: dayText(created.to),
            },
            test: (row) =>
              row.state === state &&
              row.robocall === "Y" &&
              row.created_at >= created.from &&
              row.created_at <= created.to,
          },
          // An area code with the others (`complaint_area_combination_counts`).
          {
            parameters: { area_code: areaCode, state: areaState },
            test: (row) => row.area_code === areaCode && row.state === areaState,
          },
          {
            parameters: { area_code: areaCode, is_robocall: "true" },
            test: (row) => row.area_code === areaCode && row.robocall === "Y",
          },
          {
            parameters: { area_code: areaCode, subject: subject.toUpperCase() },
            test: (row) => row.area_code === areaCode && row.subject === subject,
          },
          {
            parameters: { area_code: areaCode, state: areaState, is_robocall: "true" },
            test: (row) => row.area_code === areaCode && row.state === areaState && row.robocall === "Y",
          },
          {
            parameters: {
              area_code: areaCode,
              state: areaState,
              created_date_from: dayText(created.from),
              created_date_to: dayText(created.to + 6 * DAY),
            },
            test: (row) =>
              row.area_code === areaCode &&
              row.state === areaState &&
              row.created_at >= created.from &&
              row.created_at <= created.to + 6 * DAY,
          },
        ];
        const city = biggest("city");
        const cityRow = rows.find((row) => row.city === city)!;
        const cases2: typeof cases = [
          // A city with the others (`complaint_city_combination_counts`), in every state and in one.
          {
            parameters: { city, is_robocall: "true" },
            test: (row) => row.city_key === cityRow.city_key && row.robocall === "Y",
          },
          {
            parameters: { city, subject },
            test: (row) => row.city_key === cityRow.city_key && row.subject === subject,
          },
          {
            parameters: { city, state: cityRow.state, subject, is_robocall: "true" },
            test: (row) =>
              row.city_key === cityRow.city_key &&
              row.state_key === cityRow.state_key &&
              row.subject === subject &&
              row.robocall === "Y",
          },
        ];
        // The area code most of the city's complaints give.
        const cityArea = (() => {
          const tally = new Map<string, number>();
          for (const row of rows)
            if (row.city_key === cityRow.city_key)
              tally.set(row.area_code, (tally.get(row.area_code) ?? 0) + 1);
          return [...tally].sort((a, b) => b[1] - a[1])[0]![0];
        })();
        // A city with an area code and the others (`complaint_city_area_counts`).
        const cases3: typeof cases = [
          {
            parameters: { city, area_code: cityArea },
            test: (row) => row.city_key === cityRow.city_key && row.area_code === cityArea,
          },
          {
            parameters: { city, state: cityRow.state, area_code: cityArea },
            test: (row) =>
              row.city_key === cityRow.city_key &&
              row.state_key === cityRow.state_key &&
              row.area_code === cityArea,
          },
          {
            parameters: { city, area_code: cityArea, is_robocall: "false" },
            test: (row) =>
              row.city_key === cityRow.city_key && row.area_code === cityArea && row.robocall === "N",
          },
        ];
        // A city's complaints spread over several area codes: fewer of them match.
        for (const [group, least] of [
          [cases2, 30],
          [cases3, 12],
        ] as const) {
          const large = group.filter(({ test }) => rows.filter(test).length > least);
          assert.ok(large.length >= 2, `${large.length} cases of more than ${least} complaints`);
          cases.push(...large);
        }
        // An area code with a state other than its own: few or no complaints, counted as exactly.
        for (const other of [state, "Texas", "Vermont"]) {
          if (other === areaState) continue;
          const query = new URLSearchParams({ area_code: areaCode, state: other, is_robocall: "true" });
          const res = await server.get(`/v0/dnc-complaints?${query}`, { "X-Api-Key": key });
          assert.equal(res.status, 200, res.body);
          const matching = rows.filter(
            (row) => row.area_code === areaCode && row.state === other && row.robocall === "Y",
          );
          assert.equal(res.json().meta["record-total"], matching.length, query.toString());
        }
        for (const { parameters, test } of cases) {
          const matching = rows.filter(test);
          assert.ok(matching.length > 12, `${matching.length} complaints for ${JSON.stringify(parameters)}`);
          const count = matching.length;
          const offsets = [0, 1, 7, Math.floor(count / 3), Math.floor(count / 2) + 3, count - 9, count - 1];
          for (const order of ["DESC", "ASC"] as const) {
            const expected = order === "DESC" ? matching : [...matching].reverse();
            for (const offset of offsets) {
              const query = new URLSearchParams({
                ...parameters,
                sort_order: order,
                items_per_page: "6",
                offset: String(offset),
              });
              const res = await server.get(`/v0/dnc-complaints?${query}`, { "X-Api-Key": key });
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], count, JSON.stringify(parameters));
              assert.deepEqual(
                body.data.map((record: { id: string }) => record.id),
                expected.slice(offset, offset + 6).map((row) => row.id),
                `${JSON.stringify(parameters)} ${order} offset ${offset}`,
              );
            }
          }
        }
      } finally {
        await server.stop();
      }
    });
  });
}
