/**
 * `GET /v0/dnc-complaints/counts` and `GET /v0/hsr-early-termination-notices/counts` against an
 * oracle computed in this file from the CSV files the store imported (never from the store): every
 * field alone and in pairs, ranges with and without times, every filter and combinations of them,
 * min_count, limit and both sorts; the refusals; answers moving after an import into a running
 * server; migration 012 on a database made before it; and the real extract in ../shared/data.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { sql } from "kysely";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { REPO_ROOT } from "../support/cli.js";
import { type CsvComplaint, readComplaintCsv } from "../support/complaint-rows.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { eventually } from "../support/eventually.js";
import { createTestKey, importFiles, withDatabase } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const COUNTS = "/v0/dnc-complaints/counts";
const NOTICE_COUNTS = "/v0/hsr-early-termination-notices/counts";
const EXTRACT = join(REPO_ROOT, "..", "shared", "data", "DNC_Complaint_Numbers_2021-07-08.csv");
const HEADER =
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall";
/** The generated complaints end here (exclusive): 2024-03-10, 6 days of them. */
const END_SECONDS = Date.UTC(2024, 2, 10) / 1000;

/** Each `by` field's value in a CSV row, as records show it. */
const FIELDS: Record<string, { member: string; value: (row: CsvComplaint) => string }> = {
  created_date: { member: "created-date", value: (row) => row.created.slice(0, 10) },
  violation_date: { member: "violation-date", value: (row) => row.violation.slice(0, 10) },
  state: { member: "consumer-state", value: (row) => row.state },
  city: { member: "consumer-city", value: (row) => row.city },
  area_code: { member: "consumer-area-code", value: (row) => row.areaCode },
  subject: { member: "subject", value: (row) => row.subject },
  is_robocall: { member: "recorded-message-or-robocall", value: (row) => row.robocall },
  company_phone_number: { member: "company-phone-number", value: (row) => row.phone },
};
const FIELD_NAMES = Object.keys(FIELDS);

interface Expected {
  data: Array<Record<string, string | number>>;
  meta: { by: string[]; "record-total": number; "group-total": number; "groups-this-page": number };
}

/** The counts answer the oracle expects for rows matching `test`. */
function expected(
  rows: readonly CsvComplaint[],
  by: string[],
  test: (row: CsvComplaint) => boolean,
  options: { minCount?: number; limit?: number; sort?: "-count" | "key" } = {},
): Expected {
  const groups = new Map<string, { values: string[]; count: number }>();
  let total = 0;
  for (const row of rows) {
    if (!test(row)) continue;
    total++;
    const values = by.map((field) => FIELDS[field]!.value(row));
    const key = JSON.stringify(values);
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { values, count: 1 });
  }
  const kept = [...groups.values()].filter((group) => group.count >= (options.minCount ?? 1));
  const byKey = (left: { values: string[] }, right: { values: string[] }) => {
    for (let index = 0; index < by.length; index++) {
      if (left.values[index]! < right.values[index]!) return -1;
      if (left.values[index]! > right.values[index]!) return 1;
    }
    return 0;
  };
  kept.sort(options.sort === "key" ? byKey : (left, right) => right.count - left.count || byKey(left, right));
  const page = kept.slice(0, options.limit ?? 1000);
  return {
    data: page.map((group) => {
      const item: Record<string, string | number> = {};
      by.forEach((field, index) => {
        item[FIELDS[field]!.member] = group.values[index]!;
      });
      item.count = group.count;
      return item;
    }),
    meta: { by, "record-total": total, "group-total": kept.length, "groups-this-page": page.length },
  };
}

/** A filter case: its query text and the rows it keeps, as the API documents the filters. */
type Case = [query: string, test: (row: CsvComplaint) => boolean];
const key = (text: string) => text.trim().toLowerCase();
const createdIn = (from: string, to: string) => (row: CsvComplaint) =>
  row.created >= from && row.created <= to;

