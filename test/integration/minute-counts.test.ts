import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli } from "../support/cli.js";
import { generatedComplaintFiles, importEach, migrateAgain } from "../support/count-tables.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startTestServer } from "../support/test-server.js";

type Row = { id: string; created_at: number };

async function storedRows(location: string): Promise<Row[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db.selectFrom("complaints").select(["id", "created_at"]).execute();
    return rows.map((row) => ({ id: row.id, created_at: Number(row.created_at) }));
  } finally {
    await database.close();
  }
}

/** Complaints per minute of creation, counted here from the stored rows. */
async function expectedMinuteCounts(location: string): Promise<Array<[number, number]>> {
  const counts = new Map<number, number>();
  for (const row of await storedRows(location)) {
    const minute = Math.floor(row.created_at / 60);
    counts.set(minute, (counts.get(minute) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => a[0] - b[0]);
}

async function storedMinuteCounts(location: string): Promise<Array<[number, number]>> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaint_minute_counts")
      .selectAll()
      .orderBy("minute")
      .execute();
    return rows.map((row) => [Number(row.minute), Number(row.count)]);
  } finally {
    await database.close();
  }
}

const newestFirst = (a: Row, b: Row) =>
  a.created_at !== b.created_at ? b.created_at - a.created_at : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

for (const dialect of DIALECTS) {
  describe(`complaints per minute (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      // About 250 complaints an hour: deep offsets within an hour are placed by minute.
      files = await generatedComplaintFiles([11, 12], { rows: 3000, days: 1 });
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      await importEach(db, files);
      const expected = await expectedMinuteCounts(db);
      assert.ok(expected.length > 1000);
      assert.deepEqual(await storedMinuteCounts(db), expected);
    });

    it("are computed for a database made before them", async () => {
      await migrateAgain(db, "016-minute-counts", async (kysely) => {
        await kysely.schema.dropTable("complaint_minute_counts").execute();
      });
      assert.deepEqual(await storedMinuteCounts(db), await expectedMinuteCounts(db));
    });

    it("count and place deep pages of the created order exactly, in both orders, ranges with times included", async () => {
      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const rows = (await storedRows(db)).sort(newestFirst);
        const newest = rows[0]!.created_at;
        const day = new Date(newest * 1000).toISOString().slice(0, 10);
        const dayStart = Date.parse(`${day}T00:00:00Z`) / 1000;
        const ofDay = rows.filter((row) => row.created_at >= dayStart && row.created_at < dayStart + 86_400);
        const from = dayStart + 3 * 3600 + 17 * 60 + 42;
        const to = dayStart + 20 * 3600 + 41 * 60 + 9;
        const withTimes = rows.filter((row) => row.created_at >= from && row.created_at <= to);
        const cases = [
          { query: "", matching: rows },
          { query: `&created_date=${day}`, matching: ofDay },
          {
            query: `&created_date_from=${encodeURIComponent(`${day} 03:17:42`)}&created_date_to=${encodeURIComponent(`${day} 20:41:09`)}`,
            matching: withTimes,
          },
        ];
        for (const { query, matching } of cases) {
          const count = matching.length;
          assert.ok(count > 2000, `${count} complaints`);
          const offsets = [1_100, 1_337, Math.floor(count / 2) + 211, count - 1_250, count - 1_101];
          for (const order of ["DESC", "ASC"] as const) {
            const expected = order === "DESC" ? matching : [...matching].reverse();
            for (const offset of offsets) {
              const res = await server.get(
                `/v0/dnc-complaints?sort_order=${order}&items_per_page=7&offset=${offset}${query}`,
                { "X-Api-Key": key },
              );
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], count);
              assert.deepEqual(
                body.data.map((record: { id: string }) => record.id),
                expected.slice(offset, offset + 7).map((row) => row.id),
                `${query || "all"} ${order} offset ${offset}`,
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
