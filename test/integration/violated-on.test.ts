import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli } from "../support/cli.js";
import { generatedComplaintFiles, importEach, migrateAgain } from "../support/count-tables.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startTestServer } from "../support/test-server.js";

type HourCount = { value: string; hour: number; count: number };
type Row = { id: string; created_at: number; violation_at: number };

const DAY = 86_400;

async function storedRows(location: string): Promise<Row[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaints")
      .select(["id", "created_at", "violation_at"])
      .execute();
    return rows.map((row) => ({
      id: row.id,
      created_at: Number(row.created_at),
      violation_at: Number(row.violation_at),
    }));
  } finally {
    await database.close();
  }
}

/** Complaints per violation day and created hour, counted here from the stored rows. */
async function expectedViolatedOn(location: string): Promise<HourCount[]> {
  const counts = new Map<string, number>();
  for (const row of await storedRows(location)) {
    const key = JSON.stringify([
      String(Math.floor(row.violation_at / DAY)),
      Math.floor(row.created_at / 3600),
    ]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => {
    const [value, hour] = JSON.parse(key) as [string, number];
    return { value, hour, count };
  });
}

async function storedViolatedOn(location: string): Promise<HourCount[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaint_hour_counts")
      .select(["value", "hour", "count"])
      .where("dimension", "=", "violated_on")
      .execute();
    return rows.map((row) => ({ value: row.value, hour: Number(row.hour), count: Number(row.count) }));
  } finally {
    await database.close();
  }
}

const byKey = (a: HourCount, b: HourCount) => a.value.localeCompare(b.value) || a.hour - b.hour;
const dayText = (day: number) => new Date(day * DAY * 1000).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`violation ranges: counts per violation day and created hour (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      files = await generatedComplaintFiles([7, 8], { rows: 3000, days: 4 });
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      await importEach(db, files);
      const expected = await expectedViolatedOn(db);
      assert.ok(expected.length > 500);
      assert.deepEqual((await storedViolatedOn(db)).sort(byKey), expected.sort(byKey));
    });

    it("are computed for a database made before them", async () => {
      await migrateAgain(db, "015-violated-on", async (kysely) => {
        await kysely.deleteFrom("complaint_hour_counts").where("dimension", "=", "violated_on").execute();
      });
      assert.deepEqual((await storedViolatedOn(db)).sort(byKey), (await expectedViolatedOn(db)).sort(byKey));
    });

    it("answer a range of whole violation days with the exact total and page, in both orders, at any offset", async () => {
      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const rows = (await storedRows(db)).sort((a, b) =>
          a.created_at !== b.created_at
            ? b.created_at - a.created_at
            : a.id < b.id
              ? 1
              : a.id > b.id
                ? -1
                : 0,
        );
        const newestDay = Math.floor(Math.max(...rows.map((row) => row.violation_at)) / DAY);
        const ranges = [
          { from: newestDay - 6, to: newestDay }, // most complaints: violated within days of filing
          { from: newestDay - 3, to: newestDay - 3 }, // one day
          // Days read for the ranges above and days not read yet, summed together.
          { from: newestDay - 10, to: newestDay - 2 },
          { from: newestDay - 800, to: newestDay - 100 }, // old violations, a few per created hour
        ];
        for (const range of ranges) {
          const matching = rows.filter(
            (row) => row.violation_at >= range.from * DAY && row.violation_at < (range.to + 1) * DAY,
          );
          assert.ok(matching.length > 20, `${matching.length} complaints in ${JSON.stringify(range)}`);
          const base = `/v0/dnc-complaints?violation_date_from=${dayText(range.from)}&violation_date_to=${dayText(range.to)}`;
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
              assert.equal(body.meta["record-total"], count);
              assert.deepEqual(
                body.data.map((record: { id: string }) => record.id),
                expected.slice(offset, offset + 6).map((row) => row.id),
                `${JSON.stringify(range)} ${order} offset ${offset}`,
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