/** Crafted rows: repeated numbers (for min_count), values in several cases and with spaces. */
function craftedRows(): string[][] {
  const rows: string[][] = [];
  const at = (day: number, seconds: number) =>
    new Date((END_SECONDS - (6 - day) * 86400 + seconds) * 1000).toISOString().slice(0, 19).replace("T", " ");
  for (let index = 0; index < 40; index++) {
    const phone = ["2025550101", "2025550102", "2025550103", "3035550104"][index % 4]!;
    const day = index % 6;
    const seconds = (index * 7919) % 86400;
    rows.push([
      index % 9 === 0 ? "2025550101" : phone,
      at(day, seconds),
      at(day, seconds - 3600 * (index % 30)),
      ["Springfield", "springfield", "Columbus", ""][index % 4]!,
      ["Ohio", "ohio", "Illinois", "Massachusetts", " Ohio"][index % 5]!,
      ["216", "217", "413"][index % 3]!,
      ["Other", "other", "Medical  & prescriptions", " Other "][index % 4]!,
      ["Y", "N", ""][index % 3]!,
    ]);
  }
  return rows;
}

for (const dialect of DIALECTS) {
  describe(`counts of complaints and notices (${dialect})`, () => {
    let server: TestServer;
    let db: string;
    let apiKey: string;
    let rows: CsvComplaint[];
    let notices: Array<{ date: string; title: string }>;
    let later: string;

    before(async () => {
      const directory = await makeTempDirectory();
      const generated = join(directory, "generated.csv");
      const crafted = join(directory, "crafted.csv");
      const noticeFile = join(directory, "notices.csv");
      later = join(directory, "later.csv");
      await writeComplaintCsv({ rows: 3000, days: 6, seed: 21, endSeconds: END_SECONDS }, generated);
      await writeFile(crafted, `${HEADER}\r\n${stringify(craftedRows(), { record_delimiter: "windows" })}`);
      await writeComplaintCsv({ rows: 300, days: 1, seed: 22, endSeconds: END_SECONDS + 86400 }, later);
      await writeNoticeCsv({ rows: 200, seed: 23 }, noticeFile);
      // Two notices without a date, which group under null.
      const noticeText = await readFile(noticeFile, "utf8");
      await writeFile(
        noticeFile,
        `${noticeText}99990001,Undated Acquirer LLC,Undated Target Inc.,Undated Target Inc.,,2021-01-05T10:00:00-05:00,2021-01-05T10:00:00-05:00\n99990002,Other Undated LLC,Another Target Inc.,Another Target Inc.,,2021-01-06T10:00:00-05:00,2021-01-06T10:00:00-05:00\n`,
      );
      db = await freshDatabase(dialect);
      const imported = await importFiles(db, { complaints: [generated, crafted], notices: [noticeFile] });
      assert.equal(imported.complaints[0]!.added, 3000);
      assert.equal(imported.complaints[1]!.added, 40);
      rows = [...(await readComplaintCsv(generated)), ...(await readComplaintCsv(crafted))];
      const noticeRows: Array<Record<string, string>> = parse(await readFile(noticeFile), { columns: true });
      assert.equal(imported.notices[0]!.added, noticeRows.length);
      notices = noticeRows.map((row) => ({ date: row.date!, title: row.acquired_party! }));
      apiKey = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const get = async (path: string) => {
      const res = await server.get(path, { "X-Api-Key": apiKey });
      return res;
    };
    const counts = async (query: string) => {
      const res = await get(`${COUNTS}?${query}`);
      assert.equal(res.status, 200, `${query}: ${res.body}`);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      const body = res.json();
      assert.equal(body.links.self, `${server.httpsUrl}${COUNTS}?${query}`);
      return body;
    };
    const check = async (query: string, want: Expected) => {
      const body = await counts(query);
      assert.deepEqual(body.meta, want.meta, query);
      assert.deepEqual(body.data, want.data, query);
    };

    const days = ["2024-03-04", "2024-03-05", "2024-03-06", "2024-03-07", "2024-03-08", "2024-03-09"];
    const cases = (): Case[] => [
      ["", () => true],
      [
        `created_date_from=${days[1]}&created_date_to=${days[3]}`,
        createdIn(`${days[1]} 00:00:00`, `${days[3]} 23:59:59`),
      ],
      [
        `created_date_from=%22${days[1]}%2005:30:00%22&created_date_to=%22${days[4]}%2017:15:10%22`,
        createdIn(`${days[1]} 05:30:00`, `${days[4]} 17:15:10`),
      ],
      [
        `created_date_from=${days[2]}%2000:10:00&created_date_to=${days[2]}%2000:50:59`,
        createdIn(`${days[2]} 00:10:00`, `${days[2]} 00:50:59`),
      ],
      [`created_date=%22${days[2]}%22`, (row) => row.created.startsWith(days[2]!)],
      [`violation_date=${days[2]}`, (row) => row.violation.startsWith(days[2]!)],
      [
        "violation_date_from=2024-01-01&violation_date_to=2024-03-05%2012:00:00",
        (row) => row.violation >= "2024-01-01 00:00:00" && row.violation <= "2024-03-05 12:00:00",
      ],
      ["state=Ohio", (row) => key(row.state) === "ohio"],
      [
        "state=%22new%20york%22&city=brooklyn",
        (row) => key(row.state) === "new york" && key(row.city) === "brooklyn",
      ],
      ["city=Springfield", (row) => key(row.city) === "springfield"],
      ["area_code=216", (row) => row.areaCode === "216"],
      ["is_robocall=true", (row) => row.robocall === "Y"],
      ["is_robocall=FALSE", (row) => row.robocall === "N"],
      ["company_phone_number=2025550101", (row) => row.phone === "2025550101"],
      ["subject=%20OTHER%20", (row) => key(row.subject) === "other"],
      ["subject=nothing%20like%20it", () => false],
      [
        "state=ohio&is_robocall=true&area_code=216",
        (row) => key(row.state) === "ohio" && row.robocall === "Y" && row.areaCode === "216",
      ],
      [
        `subject=other&created_date_from=${days[0]}%2012:00:00&created_date_to=${days[2]}`,
        (row) => key(row.subject) === "other" && createdIn(`${days[0]} 12:00:00`, `${days[2]} 23:59:59`)(row),
      ],
      [
        `state=California&violation_date_from=2024-03-01&violation_date_to=2024-03-09&created_date=${days[3]}`,
        (row) =>
          key(row.state) === "california" &&
          row.violation >= "2024-03-01" &&
          row.violation <= "2024-03-09 23:59:59" &&
          row.created.startsWith(days[3]!),
      ],
      [
        `city=columbus&is_robocall=false&company_phone_number=2025550102`,
        (row) => key(row.city) === "columbus" && row.robocall === "N" && row.phone === "2025550102",
      ],
      [`created_date=${days[0]}&created_date_from=${days[2]}&created_date_to=${days[3]}`, () => false],
    ];

    it("counts every field alone under every filter case, as the oracle does", async () => {
      for (const [query, test] of cases()) {
        for (const field of FIELD_NAMES) {
          const full = query === "" ? `by=${field}` : `by=${field}&${query}`;
          await check(`${full}&limit=100000`, expected(rows, [field], test, { limit: 100000 }));
        }
      }
    });

    it("counts every pair of fields, without filters and over a range with times", async () => {
      const ranged = cases()[2]!;
      for (const [index, first] of FIELD_NAMES.entries()) {
        for (const second of FIELD_NAMES.slice(index + 1)) {
          await check(
            `by=${first},${second}`,
            expected(rows, [first, second], () => true),
          );
          await check(
            `by=${second},${first}&${ranged[0]}&sort=key&limit=50`,
            expected(rows, [second, first], ranged[1], { sort: "key", limit: 50 }),
          );
        }
      }
      await check(
        "by=state,city&city=springfield&is_robocall=true",
        expected(rows, ["state", "city"], (row) => key(row.city) === "springfield" && row.robocall === "Y"),
      );
    });

    it("keeps groups of at least min_count, at most limit, in either order", async () => {
      const range = createdIn(`${days[0]} 00:00:00`, `${days[5]} 23:59:59`);
      for (const [query, test] of [
        ["", () => true],
        [`created_date_from=${days[0]}&created_date_to=${days[5]}`, range],
        [
          `created_date_from=${days[1]}%2003:00:00&created_date_to=${days[4]}%2020:00:00`,
          createdIn(`${days[1]} 03:00:00`, `${days[4]} 20:00:00`),
        ],
        [
          `created_date_from=${days[5]}&created_date_to=${days[5]}`,
          (row: CsvComplaint) => row.created.startsWith(days[5]!),
        ],
        ["state=ohio", (row: CsvComplaint) => key(row.state) === "ohio"],
      ] as Case[]) {
        for (const minCount of [2, 3, 8]) {
          for (const sort of ["-count", "key"] as const) {
            const full = `by=company_phone_number&min_count=${minCount}${query ? `&${query}` : ""}&sort=${sort}`;
            await check(full, expected(rows, ["company_phone_number"], test, { minCount, sort }));
          }
        }
      }
      await check(
        "by=state&min_count=100&limit=3",
        expected(rows, ["state"], () => true, { minCount: 100, limit: 3 }),
      );
      await check(
        "by=subject&sort=key&limit=2",
        expected(rows, ["subject"], () => true, { sort: "key", limit: 2 }),
      );
      await check(
        "by=created_date&sort=-count&limit=1",
        expected(rows, ["created_date"], () => true, { limit: 1 }),
      );
      await check(
        "by=area_code,is_robocall&min_count=5&sort=key&limit=7",
        expected(rows, ["area_code", "is_robocall"], () => true, { minCount: 5, sort: "key", limit: 7 }),
      );
      const spam = await counts(
        `by=company_phone_number&min_count=3&created_date_from=${days[0]}&created_date_to=${days[5]}`,
      );
      assert.ok(
        spam.data.some((group: any) => group["company-phone-number"] === "2025550101"),
        "the crafted repeated number is on the list",
      );
    });

    it("refuses what it does not take with a 400 naming the parameter", async () => {
      const refusals: Array<[string, string, string]> = [
        ["", "INVALID_PARAMETER", "by"],
        ["by=", "INVALID_PARAMETER", "by"],
        ["by=county", "INVALID_PARAMETER", "by"],
        ["by=state,state", "INVALID_PARAMETER", "by"],
        ["by=state,city,subject", "INVALID_PARAMETER", "by"],
        ["by=state&by=city", "INVALID_PARAMETER", "by"],
        ["by=state&min_count=0", "INVALID_PARAMETER", "min_count"],
        ["by=state&min_count=two", "INVALID_PARAMETER", "min_count"],
        ["by=state&limit=0", "INVALID_PARAMETER", "limit"],
        ["by=state&limit=100001", "INVALID_PARAMETER", "limit"],
        ["by=state&sort=count", "INVALID_PARAMETER", "sort"],
        ["by=state&sort=-key", "INVALID_PARAMETER", "sort"],
        ["by=state&offset=0", "INVALID_PARAMETER", "offset"],
        ["by=state&items_per_page=10", "INVALID_PARAMETER", "items_per_page"],
        ["by=state&sort_order=ASC", "UNKNOWN_PARAMETER", "sort_order"],
        ["by=state&county=x", "UNKNOWN_PARAMETER", "county"],
        ["by=state&area_code=abc", "INVALID_PARAMETER", "area_code"],
        ["by=state&is_robocall=maybe", "INVALID_PARAMETER", "is_robocall"],
        ["by=state&created_date=2024-13-01", "INVALID_PARAMETER", "created_date"],
        ["by=state&created_date_from=2024-03-01", "INVALID_PARAMETER", "created_date_from"],
        [
          "by=state&created_date_from=2024-03-07&created_date_to=2024-03-05",
          "INVALID_PARAMETER",
          "created_date_from",
        ],
        ["by=state&company_phone_number=202-555", "INVALID_PARAMETER", "company_phone_number"],
        ["by=state&state=", "INVALID_PARAMETER", "state"],
        ["by=state&subject=%00", "INVALID_PARAMETER", "subject"],
      ];
      for (const [query, code, parameter] of refusals) {
        const res = await get(`${COUNTS}?${query}`);
        assert.equal(res.status, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^application\/json/);
        const body = res.json();
        assert.deepEqual(Object.keys(body), ["errors"], query);
        assert.equal(body.errors[0].code, code, query);
        assert.equal(body.errors[0].source.parameter, parameter, query);
      }
      const noticeRefusals: Array<[string, string, string]> = [
        ["", "INVALID_PARAMETER", "by"],
        ["by=day", "INVALID_PARAMETER", "by"],
        ["by=year,month", "INVALID_PARAMETER", "by"],
        ["by=year&page[limit]=1", "INVALID_PARAMETER", "page[limit]"],
        ["by=year&page[offset]=0", "INVALID_PARAMETER", "page[offset]"],
        ["by=year&min_count=-1", "INVALID_PARAMETER", "min_count"],
        ["by=year&limit=100001", "INVALID_PARAMETER", "limit"],
        ["by=year&sort=title", "INVALID_PARAMETER", "sort"],
        [
          "by=year&fields[early_termination_notice]=title",
          "INVALID_PARAMETER",
          "fields[early_termination_notice]",
        ],
        [
          "by=month&filter[date][operator]=BOGUS&filter[date][value]=2019",
          "INVALID_FILTER",
          "filter[date][operator]",
        ],
      ];
      for (const [query, code, parameter] of noticeRefusals) {
        const res = await get(`${NOTICE_COUNTS}?${query}`);
        assert.equal(res.status, 400, `${query}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^application\/vnd\.api\+json/);
        const body = res.json();
        assert.deepEqual(Object.keys(body), ["jsonapi", "errors"], query);
        assert.equal(body.errors[0].code, code, query);
        assert.equal(body.errors[0].source?.parameter, parameter, query);
      }
    });

    it("counts notices by year and by month, with the list's filters", async () => {
      const noticeCounts = async (
        query: string,
        by: "year" | "month",
        test: (notice: { date: string; title: string }) => boolean,
        options: { minCount?: number; limit?: number; sort?: "-count" | "key" } = {},
      ) => {
        const res = await get(`${NOTICE_COUNTS}?${query}`);
        assert.equal(res.status, 200, `${query}: ${res.body}`);
        assert.match(String(res.headers["content-type"]), /^application\/json/);
        const groups = new Map<string | null, number>();
        let total = 0;
        for (const notice of notices) {
          if (!test(notice)) continue;
          total++;
          const value = notice.date === "" ? null : notice.date.slice(0, by === "year" ? 4 : 7);
          groups.set(value, (groups.get(value) ?? 0) + 1);
        }
        const kept = [...groups].filter(([, count]) => count >= (options.minCount ?? 1));
        const byKey = (left: string | null, right: string | null) =>
          left === right ? 0 : left === null ? 1 : right === null ? -1 : left < right ? -1 : 1;
        kept.sort(
          options.sort === "key" ? (l, r) => byKey(l[0], r[0]) : (l, r) => r[1] - l[1] || byKey(l[0], r[0]),
        );
        const page = kept.slice(0, options.limit ?? 1000);
        const body = res.json();
        assert.deepEqual(
          { data: body.data, meta: body.meta },
          {
            data: page.map(([value, count]) => ({ [by]: value, count })),
            meta: {
              by: [by],
              "record-total": total,
              "group-total": kept.length,
              "groups-this-page": page.length,
            },
          },
          query,
        );
        // As the notice list writes its links: the parameters decoded and encoded again.
        assert.equal(
          decodeURIComponent(body.links.self),
          decodeURIComponent(`${server.httpsUrl}${NOTICE_COUNTS}?${query}`),
        );
      };
      await noticeCounts("by=year", "year", () => true);
      await noticeCounts("by=month&sort=key", "month", () => true, { sort: "key" });
      await noticeCounts("by=year&min_count=10&limit=3", "year", () => true, { minCount: 10, limit: 3 });
      await noticeCounts(
        "by=month&filter[date][operator]=STARTS_WITH&filter[date][value]=2019",
        "month",
        (notice) => notice.date.startsWith("2019"),
      );
      await noticeCounts(
        "by=year&filter[d][condition][path]=date&filter[d][condition][operator]=%3E%3D&filter[d][condition][value]=2010-01-01&sort=key",
        "year",
        (notice) => notice.date !== "" && notice.date >= "2010-01-01",
        { sort: "key" },
      );
      await noticeCounts(
        "by=year&filter[u][condition][path]=date&filter[u][condition][operator]=IS%20NULL",
        "year",
        (notice) => notice.date === "",
      );
      await noticeCounts("by=year&date=2015-06-01", "year", (notice) => notice.date === "2015-06-01");
    });

    it("with --ignore-unknown-parameters, ignores what it does not know but still refuses paging", async () => {
      const lenient = await startTestServer({ db, ignoreUnknownParameters: true });
      try {
        const ignored = await lenient.get(`${COUNTS}?by=state&county=x`, { "X-Api-Key": apiKey });
        assert.equal(ignored.status, 200, ignored.body);
        assert.equal(ignored.headers["ignored-parameters"], "county");
        assert.deepEqual(ignored.json().data, expected(rows, ["state"], () => true).data);
        for (const path of [`${COUNTS}?by=state&offset=0`, `${NOTICE_COUNTS}?by=year&page[limit]=1`]) {
          const refused = await lenient.get(path, { "X-Api-Key": apiKey });
          assert.equal(refused.status, 400, `${path}: ${refused.body}`);
        }
      } finally {
        await lenient.stop();
      }
    });

    it("answers with an ETag and Last-Modified, and 304 to a matching If-None-Match", async () => {
      for (const path of [`${COUNTS}?by=state`, `${NOTICE_COUNTS}?by=year`]) {
        const first = await get(path);
        assert.equal(first.status, 200);
        const etag = String(first.headers.etag);
        assert.match(etag, /^"/);
        assert.ok(first.headers["last-modified"], "Last-Modified is sent");
        const again = await server.get(path, { "X-Api-Key": apiKey, "If-None-Match": etag });
        assert.equal(again.status, 304);
        assert.equal(again.body, "");
      }
    });

    it("moves right after an import into the running server", async () => {
      const before = await counts("by=created_date&sort=key");
      await importFiles(db, { complaints: [later] });
      const added = await readComplaintCsv(later);
      await eventually(async () => {
        await check(
          "by=created_date&sort=key",
          expected([...rows, ...added], ["created_date"], () => true, { sort: "key" }),
        );
      });
      await check(
        "by=state&created_date=2024-03-10",
        expected(added, ["state"], (row) => row.created.startsWith("2024-03-10")),
      );
      assert.notDeepEqual((await counts("by=created_date&sort=key")).data, before.data);
      rows = [...rows, ...added];
    });
  });

  describe(`migration 012 on a database made before it (${dialect})`, () => {
    it("fills the value counts and the number totals from the rows already stored", async () => {
      const directory = await makeTempDirectory();
      const file = join(directory, "before.csv");
      await writeComplaintCsv({ rows: 1500, days: 4, seed: 31, endSeconds: END_SECONDS }, file);
      const crafted = join(directory, "crafted.csv");
      await writeFile(crafted, `${HEADER}\r\n${stringify(craftedRows(), { record_delimiter: "windows" })}`);
      const db = await freshDatabase(dialect);
      await importFiles(db, { complaints: [file, crafted] });
      // What the writers before migration 012 left: none of its tables, indexes or dimensions.
      await withDatabase(db, async (database) => {
        const exec = (text: string) => sql.raw(text).execute(database.db);
        await exec("drop index complaint_counts_by_day");
        await exec("drop index complaint_hour_counts_by_hour");
        await exec("drop table complaint_phone_totals");
        await exec(
          "delete from complaint_counts where dimension in ('shown_state', 'shown_city', 'subject')",
        );
        await exec(
          "delete from complaint_hour_counts where dimension in ('shown_state', 'shown_city', 'shown_area', 'subject')",
        );
        await exec("delete from kysely_migration where name = '012-count-groups'");
      });
      // Opening migrates.
      const apiKey = await createTestKey(db);
      const rows = [...(await readComplaintCsv(file)), ...(await readComplaintCsv(crafted))];
      const server = await startTestServer({ db });
      try {
        const range = createdIn("2024-03-07 06:00:00", "2024-03-09 23:59:59");
        for (const [query, by, test, options] of [
          ["by=state", ["state"], () => true, {}],
          ["by=city&created_date_from=2024-03-07%2006:00:00&created_date_to=2024-03-09", ["city"], range, {}],
          [
            "by=subject&created_date_from=2024-03-07%2006:00:00&created_date_to=2024-03-09",
            ["subject"],
            range,
            {},
          ],
          ["by=company_phone_number&min_count=2", ["company_phone_number"], () => true, { minCount: 2 }],
          [
            "by=company_phone_number&min_count=3&created_date_from=2024-03-07%2006:00:00&created_date_to=2024-03-09",
            ["company_phone_number"],
            range,
            { minCount: 3 },
          ],
        ] as Array<[string, string[], (row: CsvComplaint) => boolean, { minCount?: number }]>) {
          const res = await server.get(`${COUNTS}?${query}`, { "X-Api-Key": apiKey });
          assert.equal(res.status, 200, res.body);
          const want = expected(rows, by, test, options);
          assert.deepEqual(res.json().meta, want.meta, query);
          assert.deepEqual(res.json().data, want.data, query);
        }
      } finally {
        await server.stop();
      }
    });
  });

  describe(`counts of the real 2021-07-08 extract (${dialect})`, () => {
    const present = existsSync(EXTRACT);
    let server: TestServer;
    let apiKey: string;
    let rows: CsvComplaint[];

    before(async () => {
      if (!present) return;
      const db = await freshDatabase(dialect);
      const imported = await importFiles(db, { complaints: [EXTRACT] });
      assert.equal(imported.complaints[0]!.added, 14_034);
      rows = await readComplaintCsv(EXTRACT);
      apiKey = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    it("gives the counts computed from the file", async (t) => {
      if (!present) {
        t.skip(`${EXTRACT} not found: the real-extract counts are skipped`);
        return;
      }
      const check = async (query: string, want: Expected) => {
        const res = await server.get(`${COUNTS}?${query}`, { "X-Api-Key": apiKey });
        assert.equal(res.status, 200, res.body);
        assert.deepEqual(res.json().meta, want.meta, query);
        assert.deepEqual(res.json().data, want.data, query);
      };
      for (const field of FIELD_NAMES) {
        if (field === "company_phone_number") continue;
        await check(
          `by=${field}&limit=100000`,
          expected(rows, [field], () => true, { limit: 100000 }),
        );
      }
      const morning = createdIn("2021-07-07 08:00:00", "2021-07-07 12:30:00");
      await check(
        "by=state,is_robocall&created_date_from=%222021-07-07%2008:00:00%22&created_date_to=%222021-07-07%2012:30:00%22",
        expected(rows, ["state", "is_robocall"], morning),
      );
      for (const query of [
        "",
        "&created_date=2021-07-07",
        "&created_date_from=2021-07-07%2008:00:00&created_date_to=2021-07-07%2012:30:00",
      ]) {
        const test =
          query === ""
            ? () => true
            : query.includes("08:00")
              ? morning
              : (row: CsvComplaint) => row.created.startsWith("2021-07-07");
        await check(
          `by=company_phone_number&min_count=3${query}`,
          expected(rows, ["company_phone_number"], test, { minCount: 3 }),
        );
      }
      await check(
        "by=city&city=springfield&limit=100000",
        expected(rows, ["city"], (row) => key(row.city) === "springfield", { limit: 100000 }),
      );
      await check(
        "by=state&subject=other",
        expected(rows, ["state"], (row) => key(row.subject) === "other"),
      );
    });
  });
}
