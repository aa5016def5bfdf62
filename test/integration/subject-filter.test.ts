/**
 * The complaint list's `subject` filter (issue 14, part 3): exact match in any case, surrounding
 * spaces ignored, combined (AND) with every other filter, with exact totals and pages at any offset
 * in both orders, in pages and in exports. Expectations come from the input files, read here.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { type CsvComplaint, readComplaintCsv } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

/** "Charities" in three spellings besides the generator's, and a subject no other row has. */
const FIXTURE = [
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall",
  "2025550100,2024-03-10 10:00:00,2024-03-09 09:00:00,San Pedro,California,310,charities,Y",
  "2025550100,2024-03-10 10:00:01,2024-03-09 09:00:00,san pedro,California,310,CHARITIES,N",
  "2025550101,2024-03-11 23:59:59,2024-03-11 08:00:00,Austin,Texas,512,ChArItIeS,Y",
  "2025550102,2024-03-12 00:00:00,2024-03-11 08:00:00,Austin,Texas,512,Only here  & nowhere else,",
].join("\r\n");

/** A subject's match key, as docs/api.md defines the comparison. */
const key = (text: string) => text.trim().toLowerCase();

for (const dialect of DIALECTS) {
  describe(`GET /v0/dnc-complaints?subject= (${dialect})`, () => {
    let server: TestServer;
    let apiKey: string;
    let rows: CsvComplaint[];

    before(async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      const generated = join(directory, "generated.csv");
      const fixture = join(directory, "fixture.csv");
      await writeFile(fixture, `${FIXTURE}\r\n`);
      await writeComplaintCsv(
        { rows: 10000, days: 12, seed: 11, endSeconds: Date.UTC(2024, 2, 13) / 1000 },
        generated,
      );
      await importFiles(db, { complaints: [generated, fixture] });
      rows = [...(await readComplaintCsv(generated)), ...(await readComplaintCsv(fixture))];
      apiKey = await createTestKey(db, { email: "subjects@example.com", limitPerHour: "unlimited" });
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const get = (path: string) => server.get(path, { "X-Api-Key": apiKey });

    /** Every record of a query, walked page by page through `offset`. */
    async function walk(query: string): Promise<Array<Record<string, any>>> {
      const records: Array<Record<string, any>> = [];
      for (let offset = 0; ; offset += 50) {
        const res = await get(`/v0/dnc-complaints?${query}&items_per_page=50&offset=${offset}`);
        assert.equal(res.status, 200, res.body);
        const page = res.json().data;
        records.push(...page);
        if (page.length < 50) return records;
      }
    }

    /** The created times of the rows a filter keeps, newest first. */
    const expectedTimes = (matches: (row: CsvComplaint) => boolean) =>
      rows
        .filter(matches)
        .map((row) => row.created)
        .sort()
        .reverse();

    it("matches the subject exactly in any case, quoted or padded, with the exact total", async () => {
      for (const sent of [
        "Dropped%20call%20or%20no%20message",
        "DROPPED%20CALL%20OR%20NO%20MESSAGE",
        "%22dropped%20call%20or%20no%20message%22",
        "%20%20Dropped%20Call%20or%20no%20message%20",
      ]) {
        const query = `subject=${sent}`;
        const expected = expectedTimes((row) => key(row.subject) === "dropped call or no message");
        assert.ok(expected.length > 500);
        const res = await get(`/v0/dnc-complaints?${query}&items_per_page=50`);
        assert.equal(res.status, 200, res.body);
        const body = res.json();
        assert.equal(body.meta["record-total"], expected.length, query);
        assert.equal(body.meta["records-total"], expected.length, query);
        assert.deepEqual(
          body.data.map((record: any) => record.attributes["created-date"]),
          expected.slice(0, 50),
          query,
        );
        for (const record of body.data) assert.equal(record.attributes.subject, "Dropped call or no message");
      }
    });

    it("matches every stored spelling of a subject, and nothing for an unknown one", async () => {
      const records = await walk("subject=charities");
      const expected = expectedTimes((row) => key(row.subject) === "charities");
      assert.deepEqual(
        records.map((record) => record.attributes["created-date"]),
        expected,
      );
      const spellings = new Set(records.map((record) => record.attributes.subject));
      for (const spelling of ["charities", "CHARITIES", "ChArItIeS"])
        assert.ok(spellings.has(spelling), spelling);
      const first = (await get("/v0/dnc-complaints?subject=Charities&items_per_page=1")).json();
      assert.equal(first.meta["record-total"], expected.length);
      for (const subject of ["Charity", "Only%20here%20%26%20nowhere%20else", "x".repeat(2000)]) {
        const res = await get(`/v0/dnc-complaints?subject=${subject}`);
        assert.equal(res.status, 200, res.body);
        assert.deepEqual(res.json().data, []);
        assert.equal(res.json().meta["record-total"], 0);
      }
      // The double space inside is part of the subject.
      const exact = (await get("/v0/dnc-complaints?subject=only%20here%20%20%26%20NOWHERE%20else")).json();
      assert.equal(exact.meta["record-total"], 1);
    });

    it("combines (AND) with every other filter, with exact totals and whole walks", async () => {
      const commonPhone = commonest(
        rows.filter((row) => key(row.subject) === "other" && /^\d+$/.test(row.phone)).map((row) => row.phone),
      );
      const cases: Array<[string, (row: CsvComplaint) => boolean]> = [
        [
          "subject=other&state=california",
          (row) => key(row.subject) === "other" && key(row.state) === "california",
        ],
        [
          "subject=Other&state=Texas&city=houston",
          (row) => key(row.subject) === "other" && key(row.state) === "texas" && key(row.city) === "houston",
        ],
        ["subject=other&city=Houston", (row) => key(row.subject) === "other" && key(row.city) === "houston"],
        ["subject=other&area_code=310", (row) => key(row.subject) === "other" && row.areaCode === "310"],
        ["subject=other&is_robocall=false", (row) => key(row.subject) === "other" && row.robocall === "N"],
        [
          `subject=other&company_phone_number=${commonPhone}`,
          (row) => key(row.subject) === "other" && row.phone === commonPhone,
        ],
        [
          "subject=other&created_date_from=2024-03-05%2006:30:00&created_date_to=2024-03-09%2017:15:59",
          (row) =>
            key(row.subject) === "other" &&
            row.created >= "2024-03-05 06:30:00" &&
            row.created <= "2024-03-09 17:15:59",
        ],
        [
          "subject=other&created_date=2024-03-08",
          (row) => key(row.subject) === "other" && row.created.startsWith("2024-03-08"),
        ],
        [
          "subject=other&violation_date=2024-03-07",
          (row) => key(row.subject) === "other" && row.violation.startsWith("2024-03-07"),
        ],
        [
          "subject=other&violation_date_from=2024-03-01%2012:00:00&violation_date_to=2024-03-08",
          (row) =>
            key(row.subject) === "other" &&
            row.violation >= "2024-03-01 12:00:00" &&
            row.violation <= "2024-03-08 23:59:59",
        ],
        [
          "subject=charities&state=texas&is_robocall=true&created_date=2024-03-11&violation_date=2024-03-11",
          (row) =>
            key(row.subject) === "charities" &&
            key(row.state) === "texas" &&
            row.robocall === "Y" &&
            row.created.startsWith("2024-03-11") &&
            row.violation.startsWith("2024-03-11"),
        ],
        [
          "subject=Warranties%20%20%26%20protection%20plans&area_code=212&is_robocall=true&state=new%20york",
          (row) =>
            key(row.subject) === "warranties  & protection plans" &&
            row.areaCode === "212" &&
            row.robocall === "Y" &&
            key(row.state) === "new york",
        ],
      ];
      for (const [query, matches] of cases) {
        const expected = expectedTimes(matches);
        const first = await get(`/v0/dnc-complaints?${query}&items_per_page=5`);
        assert.equal(first.status, 200, `${query}: ${first.body}`);
        assert.equal(first.json().meta["record-total"], expected.length, query);
        const records = await walk(query);
        assert.deepEqual(
          records.map((record) => record.attributes["created-date"]),
          expected,
          query,
        );
        assert.equal(new Set(records.map((record) => record.id)).size, expected.length, query);
      }
      assert.ok(expectedTimes(cases[10]![1]).length > 0, "the five-filter case matches something");
    });

    it("places deep offsets in both orders, alone, in a cut range and with another filter", async () => {
      const from = "2024-03-03 13:15:00";
      const to = "2024-03-12 09:45:30";
      const other = (row: CsvComplaint) => key(row.subject) === "other";
      const inRange = (row: CsvComplaint) => row.created >= from && row.created <= to;
      const cases: Array<[string, (row: CsvComplaint) => boolean]> = [
        ["subject=Other", other],
        [
          `subject=OTHER&created_date_from=${from}&created_date_to=${to}`,
          (row) => other(row) && inRange(row),
        ],
        ["subject=other&is_robocall=true", (row) => other(row) && row.robocall === "Y"],
      ];
      for (const [query, matches] of cases) {
        const expected = rows.filter(matches).map((row) => row.created);
        assert.ok(expected.length > 2100, `${query}: ${expected.length}`);
        const ascending = await walk(`${query}&sort_order=asc`);
        const descending = await walk(`${query}&sort_order=desc`);
        assert.deepEqual(
          ascending.map((record) => record.attributes["created-date"]),
          [...expected].sort(),
          query,
        );
        assert.deepEqual(
          descending.map((record) => record.id),
          ascending.map((record) => record.id).reverse(),
          query,
        );
        const total = ascending.length;
        for (const [order, records] of [
          ["asc", ascending],
          ["desc", descending],
        ] as const) {
          for (const offset of [
            1001,
            1234,
            Math.floor(total / 2) + 3,
            total - 1100,
            total - 77,
            total - 1,
            total,
          ]) {
            const res = await get(
              `/v0/dnc-complaints?${query}&sort_order=${order}&items_per_page=31&offset=${offset}`,
            );
            const page = res.json();
            assert.equal(page.meta["record-total"], total, `${query} ${order} ${offset}`);
            assert.deepEqual(
              page.data.map((record: any) => record.id),
              records.slice(offset, offset + 31).map((record) => record.id),
              `${query} ${order} ${offset}`,
            );
          }
        }
      }
    });

    it("refuses an empty, repeated or control-character subject with the parameters' 400", async () => {
      const bad = [
        "subject=",
        "subject=%22%22",
        "subject=%20%20",
        "subject=Other&subject=Other",
        "subject=Oth%00er",
        "subject=%1B%5B2J",
      ];
      for (const query of bad) {
        const res = await get(`/v0/dnc-complaints?${query}`);
        assert.equal(res.status, 400, query);
        const [error] = res.json().errors;
        assert.equal(error.status, "400", query);
        assert.equal(error.code, "INVALID_PARAMETER", query);
        assert.equal(error.source.parameter, "subject", query);
      }
    });

    it("names subject among the accepted parameters when refusing an unknown one", async () => {
      const res = await get("/v0/dnc-complaints?subjects=Other");
      assert.equal(res.status, 400);
      const [error] = res.json().errors;
      assert.equal(error.code, "UNKNOWN_PARAMETER");
      assert.match(error.detail, /, company_phone_number, subject, sort_by, /);
    });

    it("exports exactly the filtered complaints, as CSV and NDJSON", async () => {
      const query = "subject=%22charities%22&is_robocall=true&sort_order=ASC";
      const expected = rows
        .filter((row) => key(row.subject) === "charities" && row.robocall === "Y")
        .map((row) => row.created)
        .sort();
      const csv = await get(`/v0/dnc-complaints?format=csv&${query}`);
      assert.equal(csv.status, 200, csv.body);
      assert.equal(csv.headers["x-record-total"], String(expected.length));
      const lines = csv.body.trimEnd().split("\r\n").slice(1);
      assert.deepEqual(
        lines.map((line) => line.split(",")[1]),
        expected,
      );
      const ndjson = await get(`/v0/dnc-complaints?format=ndjson&${query}`);
      assert.equal(ndjson.status, 200, ndjson.body);
      const records = ndjson.body
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.deepEqual(records, await walk(query));
      const none = await get("/v0/dnc-complaints?format=csv&subject=nothing%20like%20it");
      assert.equal(none.status, 200);
      assert.equal(none.headers["x-record-total"], "0");
      assert.equal(none.body.split("\r\n").filter((line) => line !== "").length, 1);
    });
  });
}

/** The most frequent value. */
function commonest(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}
