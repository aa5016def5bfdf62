import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { formatDateTime } from "../../src/domain/time.js";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { openDatabase } from "../../src/store/open-database.js";
import { createKeyWithCli, runCli } from "../support/cli.js";
import { writeComplaintRows } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

/** The ids of the complaints of `state_key` with `robocall`, newest first, read here from the rows. */
async function expectedIds(location: string, stateKey: string, robocall: string): Promise<string[]> {
  const database = openDatabase(location);
  try {
    const rows = await database.db
      .selectFrom("complaints")
      .select("id")
      .where("state_key", "=", stateKey)
      .where("robocall", "=", robocall)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows.map((row) => row.id);
  } finally {
    await database.close();
  }
}

/** The state with the most complaints, by match key and as stored. */
async function busiestState(location: string): Promise<{ key: string; name: string }> {
  const database = openDatabase(location);
  try {
    const row = await database.db
      .selectFrom("complaints")
      .select(["state_key", "state", sql<number>`count(*)`.as("count")])
      .groupBy(["state_key", "state"])
      .orderBy("count", "desc")
      .orderBy("state_key")
      .limit(1)
      .executeTakeFirstOrThrow();
    return { key: row.state_key, name: row.state };
  } finally {
    await database.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`a combination of filters walked by offset (${dialect})`, () => {
    let db: string;
    let files: string[];
    let key: string;
    let server: TestServer;

    before(async () => {
      const directory = await makeTempDirectory();
      db = await freshDatabase(dialect);
      files = [];
      for (const seed of [7, 8]) {
        const file = join(directory, `dnc-${seed}.csv`);
        await writeComplaintCsv(
          { rows: 4000, days: 3, seed, endSeconds: Date.UTC(2024, 4, 10) / 1000 },
          file,
        );
        files.push(file);
      }
      const imported = await runCli(["import", "dnc", "--db", db, "--quiet", files[0]!]);
      assert.equal(imported.code, 0, imported.stderr);
      key = await createKeyWithCli(db);
    });

    it("pages exactly at every offset, in both orders, and follows an import in another process", async () => {
      server = await startTestServer({ db });
      try {
        const state = await busiestState(db);
        const path = (offset: number, order = "DESC") =>
          `/v0/dnc-complaints?state=${encodeURIComponent(state.name)}&is_robocall=true&items_per_page=7&sort_order=${order}&offset=${offset}`;
        const check = async (ids: string[]) => {
          for (const offset of [
            0,
            1,
            13,
            Math.floor(ids.length / 3),
            Math.floor(ids.length / 2),
            ids.length - 8,
          ]) {
            for (const order of ["DESC", "ASC"]) {
              const res = await server.get(path(offset, order), { "X-Api-Key": key });
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], ids.length);
              const inOrder = order === "DESC" ? ids : [...ids].reverse();
              assert.deepEqual(
                body.data.map((record: { id: string }) => record.id),
                inOrder.slice(offset, offset + 7),
                `${order} offset ${offset}`,
              );
            }
          }
        };
        const before = await expectedIds(db, state.key, "Y");
        assert.ok(before.length > 100, `${before.length} matches`);
        await check(before);

        const imported = await runCli(["import", "dnc", "--db", db, "--quiet", files[1]!]);
        assert.equal(imported.code, 0, imported.stderr);
        const after = await expectedIds(db, state.key, "Y");
        assert.ok(after.length > before.length);
        // Another process's commit is seen within the dialect's poll interval (a second at most).
        const deadline = Date.now() + 3_000;
        while (Date.now() < deadline) {
          const res = await server.get(path(13), { "X-Api-Key": key });
          if (res.json().meta["record-total"] === after.length) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await check(after);
      } finally {
        await server.stop();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`a place, a subject and a violation range with complaints before 1970 (${dialect})`, () => {
    let db: string;
    let key: string;

    before(async () => {
      db = await freshDatabase(dialect);
      // Created on both sides of 1970's first second, in hours that truncation toward zero would
      // merge with their neighbours (`created_at / 3600`, the hour a count uses from 1970 on).
      const times = [
        "1969-12-31 21:59:59",
        "1969-12-31 22:30:00",
        "1969-12-31 23:10:00",
        "1969-12-31 23:59:59",
        "1970-01-01 00:00:00",
        "1970-01-01 00:30:00",
        "1970-01-01 01:15:00",
        "1970-01-01 02:00:01",
      ];
      const rows = times.flatMap((created, index) =>
        ["Charities", "Other"].map((subject) => [
          `20255501${index}0`,
          created,
          "1969-12-31 12:00:00",
          "Albany",
          "New York",
          "212",
          subject,
          "Y",
        ]),
      );
      const file = await writeComplaintRows("around-1970.csv", rows);
      const imported = await runCli(["import", "dnc", "--db", db, "--quiet", file]);
      assert.equal(imported.code, 0, imported.stderr);
      key = await createKeyWithCli(db);
    });

    it("counts and pages them exactly, at every offset, in both orders", async () => {
      const server = await startTestServer({ db });
      try {
        const database = openDatabase(db);
        const ids = await database.db
          .selectFrom("complaints")
          .select("id")
          .where("area_code", "=", "212")
          .where("subject", "=", "Charities")
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .execute();
        await database.close();
        const newestFirst = ids.map((row) => row.id);
        assert.equal(newestFirst.length, 8);
        for (const order of ["DESC", "ASC"] as const) {
          const inOrder = order === "DESC" ? newestFirst : [...newestFirst].reverse();
          for (let offset = 0; offset < 9; offset++) {
            const res = await server.get(
              `/v0/dnc-complaints?area_code=212&subject=charities&violation_date_from=1969-12-30&violation_date_to=1970-01-02&items_per_page=2&sort_order=${order}&offset=${offset}`,
              { "X-Api-Key": key },
            );
            assert.equal(res.status, 200, res.body);
            const body = res.json();
            assert.equal(body.meta["record-total"], 8, `${order} offset ${offset}`);
            assert.deepEqual(
              body.data.map((record: { id: string }) => record.id),
              inOrder.slice(offset, offset + 2),
              `${order} offset ${offset}`,
            );
          }
        }
      } finally {
        await server.stop();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`a dense place with a subject over many violation days, paged deep (${dialect})`, () => {
    let db: string;
    let key: string;
    /** The phone numbers of the area code's complaints of subject Other, newest first. */
    let newestFirst: string[];

    before(async () => {
      db = await freshDatabase(dialect);
      // Every 6 minutes for 50 days, violated 0 to 29 days before, a quarter in area code 415 and
      // four in five of subject Other: the area code's complaints of that subject, about 2 an
      // hour, are walked on the place's and subject's index (the subject's own holds four times as
      // many entries), and a page placed in its hours on the area code's index.
      const start = Date.UTC(2025, 2, 1);
      const rows: string[][] = [];
      for (let index = 0; index < 12_000; index++) {
        const created = start + index * 6 * 60_000;
        const violated = created - (index % 30) * 86_400_000 - 3_600_000;
        rows.push([
          `415${String(index).padStart(7, "0")}`,
          formatDateTime(created / 1000),
          formatDateTime(violated / 1000),
          "San Francisco",
          "California",
          index % 4 === 0 ? "415" : "650",
          index % 5 === 4 ? "Charities" : "Other",
          index % 3 === 0 ? "Y" : "N",
        ]);
      }
      newestFirst = rows
        .filter((row) => row[5] === "415" && row[6] === "Other")
        .map((row) => row[0]!)
        .reverse();
      const file = await writeComplaintRows("dense-place.csv", rows);
      const imported = await runCli(["import", "dnc", "--db", db, "--quiet", file]);
      assert.equal(imported.code, 0, imported.stderr);
      key = await createKeyWithCli(db);
    });

    it("counts and pages exactly, first pages unplaced, deep ones placed, in both orders", async () => {
      const server = await startTestServer({ db });
      try {
        const total = newestFirst.length;
        assert.ok(total > 2_000, `${total}`);
        const base =
          "/v0/dnc-complaints?area_code=415&subject=other&violation_date_from=2025-01-01&violation_date_to=2025-05-01";
        // First pages before the count series exists, deep ones after, first pages again after.
        const offsets = [0, 50, 400, 1_000, 1_234, total - 1_100, total - 60, 0, 450, 777];
        for (const order of ["DESC", "ASC"] as const) {
          const inOrder = order === "DESC" ? newestFirst : [...newestFirst].reverse();
          for (const offset of offsets) {
            const res = await server.get(`${base}&sort_order=${order}&offset=${offset}`, {
              "X-Api-Key": key,
            });
            assert.equal(res.status, 200, res.body);
            const body = res.json();
            assert.equal(body.meta["record-total"], total, `${order} offset ${offset}`);
            assert.deepEqual(
              body.data.map(
                (record: { attributes: Record<string, string> }) => record.attributes["company-phone-number"],
              ),
              inOrder.slice(offset, offset + 50),
              `${order} offset ${offset}`,
            );
          }
        }
      } finally {
        await server.stop();
      }
    });
  });

  describe(`a dense place's rare violation days, sought per subject (${dialect})`, () => {
    let db: string;
    let key: string;
    let rows: string[][];

    before(async () => {
      db = await freshDatabase(dialect);
      // A complaint a minute for 20 days in Cincinnati, Ohio (area codes 513 and 937, three
      // subjects), violated an hour before its creation, but every 300th violated on 1 to 3 March
      // 2025: about 32 a day of those, spread over the 20 days, so that a page of them spans more
      // of the city's complaints than a walk of its own index takes unweighed.
      const start = Date.UTC(2025, 3, 1);
      const subjects = ["Other", "Charities", "Dropped call or no message"];
      rows = [];
      for (let index = 0; index < 28_800; index++) {
        const created = start + index * 60_000;
        const violated =
          index % 300 === 0 ? Date.UTC(2025, 2, 1 + ((index / 300) % 3), 12) : created - 3_600_000;
        rows.push([
          `513${String(index).padStart(7, "0")}`,
          formatDateTime(created / 1000),
          formatDateTime(violated / 1000),
          "Cincinnati",
          "Ohio",
          index % 7 === 0 ? "937" : "513",
          subjects[index % 3]!,
          (index % 300 === 0 ? (index / 300) % 2 === 0 : index % 5 === 0) ? "Y" : "N",
        ]);
      }
      const file = await writeComplaintRows("dense-city-rare-days.csv", rows);
      const imported = await runCli(["import", "dnc", "--db", db, "--quiet", file]);
      assert.equal(imported.code, 0, imported.stderr);
      key = await createKeyWithCli(db);
    });

    it("counts and pages a city's, an area code's and a state's share exactly, in both orders", async () => {
      const server = await startTestServer({ db });
      try {
        const cases: Array<{ query: string; matches: (row: string[]) => boolean }> = [
          {
            query: "city=cincinnati&violation_date=2025-03-02",
            matches: (row) => row[2]!.startsWith("2025-03-02"),
          },
          {
            query:
              "city=Cincinnati&state=Ohio&is_robocall=true&violation_date_from=2025-03-01&violation_date_to=2025-03-03",
            matches: (row) => row[2]!.startsWith("2025-03-0") && row[7] === "Y",
          },
          {
            query:
              "area_code=513&is_robocall=false&violation_date_from=2025-03-02&violation_date_to=2025-03-03",
            matches: (row) =>
              (row[2]!.startsWith("2025-03-02") || row[2]!.startsWith("2025-03-03")) &&
              row[5] === "513" &&
              row[7] === "N",
          },
        ];
        for (const { query, matches } of cases) {
          const newestFirst = rows
            .filter(matches)
            .map((row) => row[0]!)
            .reverse();
          assert.ok(newestFirst.length > 20, `${query}: ${newestFirst.length}`);
          for (const order of ["DESC", "ASC"] as const) {
            const inOrder = order === "DESC" ? newestFirst : [...newestFirst].reverse();
            for (const offset of [0, 10, newestFirst.length - 25]) {
              const res = await server.get(
                `/v0/dnc-complaints?${query}&sort_order=${order}&offset=${offset}`,
                {
                  "X-Api-Key": key,
                },
              );
              assert.equal(res.status, 200, res.body);
              const body = res.json();
              assert.equal(body.meta["record-total"], newestFirst.length, `${query} ${order} ${offset}`);
              assert.deepEqual(
                body.data.map(
                  (record: { attributes: Record<string, string> }) =>
                    record.attributes["company-phone-number"],
                ),
                inOrder.slice(offset, offset + 50),
                `${query} ${order} offset ${offset}`,
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
