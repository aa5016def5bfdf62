import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "../../src/store/open-database.js";
import { runCli } from "../support/cli.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { makeTempDirectory } from "../support/test-server.js";

type HourCount = { dimension: string; value: string; hour: number; count: number };

/** Hourly counts computed here from the stored complaints: the oracle for what the store keeps. */
async function expectedHourCounts(location: string): Promise<HourCount[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaints")
      .select([
        "created_at",
        "violation_at",
        "state_key",
        "state",
        "city",
        "area_code",
        "subject",
        "robocall",
      ])
      .execute();
    const counts = new Map<string, number>();
    const add = (dimension: string, value: string, at: number) => {
      const key = JSON.stringify([dimension, value, Math.floor(Number(at) / 3600)]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
    for (const row of rows) {
      add("all", "", row.created_at);
      add("state", row.state_key, row.created_at);
      add("robocall", row.robocall, row.created_at);
      add("violation", "", row.violation_at);
      const violationDay = Math.floor(Number(row.violation_at) / 86400);
      add("violated_on", String(violationDay), row.created_at);
      add("shown_state", row.state, row.created_at);
      add("shown_city", row.city, row.created_at);
      add("shown_area", row.area_code, row.created_at);
      add("subject", row.subject, row.created_at);
    }
    return [...counts].map(([key, count]) => {
      const [dimension, value, hour] = JSON.parse(key) as [string, string, number];
      return { dimension, value, hour, count };
    });
  } finally {
    await database.close();
  }
}

async function storedHourCounts(location: string): Promise<HourCount[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db.selectFrom("complaint_hour_counts").selectAll().execute();
    return rows.map((row) => ({ ...row, hour: Number(row.hour), count: Number(row.count) }));
  } finally {
    await database.close();
  }
}

const byKey = (a: HourCount, b: HourCount) =>
  a.dimension.localeCompare(b.dimension) || a.value.localeCompare(b.value) || a.hour - b.hour;

for (const dialect of DIALECTS) {
  describe(`hourly counts (${dialect})`, () => {
    let db: string;
    let files: string[];

    before(async () => {
      const directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      files = [];
      for (const seed of ["3", "4"]) {
        const file = join(directory, `dnc-${seed}.csv`);
        const generated = await runCli([
          "generate",
          "dnc",
          "--rows",
          "3000",
          "--days",
          "4",
          "--seed",
          seed,
          "--end",
          "2024-05-10",
          "--out",
          file,
        ]);
        assert.equal(generated.code, 0, generated.stderr);
        files.push(file);
      }
    });

    it("are kept by imports, into an empty table and onto existing rows", async () => {
      // The first file loads an empty table, the second adds to counts already stored.
      for (const file of files) {
        const imported = await runCli(["import", "dnc", "--db", db, "--quiet", file]);
        assert.equal(imported.code, 0, imported.stderr);
      }
      const expected = await expectedHourCounts(db);
      assert.ok(expected.length > 4 * 24);
      assert.deepEqual((await storedHourCounts(db)).sort(byKey), expected.sort(byKey));
    });

    it("are computed for a database made before they existed", async () => {
      const database = openDatabase(db);
      try {
        await sql`drop table complaint_hour_counts`.execute(database.db);
        await sql`delete from kysely_migration where name = '005-hour-counts'`.execute(database.db);
      } finally {
        await database.close();
      }
      const listed = await runCli(["keys", "list", "--db", db]);
      assert.equal(listed.code, 0, listed.stderr);
      // Migration 005 counts its own dimensions; the others are migration 012's (counts.test.ts).
      const of005 = (count: HourCount) => ["all", "state", "robocall", "violation"].includes(count.dimension);
      const expected = (await expectedHourCounts(db)).filter(of005);
      assert.deepEqual((await storedHourCounts(db)).sort(byKey), expected.sort(byKey));
    });
  });
}
