import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli } from "../support/cli.js";
import { generatedComplaintFiles, importEach, migrateAgain } from "../support/count-tables.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { startTestServer } from "../support/test-server.js";

type DayCount = { value: string; day: number; count: number };

/** Complaints per city match key (in every state) and day, counted here from the stored rows. */
async function expectedCityCounts(location: string): Promise<DayCount[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db.selectFrom("complaints").select(["city_key", "created_at"]).execute();
    const counts = new Map<string, number>();
    for (const row of rows) {
      const key = JSON.stringify([row.city_key, Math.floor(Number(row.created_at) / 86400)]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, count]) => {
      const [value, day] = JSON.parse(key) as [string, number];
      return { value, day, count };
    });
  } finally {
    await database.close();
  }
}

async function storedCityCounts(location: string): Promise<DayCount[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaint_counts")
      .select(["value", "day", "count"])
      .where("dimension", "=", "any_city")
      .execute();
    return rows.map((row) => ({ value: row.value, day: Number(row.day), count: Number(row.count) }));
  } finally {
    await database.close();
  }
}

const byKey = (a: DayCount, b: DayCount) => a.value.localeCompare(b.value) || a.day - b.day;

for (const dialect of DIALECTS) {
  describe(`a city in every state: counts and index (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      files = await generatedComplaintFiles([5, 6], { rows: 3000, days: 4 });
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      await importEach(db, files);
      const expected = await expectedCityCounts(db);
      assert.ok(expected.length > 100);
      assert.deepEqual((await storedCityCounts(db)).sort(byKey), expected.sort(byKey));
    });

    it("are computed, with the index, for a database made before them", async () => {
      await migrateAgain(db, "014-any-city", async (kysely) => {
        await kysely.schema.dropIndex("complaints_any_city").execute();
        await kysely.deleteFrom("complaint_counts").where("dimension", "=", "any_city").execute();
      });
      assert.deepEqual((await storedCityCounts(db)).sort(byKey), (await expectedCityCounts(db)).sort(byKey));
    });

    it("answers a city alone with the exact total, in both orders, at any offset", async () => {
      const key = await createKeyWithCli(db);
      const server = await startTestServer({ db });
      try {
        const database = openDatabase(db);
        let busiest: { city_key: string; count: number };
        let rows: Array<{ id: string }>;
        try {
          const top = await database.db
            .selectFrom("complaints")
            .select(["city_key", sql<number>`count(*)`.as("count")])
            .where("city_key", "!=", "")
            .groupBy("city_key")
            .orderBy("count", "desc")
            .orderBy("city_key")
            .limit(1)
            .executeTakeFirstOrThrow();
          busiest = { city_key: top.city_key, count: Number(top.count) };
          rows = await database.db
            .selectFrom("complaints")
            .select("id")
            .where("city_key", "=", busiest.city_key)
            .orderBy("created_at", "desc")
            .orderBy("id", "desc")
            .execute();
        } finally {
          await database.close();
        }
        const city = encodeURIComponent(busiest.city_key.toUpperCase());
        for (const offset of [0, Math.floor(busiest.count / 2), Math.max(0, busiest.count - 3)]) {
          const res = await server.get(`/v0/dnc-complaints?city=${city}&items_per_page=5&offset=${offset}`, {
            "X-Api-Key": key,
          });
          assert.equal(res.status, 200, res.body);
          const body = res.json();
          assert.equal(body.meta["record-total"], busiest.count);
          assert.deepEqual(
            body.data.map((record: { id: string }) => record.id),
            rows.slice(offset, offset + 5).map((row) => row.id),
            `offset ${offset}`,
          );
        }
        const ascending = await server.get(
          `/v0/dnc-complaints?city=${city}&sort_order=ASC&items_per_page=3`,
          {
            "X-Api-Key": key,
          },
        );
        assert.deepEqual(
          ascending.json().data.map((record: { id: string }) => record.id),
          rows
            .slice(-3)
            .reverse()
            .map((row) => row.id),
        );
      } finally {
        await server.stop();
      }
    });
  });
}
